import CFrameFlowKernels
import Foundation
import FrameFlow
import FrameFlowInference
import FrameFlowCalculators

/// Turns an image, or a rotated region of it, into a model's input tensor, as MediaPipe's
/// `ImageToTensorCalculator` does on the CPU.
///
/// The region of interest is `NORM_RECT` (the whole image without it). With
/// `keep_aspect_ratio` it is widened or heightened, about its centre, to the tensor's aspect
/// ratio; the part that falls outside the image is the letterbox. The region's corners are
/// mapped to the tensor's corners (its top-left to `(0, 0)`, its bottom-right to
/// `(width, height)`) and each tensor element samples the image bilinearly at the mapped
/// position (OpenCV's `warpPerspective` with `INTER_LINEAR`); positions outside the image
/// read 0 (`BORDER_ZERO`) or the nearest edge pixel (`BORDER_REPLICATE`, also the default).
/// The sampled 8-bit values are then scaled from [0, 255] to the output range.
///
/// Inputs:
///   - `IMAGE`: `ImageFrame` (any 8-bit format; converted to RGB, or gray with `color: "gray"`).
///   - `NORM_RECT` (optional): `NormalizedRect`, the region (rotation in radians, clockwise);
///     a rect of zero width and height produces nothing for that timestamp; one with a value
///     that is not finite, a centre or size beyond ±100 (image sizes) or a rotation beyond
///     ±10000 rad is an error.
/// Outputs:
///   - `TENSORS`: `[Tensor]` with one tensor `[1, H, W, C]` (`[1, C, H, W]` with
///     `layout: "nchw"`): float32 for a float range, int8 / uint8 for an int / uint range.
///   - `MATRIX` (optional): `ProjectionMatrix` from the tensor's normalized coordinates to the
///     image's (feed it to `DetectionProjectionCalculator`).
///   - `LETTERBOX_PADDING` (optional): `[Double]` left, top, right, bottom padding as
///     fractions of the tensor (the same for left/right and top/bottom).
/// Options: `mediapipe.ImageToTensorCalculatorOptions` { output_tensor_width,
/// output_tensor_height (0: the image's size), keep_aspect_ratio (false),
/// output_tensor_float_range { min max } | output_tensor_int_range { min max } |
/// output_tensor_uint_range { min max } (one is required, or `mean`/`std`), gpu_origin
/// (accepted; the CPU path has no origin to flip), border_mode (BORDER_ZERO |
/// BORDER_REPLICATE) }, and FrameFlow's own fields, which MediaPipe's message lacks and
/// binary graphs cannot carry: color ("rgb" | "bgr" | "gray"), layout ("nhwc" | "nchw"),
/// mean / std (per channel, on [0, 1] values, instead of a range), content_size ([w, h]:
/// the image, or an unrotated NORM_RECT, is resized into this box, centred in the tensor,
/// bars black) and interpolation (BILINEAR | AREA: OpenCV's resize with INTER_AREA, for photos
/// shrunk to a small tensor; with an unrotated NORM_RECT, area averaging of the region, see
/// `areaSample`).
///
/// Ranges (checked when the graph is built): output_tensor_width and _height 0…8192, and the
/// tensor (width × height × channels, the image's size where 0) at most
/// `ResourceLimits.maxTensorElements` (the graph's, when running); float range min < max
/// within ±1e6; int range within −128…127, uint range within 0…255; mean within ±1e6, std within ±1e6 and at least
/// 1e-6 in magnitude; content_size within the tensor.
///
/// Example usage (MediaPipe's short-range face detection):
/// ```
/// node {
///   calculator: "ImageToTensorCalculator"
///   input_stream: "IMAGE:image"
///   input_stream: "NORM_RECT:roi"
///   output_stream: "TENSORS:input_tensors"
///   output_stream: "MATRIX:transform_matrix"
///   options { [mediapipe.ImageToTensorCalculatorOptions.ext] {
///     output_tensor_width: 128 output_tensor_height: 128 keep_aspect_ratio: true
///     output_tensor_float_range { min: -1.0 max: 1.0 } border_mode: BORDER_ZERO } }
/// }
/// ```
public final class ImageToTensorCalculator: OptionsStoringCalculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.ImageToTensorCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.imageToTensorCalculatorOptions }

        /// A value range `{ min max }`; fields left out keep 0.
        public struct Range<Value: Codable & Sendable & Equatable & Numeric>: Codable, Sendable, Equatable {
            public var min: Value
            public var max: Value
            public init(min: Value, max: Value) {
                self.min = min
                self.max = max
            }
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                min = try c.decodeIfPresent(Value.self, forKey: .min) ?? 0
                max = try c.decodeIfPresent(Value.self, forKey: .max) ?? 0
            }
        }

        /// What positions outside the image read.
        public enum BorderMode: String, Codable, Sendable {
            /// As `replicate` (MediaPipe's default).
            case unspecified = "BORDER_UNSPECIFIED"
            case zero = "BORDER_ZERO"
            case replicate = "BORDER_REPLICATE"
        }

        /// `mediapipe.GpuOrigin.Mode`.
        public enum GpuOrigin: String, Codable, Sendable {
            case `default` = "DEFAULT", conventional = "CONVENTIONAL", topLeft = "TOP_LEFT"
        }

        public var outputTensorWidth = 0
        public var outputTensorHeight = 0
        public var keepAspectRatio = false
        public var outputTensorFloatRange: Range<Double>?
        public var outputTensorIntRange: Range<Int64>?
        public var outputTensorUintRange: Range<Int64>?
        public var gpuOrigin = GpuOrigin.default
        public var borderMode = BorderMode.unspecified
        // FrameFlow's fields.
        public var color = "rgb"
        public var layout = "nhwc"
        public var mean: [Double] = []
        public var std: [Double] = []
        public var contentSize: [Int] = []
        public var interpolation = Interpolation.bilinear
        public init() {}
    }

    /// The image to convert.
    public static let image = InputPort<ImageFrame>("IMAGE")
    /// The region to take (else the whole image).
    public static let rect = InputPort<NormalizedRect>("NORM_RECT", optional: true)
    /// The input tensor.
    public static let tensors = OutputPort<[Tensor]>("TENSORS")
    /// The matrix from the tensor's normalized coordinates to the image's.
    public static let matrix = OutputPort<ProjectionMatrix>("MATRIX", optional: true)
    /// The letterbox padding: left, top, right, bottom, as fractions of the tensor.
    public static let padding = OutputPort<[Double]>("LETTERBOX_PADDING", optional: true)

    public static let contract = CalculatorContract(
        ports: [image, rect, tensors, matrix, padding],
        concurrentProcess: true)  // process reads only its options

    public var options: Options

    public init(options: Options) throws {
        self.options = options
    }

    public func process(_ cc: CalculatorContext) throws {
        guard cc.has(Self.image) else { return }
        var rect: NormalizedRect?
        if cc.isConnected(Self.rect) {
            guard let r = try cc.value(Self.rect) else { return }
            if r.width == 0 && r.height == 0 { return }  // MediaPipe's "no region" sentinel
            try Self.checkRegion(r, stream: cc.inputStreamName(Self.rect.tag))
            rect = r
        }
        let image = try cc.get(Self.image)
        let out: (tensor: Tensor, matrix: ProjectionMatrix, padding: [Double])
        do {
            out = try Self.convert(image, rect: rect, options: options, pool: cc.pool, limits: cc.environment.limits)
        } catch var e as GraphError {
            // Name the node's stream rather than the port.
            if e.stream == "NORM_RECT" { e.stream = cc.inputStreamName(Self.rect.tag) }
            throw e
        }
        try cc.emit([out.tensor], to: Self.tensors)
        if cc.isConnected(Self.matrix) { try cc.emit(out.matrix, to: Self.matrix) }
        if cc.isConnected(Self.padding) { try cc.emit(out.padding, to: Self.padding) }
    }

    /// Refuses a region whose values would make no sense in pixels (or overflow the warp's
    /// 1/32-pixel grid): not finite, a centre or size beyond ±100 image sizes, a rotation
    /// beyond ±10000 rad.
    static func checkRegion(_ r: NormalizedRect, stream: String?) throws {
        let values = [r.xCenter, r.yCenter, r.width, r.height]
        guard values.allSatisfy({ $0.isFinite && abs($0) <= 100 }), r.rotation.isFinite, abs(r.rotation) <= 10_000 else {
            throw GraphError(
                .calculatorFailed,
                "NORM_RECT (\(r.xCenter), \(r.yCenter), \(r.width)×\(r.height), \(r.rotation) rad) is outside ±100 image sizes or not finite",
                stream: stream)
        }
    }

    /// A rotated rectangle in pixels: centre, size, clockwise rotation in radians.
    public struct PixelRoi: Sendable, Equatable {
        public var centerX, centerY, width, height, rotation: Double
        public init(centerX: Double, centerY: Double, width: Double, height: Double, rotation: Double = 0) {
            (self.centerX, self.centerY, self.width, self.height, self.rotation) = (centerX, centerY, width, height, rotation)
        }
    }

    /// The region in pixels: `rect` scaled to the image, or the whole image.
    public static func roi(imageWidth w: Int, imageHeight h: Int, rect: NormalizedRect?) -> PixelRoi {
        guard let r = rect else { return PixelRoi(centerX: Double(w) / 2, centerY: Double(h) / 2, width: Double(w), height: Double(h)) }
        return PixelRoi(
            centerX: r.xCenter * Double(w), centerY: r.yCenter * Double(h), width: r.width * Double(w), height: r.height * Double(h),
            rotation: r.rotation)
    }

    /// Grows `roi` about its centre to the tensor's aspect ratio when `keepAspectRatio`; the
    /// letterbox padding (left, top, right, bottom as fractions of the tensor) it adds.
    public static func padRoi(tensorWidth: Int, tensorHeight: Int, keepAspectRatio: Bool, roi: inout PixelRoi) throws -> [Double] {
        guard keepAspectRatio else { return [0, 0, 0, 0] }
        guard tensorWidth > 0, tensorHeight > 0 else {
            throw GraphError(.invalidOption, "output_tensor_width and output_tensor_height must be > 0")
        }
        guard roi.width > 0, roi.height > 0 else {
            throw GraphError(.calculatorFailed, "the region of interest has no area (\(roi.width)×\(roi.height))", stream: "NORM_RECT")
        }
        let tensorAspect = Double(tensorHeight) / Double(tensorWidth), roiAspect = roi.height / roi.width
        var horizontal = 0.0, vertical = 0.0
        if tensorAspect > roiAspect {
            vertical = (1 - roiAspect / tensorAspect) / 2
            roi.height = roi.width * tensorAspect
        } else {
            horizontal = (1 - tensorAspect / roiAspect) / 2
            roi.width = roi.height / tensorAspect
        }
        return [horizontal, vertical, horizontal, vertical]
    }

    /// The tensor for `image` (or its region `rect`), the matrix from tensor to image
    /// coordinates and the letterbox padding.
    public static func convert(
        _ image: ImageFrame, rect: NormalizedRect? = nil, options o: Options, pool: ImagePool = .shared,
        limits: ResourceLimits = ResourceLimits()
    ) throws -> (tensor: Tensor, matrix: ProjectionMatrix, padding: [Double]) {
        let gray = o.color == "gray"
        let src = try ColorConvertCalculator.convert(image, to: gray ? .gray8 : .rgb8, pool: pool)
        let W = o.outputTensorWidth > 0 ? o.outputTensorWidth : image.width
        let H = o.outputTensorHeight > 0 ? o.outputTensorHeight : image.height
        let C = gray ? 1 : 3
        guard limits.allowsTensor([W, H, C]) else {
            throw GraphError(
                .calculatorFailed,
                "a \(W)×\(H)×\(C) tensor exceeds the limit of \(limits.maxTensorElements) elements")
        }
        if let rect { try checkRegion(rect, stream: "NORM_RECT") }
        let pixels: [UInt8]
        let matrix: ProjectionMatrix
        let padding: [Double]
        if o.contentSize.count == 2 || o.interpolation == .area {
            var roi: PixelRoi?
            if let rect {
                guard rect.rotation == 0 else {
                    throw GraphError(
                        .invalidOption, "content_size and interpolation: AREA take an unrotated NORM_RECT, not \(rect.rotation) rad",
                        stream: "NORM_RECT")
                }
                roi = Self.roi(imageWidth: image.width, imageHeight: image.height, rect: rect)
                guard roi!.width > 0, roi!.height > 0, roi!.width.isFinite, roi!.height.isFinite else {
                    throw GraphError(.calculatorFailed, "the region of interest has no area (\(roi!.width)×\(roi!.height))", stream: "NORM_RECT")
                }
            }
            (pixels, matrix, padding) = try resizeIntoBox(src, roi: roi, channels: C, width: W, height: H, options: o, pool: pool)
        } else {
            var roi = Self.roi(imageWidth: image.width, imageHeight: image.height, rect: rect)
            padding = try padRoi(tensorWidth: W, tensorHeight: H, keepAspectRatio: o.keepAspectRatio, roi: &roi)
            matrix = .rotatedSubRect(
                centerX: roi.centerX, centerY: roi.centerY, width: roi.width, height: roi.height, rotation: roi.rotation,
                imageWidth: image.width, imageHeight: image.height)
            pixels = warp(src, channels: C, roi: roi, width: W, height: H, replicate: o.borderMode != .zero)
        }
        return (try tensor(pixels, channels: C, width: W, height: H, options: o), matrix, padding)
    }

    /// The `width` × `height` × `channels` bytes of `roi` sampled from `src` (rgb8 or gray8):
    /// OpenCV's `warpPerspective` with `INTER_LINEAR` — positions on a 1/32-pixel grid,
    /// bilinear weights, the result rounded to 8 bits.
    public static func warp(_ src: ImageFrame, channels C: Int, roi: PixelRoi, width W: Int, height H: Int, replicate: Bool) -> [UInt8] {
        // The corners as OpenCV's RotatedRect::points places them (angle in degrees, Float).
        let angle = Double(Float(roi.rotation * 180 / Double.pi)) * Double.pi / 180
        let b = Double(Float(cos(angle)) * 0.5), a = Double(Float(sin(angle)) * 0.5)
        let topLeftX = roi.centerX + a * roi.height - b * roi.width, topLeftY = roi.centerY - b * roi.height - a * roi.width
        // Per tensor column and row, how far the sampling position moves.
        let dxX = 2 * b * roi.width / Double(W), dxY = 2 * a * roi.width / Double(W)
        let dyX = -2 * a * roi.height / Double(H), dyY = 2 * b * roi.height / Double(H)
        let sw = src.width, sh = src.height
        let base = src.row(0).baseAddress!, stride = src.planes[0].bytesPerRow
        // Row y starts at the top-left corner moved y steps down the region; the kernel steps
        // along it (`ff_warp_linear_row`: OpenCV's 1/32-pixel grid and integer weights). The
        // kernels write every byte, zeros outside the image included: no fill first.
        return [UInt8](unsafeUninitializedCapacity: W * H * C) { O, count in
            count = W * H * C
            if dxY == 0 && dyX == 0 {
                // Axis-aligned (no rotation: the usual letterbox): each column's taps and each
                // row's computed once.
                var scratch = [Int32](repeating: 0, count: 7 * W)
                ff_warp_linear_axis(base, stride, sw, sh, C, topLeftX, dxX, topLeftY, dyY, W, H, replicate ? 1 : 0, O.baseAddress!, &scratch)
                return
            }
            for y in 0..<H {
                let rowX = topLeftX + Double(y) * dyX, rowY = topLeftY + Double(y) * dyY
                ff_warp_linear_row(base, stride, sw, sh, C, rowX, rowY, dxX, dxY, W, replicate ? 1 : 0, O.baseAddress! + y * W * C)
            }
        }
    }

    /// `UInt8(max(0, min(255, v.rounded())))` (half away from zero) without a library call:
    /// the integer part of the clamped value, plus one from a fraction of ½ or more.
    @inline(__always)
    static func byte(_ v: Float) -> UInt8 {
        let c = v > 255 ? 255 : (v > 0 ? v : 0), i = Int(c)  // checked: 0…255 (NaN → 0)
        return UInt8(truncatingIfNeeded: c - Float(i) >= 0.5 ? i &+ 1 : i)
    }

    /// FrameFlow's resize-into-a-box path (`content_size`, AREA): the image, or its region
    /// `roi` (unrotated), resized, centred in the tensor, bars black.
    ///
    /// The whole image goes through `Resize.resize`. A region is shrunk by `areaSample` with
    /// AREA when it is at least the content's size both ways, and sampled as `warp` does
    /// otherwise (bilinear, OpenCV's INTER_AREA when enlarging); outside the image reads as
    /// `border_mode` says.
    static func resizeIntoBox(
        _ src: ImageFrame, roi: PixelRoi? = nil, channels C: Int, width W: Int, height H: Int, options o: Options, pool: ImagePool
    ) throws -> ([UInt8], ProjectionMatrix, [Double]) {
        let boxW = o.contentSize.count == 2 ? o.contentSize[0] : W, boxH = o.contentSize.count == 2 ? o.contentSize[1] : H
        let region =
            roi ?? PixelRoi(centerX: Double(src.width) / 2, centerY: Double(src.height) / 2, width: Double(src.width), height: Double(src.height))
        var cw = boxW, ch = boxH
        if o.keepAspectRatio {
            let s = min(Double(boxW) / region.width, Double(boxH) / region.height)
            cw = max(1, min(boxW, Int(saturating: (region.width * s).rounded())))
            ch = max(1, min(boxH, Int(saturating: (region.height * s).rounded())))
        }
        let left = (W - cw) / 2, top = (H - ch) / 2
        let content: [UInt8]
        if roi == nil {
            let resized = try Resize.resize(src, width: cw, height: ch, interpolation: o.interpolation, pool: pool)
            content = (0..<ch).flatMap { Array(resized.row($0)) }
        } else if o.interpolation == .area && region.width >= Double(cw) && region.height >= Double(ch) {
            content = areaSample(src, channels: C, roi: region, width: cw, height: ch, replicate: o.borderMode != .zero)
        } else {
            content = warp(src, channels: C, roi: region, width: cw, height: ch, replicate: o.borderMode != .zero)
        }
        var out = [UInt8](repeating: 0, count: W * H * C)
        for y in 0..<ch {
            for i in 0..<(cw * C) { out[((top + y) * W + left) * C + i] = content[y * cw * C + i] }
        }
        // Tensor (u, v) → image: u·W − left content pixels into the region, which spans
        // region.width image pixels over cw content pixels, from its left edge.
        let x0 = region.centerX - region.width / 2, y0 = region.centerY - region.height / 2
        let sx = region.width / Double(cw), sy = region.height / Double(ch)
        let iw = Double(src.width), ih = Double(src.height)
        let m = ProjectionMatrix([
            Float(Double(W) * sx / iw), 0, 0, Float((x0 - Double(left) * sx) / iw),
            0, Float(Double(H) * sy / ih), 0, Float((y0 - Double(top) * sy) / ih),
            0, 0, 1, 0, 0, 0, 0, 1,
        ])!
        let padding = [
            Double(left) / Double(W), Double(top) / Double(H), Double(W - cw - left) / Double(W), Double(H - ch - top) / Double(H),
        ]
        return (out, m, padding)
    }

    /// The `width` × `height` × `channels` bytes of the unrotated `roi` of `src` (rgb8 or
    /// gray8) by area averaging (OpenCV's INTER_AREA when shrinking): each output pixel is the
    /// mean of the image over the part of the region it covers, each image pixel weighted by
    /// the area it shares with it; pixels outside the image are the nearest edge pixel
    /// (`replicate`) or 0. The mean is rounded half away from zero.
    public static func areaSample(_ src: ImageFrame, channels C: Int, roi: PixelRoi, width W: Int, height H: Int, replicate: Bool) -> [UInt8] {
        // Per output column (row): the image columns (rows) it covers and their weights, the
        // overlap over the cell's size, so a cell's weights add up to 1 (less what a zero
        // border leaves out).
        // Pixels more than `margin` outside the image are one tap per side (the edge pixel or
        // nothing), so that a huge region costs no more than the image.
        let margin = 1024
        func taps(_ start: Double, _ size: Double, _ n: Int, _ limit: Int) -> [[(index: Int, weight: Float)]] {
            let step = size / Double(n)
            let first = Double(-margin), end = Double(limit + margin)
            return (0..<n).map { u in
                let lo = start + Double(u) * step, hi = lo + step
                var t: [(index: Int, weight: Float)] = []
                if replicate && lo < first && min(hi, first) > lo { t.append((0, Float((min(hi, first) - lo) / step))) }
                var i = Int(saturating: max(lo, first).rounded(.down))
                while Double(i) < min(hi, end) {
                    let overlap = min(hi, Double(i + 1)) - max(lo, Double(i))
                    if overlap > 0 {
                        if i >= 0 && i < limit {
                            t.append((i, Float(overlap / step)))
                        } else if replicate {
                            t.append((min(max(i, 0), limit - 1), Float(overlap / step)))
                        }
                    }
                    i += 1
                }
                if replicate && hi > end && hi > max(lo, end) { t.append((limit - 1, Float((hi - max(lo, end)) / step))) }
                return t
            }
        }
        let columns = taps(roi.centerX - roi.width / 2, roi.width, W, src.width)
        let rows = taps(roi.centerY - roi.height / 2, roi.height, H, src.height)
        var out = [UInt8](repeating: 0, count: W * H * C)
        var line = [Float](repeating: 0, count: W * C)
        // Each image row the output rows need, filtered horizontally once.
        var filtered: [Int: [Float]] = [:]
        for y in 0..<H {
            for i in line.indices { line[i] = 0 }
            for (j, wy) in rows[y] {
                if filtered[j] == nil {
                    let r = src.row(j)
                    var f = [Float](repeating: 0, count: W * C)
                    for x in 0..<W {
                        for (i, wx) in columns[x] {
                            for c in 0..<C { f[x * C + c] += wx * Float(r[i * C + c]) }
                        }
                    }
                    filtered[j] = f
                }
                let f = filtered[j]!
                for i in 0..<(W * C) { line[i] += wy * f[i] }
            }
            for i in 0..<(W * C) { out[y * W * C + i] = byte(line[i]) }
        }
        return out
    }

    /// The tensor of the sampled bytes: the range (or mean/std), the channel order and layout.
    static func tensor(_ pixels: [UInt8], channels C: Int, width W: Int, height H: Int, options o: Options) throws -> Tensor {
        let nchw = o.layout == "nchw"
        let shape = nchw ? [1, C, H, W] : [1, H, W, C]
        let order = o.color == "bgr" ? [2, 1, 0] : Array(0..<C)
        // Element (p, c), p = y·W + x, lies at p·pixelStride + c·planeStride.
        let (pixelStride, planeStride) = nchw ? (1, W * H) : (C, 1)
        func layout<T>(_ f: (UInt8, Int) -> T, zero: T) -> [T] {
            var v = [T](repeating: zero, count: W * H * C)
            for p in 0..<(W * H) {
                for c in 0..<C { v[p * pixelStride + c * planeStride] = f(pixels[p * C + order[c]], c) }
            }
            return v
        }
        if let r = o.outputTensorIntRange ?? o.outputTensorUintRange {
            // OpenCV's convertTo: scaled, rounded half to even, saturated to the element type.
            let type: ElementType = o.outputTensorIntRange != nil ? .int8 : .uint8
            let (lo, hi): (Double, Double) = type == .int8 ? (-128, 127) : (0, 255)
            let scale = Double(r.max - r.min) / 255, offset = Double(r.min)
            return Tensor(
                shape: shape,
                ints: layout({ b, _ in Int64(saturating: min(hi, max(lo, (Double(b) * scale + offset).rounded(.toNearestOrEven)))) }, zero: 0),
                type: type)
        }
        var scale = [Float](repeating: 0, count: C), bias = [Float](repeating: 0, count: C)
        for c in 0..<C {
            if !o.mean.isEmpty {
                let m = o.mean.count == 1 ? o.mean[0] : o.mean[c], s = o.std.count == 1 ? o.std[0] : o.std[c]
                scale[c] = Float(1 / (255 * s))
                bias[c] = Float(-m / s)
            } else {
                let r = o.outputTensorFloatRange ?? .init(min: 0, max: 1)
                scale[c] = Float((r.max - r.min) / 255)
                bias[c] = Float(r.min)
            }
        }
        if !nchw && order == Array(0..<C) {
            // Channels already in place (NHWC, RGB or gray): one pass.
            let values = [Float](unsafeUninitializedCapacity: W * H * C) { v, n in
                pixels.withUnsafeBufferPointer { p in ff_bytes_to_floats(p.baseAddress!, W * H * C, C, scale, bias, v.baseAddress!) }
                n = W * H * C
            }
            return Tensor(shape: shape, floats: values)
        }
        return Tensor(shape: shape, floats: layout({ b, c in Float(b) * scale[c] + bias[c] }, zero: 0))
    }
}

