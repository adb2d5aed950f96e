import FrameFlow

/// Warps an image with an affine matrix, as MediaPipe's `WarpAffineCalculator` on the CPU (its
/// OpenCV runner): Pose puts its segmentation mask back onto the image with it.
///
/// `MATRIX` maps an output point to an input point, both in normalized coordinates (`[0, 1]`
/// over each image's width and height), as `ImageToTensorCalculator`'s inverse does. Output
/// pixel (x, y) takes the input at (a·x + b·y + c, d·x + e·y + f), where the matrix's first two
/// rows are scaled to pixels as MediaPipe's runner scales them (in float: input size on the left,
/// 1 / output size on the right), and the point is sampled as OpenCV's `warpAffine` with
/// `INTER_LINEAR | WARP_INVERSE_MAP` samples it: coordinates in fixed point with 1/32-pixel steps,
/// bilinear weights from those steps (8-bit channels in 15-bit fixed point, rounded; float
/// channels in float). Outside the input, `BORDER_ZERO` reads 0 and `BORDER_REPLICATE` (the
/// default) the nearest edge pixel. `gpu_origin` concerns GPU images only and is ignored.
///
/// Inputs:
///   - `IMAGE`: `ImageFrame` (gray8, rgb8, rgba8, bgra8, grayFloat32, rgbaFloat32).
///   - `MATRIX`: `ProjectionMatrix`.
///   - `OUTPUT_SIZE`: `ImageSize`.
///   A timestamp missing any of them gives nothing.
/// Outputs:
///   - `IMAGE`: `ImageFrame` of `OUTPUT_SIZE`, the input's format.
/// Options: `mediapipe.WarpAffineCalculatorOptions` (extension 373693895) { border_mode
/// (BORDER_UNSPECIFIED | BORDER_ZERO | BORDER_REPLICATE), gpu_origin (DEFAULT | CONVENTIONAL |
/// TOP_LEFT), interpolation (INTER_UNSPECIFIED | INTER_LINEAR; INTER_CUBIC is refused) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "WarpAffineCalculator"
///   input_stream: "IMAGE:roi_segmentation_mask"
///   input_stream: "MATRIX:inverse_transformation_matrix"
///   input_stream: "OUTPUT_SIZE:image_size"
///   output_stream: "IMAGE:segmentation_mask"
///   options {
///     [mediapipe.WarpAffineCalculatorOptions.ext] { border_mode: BORDER_ZERO gpu_origin: TOP_LEFT }
///   }
/// }
/// ```
public final class WarpAffineCalculator: Calculator {
    /// MediaPipe's `WarpAffineCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.WarpAffineCalculatorOptions"

        /// What is read outside the input.
        public enum BorderMode: String, Codable, Sendable {
            /// Unset: replicate.
            case unspecified = "BORDER_UNSPECIFIED"
            /// Zero in every channel.
            case zero = "BORDER_ZERO"
            /// The nearest edge pixel.
            case replicate = "BORDER_REPLICATE"
        }

        /// Where a GPU image starts (ignored on the CPU).
        public enum GpuOrigin: String, Codable, Sendable {
            case `default` = "DEFAULT", conventional = "CONVENTIONAL", topLeft = "TOP_LEFT"
        }

        /// The sampling filter.
        public enum Interpolation: String, Codable, Sendable {
            case unspecified = "INTER_UNSPECIFIED", linear = "INTER_LINEAR", cubic = "INTER_CUBIC"
        }

