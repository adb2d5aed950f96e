import FrameFlow

/// Turns landmarks into `RenderData` for `AnnotationOverlayCalculator`, as MediaPipe's
/// `LandmarksToRenderDataCalculator`: a line per connection, then a point per landmark.
///
/// Connections are pairs of `landmark_connections` (`[0, 1, 1, 2]` joins 0–1 and 1–2); a pair
/// naming a landmark the list lacks is skipped. With `utilize_visibility` a landmark whose
/// visibility is set and below `visibility_threshold` is hidden, with its connections; the
/// same for presence. The line and point thickness is `thickness`, times `RENDER_SCALE` when
/// connected.
///
/// With `visualize_landmark_depth` (the default) and z values spanning more than 0.001 (z
/// range found from MediaPipe's starting values: the largest float and the smallest positive
/// normal float), depth shows: each connection is a gradient line whose end colours mix
/// `min_depth_line_color` (weight w) and `max_depth_line_color` (weight 1 − w), where
/// w = (z − z_min) / (z_max − z_min + 1e-6); each point is gray 255 − ⌊255·w⌋ with thickness
/// ⌊min_depth_circle_thickness + (1 − w)·(max − min)⌋, ignoring the render scale. Otherwise
/// connections are plain lines in `connection_color`, points in `landmark_color`. Points carry
/// scene tag "KEYPOINT". Arithmetic is single precision where MediaPipe's is.
///
/// Inputs (exactly one of the first two):
///   - `NORM_LANDMARKS`: `NormalizedLandmarkList` (normalized annotations).
///   - `LANDMARKS`: `LandmarkList` (pixel annotations).
///   - `RENDER_SCALE` (optional): `Float`, a factor on `thickness`.
/// Outputs:
///   - `RENDER_DATA`: `RenderData`; nothing for a timestamp without landmarks.
/// Options: `mediapipe.LandmarksToRenderDataCalculatorOptions` (extension 258435389)
/// { landmark_connections (repeated), landmark_color { r g b } (black), render_landmarks
/// (true), connection_color { r g b } (black), thickness (1, 0…1000), visualize_landmark_depth
/// (true), utilize_visibility (false), visibility_threshold (0), utilize_presence (false),
/// presence_threshold (0) (thresholds: any finite number, only compared),
/// min_depth_circle_thickness (0), max_depth_circle_thickness (18) (each 0…1000),
/// min_depth_line_color { r g b } (black), max_depth_line_color { r g b } (white) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "LandmarksToRenderDataCalculator"
///   input_stream: "NORM_LANDMARKS:face_landmarks"
///   input_stream: "RENDER_SCALE:render_scale"
///   output_stream: "RENDER_DATA:landmarks_render_data"
///   options {
///     [mediapipe.LandmarksToRenderDataCalculatorOptions.ext] {
///       landmark_connections: [0, 1, 1, 2]
///       landmark_color { r: 255 g: 0 b: 0 }
///       connection_color { r: 0 g: 255 b: 0 }
///       thickness: 2
///       visualize_landmark_depth: false
///     }
///   }
/// }
/// ```
public final class LandmarksToRenderDataCalculator: OptionsStoringCalculator {
    /// MediaPipe's `LandmarksToRenderDataCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.LandmarksToRenderDataCalculatorOptions"
        /// Pairs of landmark indexes to join.
        public var landmarkConnections: [Int] = []
        public var landmarkColor = RenderColor()
        /// Draw a point per landmark.
        public var renderLandmarks = true
        public var connectionColor = RenderColor()
        public var thickness = 1.0
        /// Show depth by colour and size (when z varies).
        public var visualizeLandmarkDepth = true
        public var utilizeVisibility = false
        /// A landmark with visibility at or above it is visible.
        public var visibilityThreshold = 0.0
        public var utilizePresence = false
        /// A landmark with presence at or above it is present.
        public var presenceThreshold = 0.0
        public var minDepthCircleThickness = 0.0
        public var maxDepthCircleThickness = 18.0
        /// Line colour at the least depth; black when unset.
        public var minDepthLineColor: RenderColor?
        /// Line colour at the greatest depth; white when unset.
        public var maxDepthLineColor: RenderColor?
        public init() {}
    }

    /// Normalized landmarks to draw (or `LANDMARKS`).
    public static let normLandmarks = InputPort<NormalizedLandmarkList>("NORM_LANDMARKS", optional: true)
    /// Pixel landmarks to draw (or `NORM_LANDMARKS`).
    public static let landmarks = InputPort<LandmarkList>("LANDMARKS", optional: true)
    /// A factor on `thickness`.
    public static let renderScale = InputPort<Float>("RENDER_SCALE", optional: true)
    /// The annotations.
    public static let renderData = OutputPort<RenderData>("RENDER_DATA")

    public static let contract = CalculatorContract(ports: [normLandmarks, landmarks, renderScale, renderData])

    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        _ = try cc.connectedInputTag(oneOf: [Self.normLandmarks.tag, Self.landmarks.tag])
    }

    public func process(_ cc: CalculatorContext) throws {
        let normalized = cc.isConnected(Self.normLandmarks)
        guard normalized ? cc.has(Self.normLandmarks) : cc.has(Self.landmarks) else { return }
        var scale: Float = 1
        if cc.isConnected(Self.renderScale) {
            guard cc.has(Self.renderScale) else {
                throw GraphError(
                    .calculatorFailed, "no RENDER_SCALE packet with the landmarks", node: cc.nodeName,
                    stream: cc.inputStreamName(Self.renderScale.tag))
            }
            scale = try cc.get(Self.renderScale)
        }
        let data: RenderData
        if normalized {
            data = Self.renderData(try cc.get(Self.normLandmarks), options: options, renderScale: scale)
        } else {
            data = Self.renderData(try cc.get(Self.landmarks), options: options, renderScale: scale)
        }
        try cc.emit(data, to: Self.renderData)
    }

    /// The annotations of `list`: connections first, then points; normalized for
    /// `NormalizedLandmarkList`s.
    public static func renderData<Space>(_ list: LandmarkPointList<Space>, options o: Options, renderScale: Float = 1) -> RenderData {
        let normalized = Space.self == NormalizedCoordinates.self
        let points = list.landmark
        let thickness = Double(Float(o.thickness) * renderScale)
        var zmin = Float.greatestFiniteMagnitude, zmax = Float.leastNormalMagnitude
        if o.visualizeLandmarkDepth {
            for p in points {
                zmin = min(Float(p.z), zmin)
                zmax = max(Float(p.z), zmax)
            }
        }
        let depth = o.visualizeLandmarkDepth && Double(zmax - zmin) > 1e-3
        func shown(_ p: LandmarkPoint<Space>) -> Bool {
            if o.utilizeVisibility, let v = p.visibility, Double(Float(v)) < o.visibilityThreshold { return false }
            if o.utilizePresence, let v = p.presence, Double(Float(v)) < o.presenceThreshold { return false }
            return true
        }
        func remap(_ z: Double, _ scale: Float) -> Float {
            Float(Double(Float(z) - zmin) / (Double(zmax - zmin) + 1e-6) * Double(scale))
        }
        let nearColor = o.minDepthLineColor ?? RenderColor(r: 0, g: 0, b: 0)
        let farColor = o.maxDepthLineColor ?? RenderColor(r: 255, g: 255, b: 255)
        func mix(_ w: Float) -> RenderColor {
            func channel(_ a: Int, _ b: Int) -> Int { Int(saturating: Float(a) * w + Float(b) * (1 - w)) }
            return RenderColor(r: channel(nearColor.r, farColor.r), g: channel(nearColor.g, farColor.g), b: channel(nearColor.b, farColor.b))
        }

        var out: [RenderAnnotation] = []
        var k = 0
        while k + 1 < o.landmarkConnections.count {
            let i = o.landmarkConnections[k], j = o.landmarkConnections[k + 1]
            k += 2
            guard points.indices.contains(i), points.indices.contains(j) else { continue }
            let a = points[i], b = points[j]
            guard shown(a), shown(b) else { continue }
            let (xs, ys, xe, ye) = (Double(Float(a.x)), Double(Float(a.y)), Double(Float(b.x)), Double(Float(b.y)))
            if depth {
                let shape = RenderAnnotation.Shape.gradientLine(
                    xStart: xs, yStart: ys, xEnd: xe, yEnd: ye, normalized: normalized, color1: mix(remap(a.z, 1)), color2: mix(remap(b.z, 1)))
                out.append(RenderAnnotation(shape, thickness: thickness, color: RenderColor()))
            } else {
                let shape = RenderAnnotation.Shape.line(xStart: xs, yStart: ys, xEnd: xe, yEnd: ye, normalized: normalized)
                out.append(RenderAnnotation(shape, thickness: thickness, color: o.connectionColor))
            }
        }
        if o.renderLandmarks {
            let low = Float(o.minDepthCircleThickness), span = Float(o.maxDepthCircleThickness) - low
            for p in points where shown(p) {
                let shape = RenderAnnotation.Shape.point(x: Double(Float(p.x)), y: Double(Float(p.y)), normalized: normalized)
                if depth {
                    let gray = 255 - Int(remap(p.z, 255))
                    let size = Int(low + (1 - remap(p.z, 1)) * span)
                    out.append(RenderAnnotation(shape, thickness: Double(size), color: RenderColor(r: gray, g: gray, b: gray), sceneTag: "KEYPOINT"))
                } else {
                    out.append(RenderAnnotation(shape, thickness: thickness, color: o.landmarkColor, sceneTag: "KEYPOINT"))
                }
            }
        }
        return RenderData(out)
    }
}