extension ImageToTensorCalculator.Options {
    /// Checks the values (called by the graph before `init` and `update(options:)`).
    public func validate() throws {
        guard outputTensorWidth >= 0, outputTensorHeight >= 0, outputTensorWidth <= 8192, outputTensorHeight <= 8192 else {
            throw GraphError(
                .invalidOption,
                "output_tensor_width and output_tensor_height must be in 0...8192, not \(outputTensorWidth)×\(outputTensorHeight)")
        }
        let ranges = [outputTensorFloatRange != nil, outputTensorIntRange != nil, outputTensorUintRange != nil].filter { $0 }.count
        guard ranges + (mean.isEmpty ? 0 : 1) == 1 else {
            throw GraphError(
                .invalidOption,
                "give exactly one of output_tensor_float_range, output_tensor_int_range, output_tensor_uint_range (or mean/std)")
        }
        if let r = outputTensorFloatRange {
            try OptionCheck.range(r.min, -1e6...1e6, "output_tensor_float_range.min")
            try OptionCheck.range(r.max, -1e6...1e6, "output_tensor_float_range.max")
            guard r.max > r.min else {
                throw GraphError(.invalidOption, "output_tensor_float_range: max (\(r.max)) must exceed min (\(r.min))")
            }
        }
        try OptionCheck.range(mean, -1e6...1e6, "mean")
        try OptionCheck.range(std, -1e6...1e6, "std")
        if let s = std.first(where: { abs($0) < 1e-6 }) {
            throw GraphError(.invalidOption, "std values must be at least 1e-6 in magnitude, not \(s)")
        }
        if let r = outputTensorIntRange, !(r.max > r.min && r.min >= -128 && r.max <= 127) {
            throw GraphError(.invalidOption, "output_tensor_int_range must be within [-128, 127] with max > min, not [\(r.min), \(r.max)]")
        }
        if let r = outputTensorUintRange, !(r.max > r.min && r.min >= 0 && r.max <= 255) {
            throw GraphError(.invalidOption, "output_tensor_uint_range must be within [0, 255] with max > min, not [\(r.min), \(r.max)]")
        }
        guard ["rgb", "bgr", "gray"].contains(color) else {
            throw GraphError(.invalidOption, "color must be rgb, bgr or gray, not '\(color)'")
        }
        guard ["nhwc", "nchw"].contains(layout) else { throw GraphError(.invalidOption, "layout must be nhwc or nchw, not '\(layout)'") }
        let channels = color == "gray" ? 1 : 3
        let limits = ResourceLimits()
        guard limits.allowsTensor([outputTensorWidth, outputTensorHeight, channels]) else {
            throw GraphError(
                .invalidOption,
                "output_tensor_width × output_tensor_height × channels must be at most \(limits.maxTensorElements), not \(outputTensorWidth)×\(outputTensorHeight)×\(channels)"
            )
        }
        guard mean.count == std.count, mean.isEmpty || mean.count == 1 || mean.count == channels, std.allSatisfy({ $0 != 0 }) else {
            throw GraphError(.invalidOption, "mean and std need 1 or \(channels) values each, std non-zero")
        }
        guard
            contentSize.isEmpty
                || (contentSize.count == 2 && contentSize[0] > 0 && contentSize[1] > 0 && outputTensorWidth > 0 && outputTensorHeight > 0
                    && contentSize[0] <= outputTensorWidth && contentSize[1] <= outputTensorHeight)
        else { throw GraphError(.invalidOption, "content_size is [width, height] within output_tensor_width × output_tensor_height") }
        guard outputTensorWidth > 0 || !keepAspectRatio || outputTensorHeight > 0 else { return }
        guard (outputTensorWidth > 0) == (outputTensorHeight > 0) else {
            throw GraphError(.invalidOption, "set both output_tensor_width and output_tensor_height, or neither")
        }
    }
}
