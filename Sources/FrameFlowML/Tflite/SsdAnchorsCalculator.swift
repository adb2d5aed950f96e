import Foundation
import FrameFlow
import FrameFlowInference

/// Generates SSD anchors once, as MediaPipe's `SsdAnchorsCalculator` does, for
/// `TensorsToDetectionsCalculator`'s `ANCHORS` side packet.
///
/// Layers that share a stride form one feature map of ⌈input / stride⌉ cells (or
/// `feature_map_width`/`height`); each cell gets one anchor per aspect ratio at the layer's
/// scale (scales run linearly from `min_scale` to `max_scale` over the layers), plus one of
/// ratio `interpolated_scale_aspect_ratio` at the geometric mean of this layer's and the next
/// one's scale. The lowest layer gets ratios 1, 2, 0.5 at scales 0.1, s, s with
/// `reduce_boxes_in_lowest_layer`. Centres are `(cell + anchor_offset) / cells`; with
/// `fixed_anchor_size` every width and height is 1. `multiscale_anchor_generation` builds
/// RetinaNet-style levels `min_level`…`max_level` instead; `fixed_anchors` are used as given.
///
/// Output side packets:
///   - (untagged): `[Anchor]`, in MediaPipe's order (layer, row, column, anchor).
/// Options: `mediapipe.SsdAnchorsCalculatorOptions` (MediaPipe's fields and defaults). Ranges
/// (checked when the graph is built): num_layers (or max_level − min_level + 1) 1…64, strides
/// 1…65536 (one per layer), input_size_width and _height 1…16384, feature_map_width and
/// _height 1…4096 (one each per layer), min_level and max_level 0…20, scales_per_octave 1…16,
/// min_scale, max_scale, anchor_scale, interpolated_scale_aspect_ratio within ±1e6 (ratios
/// and aspect_ratios > 0), anchor_offset_x and _y within ±1e6; at most 2²² anchors.
///
/// Example usage (MediaPipe's short-range face detection: 896 anchors):
/// ```
/// node {
///   calculator: "SsdAnchorsCalculator"
///   output_side_packet: "anchors"
///   options { [mediapipe.SsdAnchorsCalculatorOptions.ext] {
///     num_layers: 4 min_scale: 0.1484375 max_scale: 0.75 input_size_width: 128 input_size_height: 128
///     anchor_offset_x: 0.5 anchor_offset_y: 0.5 strides: [8, 16, 16, 16] aspect_ratios: 1.0
///     fixed_anchor_size: true } }
/// }
/// ```
public final class SsdAnchorsCalculator: Calculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.SsdAnchorsCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.ssdAnchorsCalculatorOptions }

        public var inputSizeWidth = 0
        public var inputSizeHeight = 0
        public var minScale = 0.0
        public var maxScale = 0.0
        public var anchorOffsetX = 0.5
        public var anchorOffsetY = 0.5
        public var numLayers = 0
        public var featureMapWidth: [Int] = []
        public var featureMapHeight: [Int] = []
        public var strides: [Int] = []
        public var aspectRatios: [Double] = []
        public var reduceBoxesInLowestLayer = false
        public var interpolatedScaleAspectRatio = 1.0
        public var fixedAnchorSize = false
        public var multiscaleAnchorGeneration = false
        public var minLevel = 3
        public var maxLevel = 7
        public var anchorScale = 4.0
        public var scalesPerOctave = 2
        public var normalizeCoordinates = true
        public var fixedAnchors: [Anchor] = []
        public init() {}
    }

    /// The anchors (untagged output side packet).
    public static let anchorsSidePacket = OutputSidePacket<[Anchor]>("")

    public static let contract = CalculatorContract(ports: [anchorsSidePacket])

    private let anchors: [Anchor]

    public init(options: Options) throws {
        anchors = try Self.anchors(options)
    }

    public func open(_ cc: CalculatorContext) throws {
        try cc.set(anchors, to: Self.anchorsSidePacket)
    }

    /// Nothing per frame: the output is the side packet.
    public func process(_ cc: CalculatorContext) throws { cc.finishSource() }

    /// MediaPipe's `CalculateScale`: linear from `minScale` to `maxScale` over `count` layers.
    static func scale(_ minScale: Float, _ maxScale: Float, _ index: Int, _ count: Int) -> Float {
        count == 1
            ? (minScale + maxScale) * 0.5 : Float(Double(minScale) + Double(maxScale - minScale) * Double(index) / Double(Float(count) - 1))
    }

    /// The anchors `o` describes (computed in `Float`, as MediaPipe does).
    public static func anchors(_ o: Options) throws -> [Anchor] {
        try o.validate()
        if !o.fixedAnchors.isEmpty { return o.fixedAnchors }
        if o.multiscaleAnchorGeneration { return try multiscale(o) }
        let strides = o.strides, n = strides.count
        let minScale = Float(o.minScale), maxScale = Float(o.maxScale)
        var out: [Anchor] = []
        var layer = 0
        while layer < o.numLayers {
            var ratios: [Float] = [], scales: [Float] = []
            var last = layer
            while last < n && strides[last] == strides[layer] {
                let s = scale(minScale, maxScale, last, n)
                if last == 0 && o.reduceBoxesInLowestLayer {
                    ratios += [1, 2, 0.5]
                    scales += [0.1, s, s]
                } else {
                    for r in o.aspectRatios {
                        ratios.append(Float(r))
                        scales.append(s)
                    }
                    if o.interpolatedScaleAspectRatio > 0 {
                        let next: Float = last == n - 1 ? 1 : scale(minScale, maxScale, last + 1, n)
                        scales.append((s * next).squareRoot())
                        ratios.append(Float(o.interpolatedScaleAspectRatio))
                    }
                }
                last += 1
            }
            // Feature maps given explicitly exist per layer even without strides.
            if n == 0 { last = layer + 1 }
            let (rows, cols) = featureMap(o, layer)
            try checkCount(out.count, rows * cols * ratios.count)
            let offX = Float(o.anchorOffsetX), offY = Float(o.anchorOffsetY)
            for y in 0..<rows {
                for x in 0..<cols {
                    for (r, s) in zip(ratios, scales) {
                        let root = r.squareRoot()
                        out.append(
                            Anchor(
                                x: Double((Float(x) + offX) / Float(cols)), y: Double((Float(y) + offY) / Float(rows)),
                                width: o.fixedAnchorSize ? 1 : Double(s * root), height: o.fixedAnchorSize ? 1 : Double(s / root)))
                    }
                }
            }
            layer = last
        }
        return out
    }

    /// Refuses option sets that would make more than 2²² anchors (no model has that many).
    static func checkCount(_ have: Int, _ more: Int) throws {
        guard have + more <= 1 << 22 else {
            throw GraphError(.invalidOption, "these options make more than \(1 << 22) anchors: check strides and input_size_width/height")
        }
    }

    /// Rows and columns of layer `index`'s feature map.
    static func featureMap(_ o: Options, _ index: Int) -> (rows: Int, cols: Int) {
        if !o.featureMapHeight.isEmpty { return (o.featureMapHeight[index], o.featureMapWidth[index]) }
        let s = Float(o.strides[index])
        let rows = (Float(o.inputSizeHeight) / s).rounded(.up), cols = (Float(o.inputSizeWidth) / s).rounded(.up)
        return (Int(rows), Int(cols))  // checked: input sizes ≤ 16384 and strides ≥ 1 (validate)
    }

    /// RetinaNet-style anchors: level l has stride 2^l, base size stride × anchor_scale, and
    /// per cell one anchor per (aspect ratio, octave scale 2^(k / scales_per_octave)).
    static func multiscale(_ o: Options) throws -> [Anchor] {
        var out: [Anchor] = []
        for (i, level) in (o.minLevel...o.maxLevel).enumerated() {
            let stride = Float(pow(2.0, Double(level)))
            let base = stride * Float(o.anchorScale)
            let octave = (0..<o.scalesPerOctave).map { Float(pow(2.0, Double($0) / Double(o.scalesPerOctave))) }
            let denominator = 1 << level  // levels 0…20 (validate)
            let offY: Float = o.inputSizeHeight % denominator == 0 || o.inputSizeHeight == 1 ? stride / 2 : 0
            let offX: Float = o.inputSizeWidth % denominator == 0 || o.inputSizeWidth == 1 ? stride / 2 : 0
            let (rows, cols) = featureMap(o, i)
            try checkCount(out.count, rows * cols * o.aspectRatios.count * octave.count)
            let h = Float(o.inputSizeHeight), w = Float(o.inputSizeWidth)
            for y in 0..<rows {
                for x in 0..<cols {
                    for r in o.aspectRatios.map(Float.init) {
                        for s in octave {
                            let root = r.squareRoot()
                            var a = (cx: Float(x) * stride + offX, cy: Float(y) * stride + offY, w: s * root * base, h: s * base / root)
                            if o.normalizeCoordinates { a = (a.cx / w, a.cy / h, a.w / w, a.h / h) }
                            out.append(Anchor(x: Double(a.cx), y: Double(a.cy), width: Double(a.w), height: Double(a.h)))
                        }
                    }
                }
            }
        }
        return out
    }
}