extension LandmarksToRenderDataCalculator.Options {
    /// Checks the values (called by the graph before `init` and `update(options:)`).
    public func validate() throws {
        guard landmarkConnections.count % 2 == 0 else {
            throw GraphError(.invalidOption, "landmark_connections has \(landmarkConnections.count) entries, not pairs")
        }
        if let v = landmarkConnections.first(where: { $0 < 0 }) {
            throw GraphError(.invalidOption, "landmark_connections has \(v), not a landmark index")
        }
        let colors = [
            ("landmark_color", landmarkColor), ("connection_color", connectionColor),
            ("min_depth_line_color", minDepthLineColor ?? RenderColor()), ("max_depth_line_color", maxDepthLineColor ?? RenderColor()),
        ]
        for (name, c) in colors where !c.isValid { throw GraphError(.invalidOption, "\(name): r, g and b must be 0…255") }
        try OptionCheck.range(thickness, 0...1000, "thickness")
        try OptionCheck.range(minDepthCircleThickness, 0...1000, "min_depth_circle_thickness")
        try OptionCheck.range(maxDepthCircleThickness, 0...1000, "max_depth_circle_thickness")
    }

    /// mediapipe/calculators/util/landmarks_to_render_data_calculator.proto, for binary graphs.
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.landmarksToRenderDataCalculatorOptions }
}