        public var borderMode = BorderMode.unspecified
        public var gpuOrigin = GpuOrigin.default
        public var interpolation = Interpolation.unspecified
        public init() {}
        public init(borderMode: BorderMode) { self.borderMode = borderMode }

        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.warpAffineCalculatorOptions }

        /// Bilinear only.
        public func validate() throws {
            if interpolation == .cubic {
                throw GraphError(.invalidOption, "interpolation: INTER_CUBIC is not supported (INTER_LINEAR is)")
            }
        }
    }

    /// The image to warp.
    public static let image = InputPort<ImageFrame>("IMAGE")
    /// The normalized output-to-input matrix.
    public static let matrix = InputPort<ProjectionMatrix>("MATRIX")
    /// The size of the output.
    public static let outputSize = InputPort<ImageSize>("OUTPUT_SIZE")
    /// The warped image.
    public static let warped = OutputPort<ImageFrame>("IMAGE")

    public static let contract = CalculatorContract(ports: [image, matrix, outputSize, warped])

    private let options: Options

    public init(options: Options) {
        self.options = options
    }

    public func process(_ cc: CalculatorContext) throws {
        guard cc.has(Self.image), cc.has(Self.matrix), cc.has(Self.outputSize) else { return }
        let image = try cc.get(Self.image)
        let size = try cc.get(Self.outputSize)
        guard size.width > 0, size.height > 0, size.width <= 32767, size.height <= 32767 else {
            throw GraphError(
                .calculatorFailed, "OUTPUT_SIZE \(size) is not a size from 1×1 to 32767×32767", node: cc.nodeName,
                stream: cc.inputStreamName(Self.outputSize.tag))
        }
        switch image.format {
        case .gray8, .rgb8, .rgba8, .bgra8, .grayFloat32, .rgbaFloat32: break
        default:
            throw GraphError(
                .calculatorFailed, "IMAGE is \(image.format); gray8, rgb8, rgba8, bgra8, grayFloat32 or rgbaFloat32 are warped",
                node: cc.nodeName, stream: cc.inputStreamName(Self.image.tag))
        }
        let matrix = try cc.get(Self.matrix)
        let out = try Self.warp(
            image, matrix: matrix, size: size, replicate: options.borderMode != .zero, pool: cc.pool)
        try cc.emit(out, to: Self.warped)
    }

    /// The 2×3 pixel matrix MediaPipe's OpenCV runner gives `warpAffine`: `matrix` with the
    /// input size on its left and 1 / output size on its right, multiplied in float.
    public static func pixelMatrix(_ matrix: ProjectionMatrix, input: ImageSize, output: ImageSize) -> [Double] {
        let m = matrix.values
        let left: [Float] = [Float(input.width), Float(input.height)]
        let right: [Float] = [1 / Float(output.width), 1 / Float(output.height), 1, 1]
        return [0, 1, 3, 4, 5, 7].map { k in
            let (row, col) = (k / 4, k % 4)
            return Double(left[row] * m[k] * right[col])
        }
    }

    /// `image` warped into `size` through `matrix` (output to input, normalized), as above.
    public static func warp(
        _ image: ImageFrame, matrix: ProjectionMatrix, size: ImageSize, replicate: Bool, pool: ImagePool = .shared
    ) throws -> ImageFrame {
        let m = pixelMatrix(matrix, input: ImageSize(width: image.width, height: image.height), output: size)
        var out = try pool.makeImage(width: size.width, height: size.height, format: image.format)
        let isFloat = image.format == .grayFloat32 || image.format == .rgbaFloat32
        let channels = image.format.channels
        let (sw, sh) = (image.width, image.height)
        let src = image.planes[0].baseAddress, srcStride = image.planes[0].bytesPerRow
        // OpenCV's fixed point: coordinates in 1/1024, sampled in 1/32 steps.
        let adelta = (0..<size.width).map { Self.round(m[0] * Double($0) * 1024) }
        let bdelta = (0..<size.width).map { Self.round(m[3] * Double($0) * 1024) }
        let pixelBytes = channels * (isFloat ? 4 : 1)
        for y in 0..<size.height {
            let x0 = Self.round((m[1] * Double(y) + m[2]) * 1024) + 16
            let y0 = Self.round((m[4] * Double(y) + m[5]) * 1024) + 16
            out.withMutableRow(y) { row in
                let dst = UnsafeMutableRawPointer(row.baseAddress!)
                // Output column x's source position in OpenCV's fixed point: the neighbours and
                // the 1/32 fractions.
                @inline(__always) func taps(_ x: Int) -> (o0: Int, o1: Int, o2: Int, o3: Int, fx: Int, fy: Int) {
                    let X = (x0 &+ adelta[x]) >> 5, Y = (y0 &+ bdelta[x]) >> 5
                    let sx = Self.clampShort(X >> 5), sy = Self.clampShort(Y >> 5)
                    let fx = X & 31, fy = Y & 31
                    // Byte offsets of the neighbours (sx, sy), (sx+1, sy), (sx, sy+1), (sx+1, sy+1);
                    // -1 reads 0 (the zero border).
                    let o0: Int, o1: Int, o2: Int, o3: Int
                    if sx >= 0 && sx < sw - 1 && sy >= 0 && sy < sh - 1 {
                        o0 = sy * srcStride + sx * pixelBytes
                        o1 = o0 + pixelBytes
                        o2 = o0 + srcStride
                        o3 = o2 + pixelBytes
                    } else if replicate {
                        let ax0 = Swift.min(Swift.max(sx, 0), sw - 1), ax1 = Swift.min(Swift.max(sx + 1, 0), sw - 1)
                        let ay0 = Swift.min(Swift.max(sy, 0), sh - 1), ay1 = Swift.min(Swift.max(sy + 1, 0), sh - 1)
                        o0 = ay0 * srcStride + ax0 * pixelBytes
                        o1 = ay0 * srcStride + ax1 * pixelBytes
                        o2 = ay1 * srcStride + ax0 * pixelBytes
                        o3 = ay1 * srcStride + ax1 * pixelBytes
                    } else {
                        let in0 = sx >= 0 && sx < sw, in1 = sx + 1 >= 0 && sx + 1 < sw
                        let iny0 = sy >= 0 && sy < sh, iny1 = sy + 1 >= 0 && sy + 1 < sh
                        o0 = in0 && iny0 ? sy * srcStride + sx * pixelBytes : -1
                        o1 = in1 && iny0 ? sy * srcStride + (sx + 1) * pixelBytes : -1
                        o2 = in0 && iny1 ? (sy + 1) * srcStride + sx * pixelBytes : -1
                        o3 = in1 && iny1 ? (sy + 1) * srcStride + (sx + 1) * pixelBytes : -1
                    }
                    return (o0, o1, o2, o3, fx, fy)
                }
                if image.format == .grayFloat32 {
                    // The masks' case, without the per-pixel format and channel loops.
                    let d = dst.assumingMemoryBound(to: Float.self)
                    for x in 0..<size.width {
                        let t = taps(x)
                        let ax = Float(t.fx) * (1 / 32), ay = Float(t.fy) * (1 / 32)
                        @inline(__always) func load(_ o: Int) -> Float { o < 0 ? 0 : src.load(fromByteOffset: o, as: Float.self) }
                        // OpenCV's scalar order: ((v0·w0 + v1·w1) + v2·w2) + v3·w3.
                        d[x] =
                            load(t.o0) * ((1 - ay) * (1 - ax)) + load(t.o1) * ((1 - ay) * ax) + load(t.o2) * (ay * (1 - ax)) + load(t.o3) * (ay * ax)
                    }
                    return
                }
                for x in 0..<size.width {
                    let (o0, o1, o2, o3, fx, fy) = taps(x)
                    if isFloat {
                        let ax = Float(fx) * (1 / 32), ay = Float(fy) * (1 / 32)
                        let w0 = (1 - ay) * (1 - ax), w1 = (1 - ay) * ax, w2 = ay * (1 - ax), w3 = ay * ax
                        for c in 0..<channels {
                            @inline(__always) func load(_ o: Int) -> Float {
                                o < 0 ? 0 : src.load(fromByteOffset: o + c * 4, as: Float.self)
                            }
                            // OpenCV's scalar order: ((v0·w0 + v1·w1) + v2·w2) + v3·w3.
                            let v = load(o0) * w0 + load(o1) * w1 + load(o2) * w2 + load(o3) * w3
                            dst.storeBytes(of: v, toByteOffset: (x * channels + c) * 4, as: Float.self)
                        }
                    } else {
                        // Weights ×32768: products of (32 − f) and f over 32², times 32768.
                        let w0 = (32 - fy) * (32 - fx) * 32, w1 = (32 - fy) * fx * 32, w2 = fy * (32 - fx) * 32, w3 = fy * fx * 32
                        for c in 0..<channels {
                            @inline(__always) func load(_ o: Int) -> Int {
                                o < 0 ? 0 : Int(src.load(fromByteOffset: o + c, as: UInt8.self))
                            }
                            let v = load(o0) * w0 + load(o1) * w1 + load(o2) * w2 + load(o3) * w3
                            dst.storeBytes(of: UInt8(Swift.min(255, (v + (1 << 14)) >> 15)), toByteOffset: x * channels + c, as: UInt8.self)
                        }
                    }
                }
            }
        }
        return out.freeze()
    }

    /// OpenCV's `saturate_cast<int>(double)`: round half to even, clamped to Int32.
    static func round(_ v: Double) -> Int {
        guard v.isFinite else { return v > 0 ? Int(Int32.max) : Int(Int32.min) }
        let r = v.rounded(.toNearestOrEven)
        return r >= Double(Int32.max) ? Int(Int32.max) : r <= Double(Int32.min) ? Int(Int32.min) : Int(r)
    }

    /// OpenCV's `saturate_cast<short>`.
    static func clampShort(_ v: Int) -> Int { Swift.min(Swift.max(v, Int(Int16.min)), Int(Int16.max)) }
}