extension SsdAnchorsCalculator.Options {
    /// Checks the values (called by the graph before `init` and `update(options:)`); the
    /// ranges are the header's.
    public func validate() throws {
        for (v, name) in [
            (minScale, "min_scale"), (maxScale, "max_scale"), (anchorOffsetX, "anchor_offset_x"), (anchorOffsetY, "anchor_offset_y"),
            (interpolatedScaleAspectRatio, "interpolated_scale_aspect_ratio"), (anchorScale, "anchor_scale"),
        ] {
            try OptionCheck.range(v, -1e6...1e6, name)
        }
        try OptionCheck.range(aspectRatios, -1e6...1e6, "aspect_ratios")
        if !fixedAnchors.isEmpty {
            guard inputSizeWidth == 0, inputSizeHeight == 0, minScale == 0, maxScale == 0, numLayers == 0, !multiscaleAnchorGeneration
            else {
                throw GraphError(
                    .invalidOption,
                    "fixed_anchors are given: leave input_size_*, min/max_scale, num_layers and multiscale_anchor_generation unset")
            }
            return
        }
        guard !featureMapHeight.isEmpty || !strides.isEmpty else {
            throw GraphError(.invalidOption, "give strides or feature_map_width/feature_map_height")
        }
        if multiscaleAnchorGeneration {
            try OptionCheck.range(minLevel, 0...20, "min_level")
            try OptionCheck.range(maxLevel, 0...20, "max_level")
        }
        let layers = multiscaleAnchorGeneration ? maxLevel - minLevel + 1 : numLayers
        guard layers > 0, layers <= 64 else {
            throw GraphError(.invalidOption, "num_layers (or max_level - min_level + 1) must be in 1...64, not \(layers)")
        }
        if !strides.isEmpty || featureMapHeight.isEmpty {
            guard strides.count == layers, strides.allSatisfy({ $0 > 0 && $0 <= 65536 }) else {
                throw GraphError(.invalidOption, "strides needs \(layers) values from 1 to 65536 (one per layer), has \(strides)")
            }
        }
        if !featureMapHeight.isEmpty {
            guard featureMapHeight.count == layers, featureMapWidth.count == layers,
                (featureMapHeight + featureMapWidth).allSatisfy({ $0 > 0 && $0 <= 4096 })
            else {
                throw GraphError(.invalidOption, "feature_map_width and feature_map_height need \(layers) values from 1 to 4096 each")
            }
        } else {
            guard inputSizeWidth > 0, inputSizeHeight > 0, inputSizeWidth <= 16384, inputSizeHeight <= 16384 else {
                throw GraphError(.invalidOption, "input_size_width and input_size_height must be in 1...16384")
            }
        }
        if multiscaleAnchorGeneration {
            guard scalesPerOctave > 0, scalesPerOctave <= 16, !aspectRatios.isEmpty, aspectRatios.allSatisfy({ $0 > 0 }) else {
                throw GraphError(.invalidOption, "multiscale anchors need scales_per_octave in 1...16 and positive aspect_ratios")
            }
        } else {
            guard aspectRatios.allSatisfy({ $0 > 0 }) else { throw GraphError(.invalidOption, "aspect_ratios must be positive") }
        }
    }
}
