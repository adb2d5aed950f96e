import Foundation
import FrameFlow
import FrameFlowCalculators

/// Where a model's input tensor came from in the image: the crop, then the scale and the
/// letterbox padding. Maps points from tensor coordinates (normalised to [0, 1] over the
/// tensor) back to input-image pixels.
public struct TensorImageTransform: Sendable, Equatable {
    /// The cropped region of the image, in pixels.
    public var crop: Rect
    /// The part of the tensor the image occupies, normalised: letterbox bars lie outside.
    public var content: Rect
    /// The whole image's size in pixels.
    public var imageWidth: Int
    public var imageHeight: Int

    /// `imageWidth` and `imageHeight` default to the crop's far corner (a crop from the origin).
    public init(crop: Rect, content: Rect = Rect(x: 0, y: 0, width: 1, height: 1), imageWidth: Int? = nil, imageHeight: Int? = nil) {
        self.crop = crop
        self.content = content
        self.imageWidth = imageWidth ?? Int(crop.maxX.rounded())
        self.imageHeight = imageHeight ?? Int(crop.maxY.rounded())
    }

    /// A point given in normalised tensor coordinates, in image pixels.
    public func imagePoint(x: Double, y: Double) -> Point {
        Point(
            x: crop.x + (x - content.x) / content.width * crop.width,
            y: crop.y + (y - content.y) / content.height * crop.height)
    }

    /// A box given in normalised tensor coordinates, in image pixels.
    public func imageRect(_ r: Rect) -> Rect {
        let a = imagePoint(x: r.x, y: r.y), b = imagePoint(x: r.maxX, y: r.maxY)
        return Rect(x: a.x, y: a.y, width: b.x - a.x, height: b.y - a.y)
    }

    /// A point given in normalised tensor coordinates, in fractions of the whole image.
    public func relativePoint(x: Double, y: Double) -> Point {
        let p = imagePoint(x: x, y: y)
        return Point(x: p.x / Double(imageWidth), y: p.y / Double(imageHeight))
    }

    /// A box given in normalised tensor coordinates, in fractions of the whole image.
    public func relativeRect(_ r: Rect) -> Rect {
        let a = relativePoint(x: r.x, y: r.y), b = relativePoint(x: r.maxX, y: r.maxY)
        return Rect(x: a.x, y: a.y, width: b.x - a.x, height: b.y - a.y)
    }
}

/// Turns an image into a model's input tensor: optional crop, resize (stretch, or keep the
/// aspect ratio with letterbox bars), channel order, value range and layout.
///
/// Inputs:
///   - `IMAGE`: `ImageFrame` (any 8-bit format; YUV is converted to RGB first).
/// Outputs:
///   - `TENSORS`: `[Tensor]` with one tensor, shape `[1, C, H, W]` (nchw) or `[1, H, W, C]`.
///   - `TRANSFORM` (optional): `TensorImageTransform`, to map detections back to the image.
/// Options: `frameflow.ImageToTensorCalculatorOptions` { output_width, output_height,
/// keep_aspect_ratio (false), crop ([x, y, width, height] pixels; empty = whole image),
/// color ("rgb" | "bgr" | "gray"), layout ("nhwc" | "nchw"), range_min (0), range_max (1),
/// mean / std (per channel, applied to [0, 1] values instead of the range when given),
/// content_size ([w, h], optional: draw the image at this size, centred, in a larger canvas
/// — 20×20 digits centred in 28×28), interpolation (BILINEAR | AREA: area averaging when
/// shrinking, as OpenCV's INTER_AREA; for large or noisy photos shrunk to a small tensor) }.
///
/// Letterbox bars and the canvas border are black (pixel value 0 before normalising).
///
/// Example usage:
/// ```
/// node {
///   calculator: "ImageToTensorCalculator"
///   input_stream: "IMAGE:input_video"
///   output_stream: "TENSORS:input_tensors"
///   output_stream: "TRANSFORM:transform"
///   options { [frameflow.ImageToTensorCalculatorOptions.ext] {
///     output_width: 128 output_height: 128 keep_aspect_ratio: true range_min: -1 range_max: 1 } }
/// }
/// ```
public final class ImageToTensorCalculator: OptionsStoringCalculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.ImageToTensorCalculatorOptions"
        public var outputWidth = 0
        public var outputHeight = 0
        public var keepAspectRatio = false
        public var crop: [Double] = []
        public var color = "rgb"
        public var layout = "nhwc"
        public var rangeMin = 0.0
        public var rangeMax = 1.0
        public var mean: [Double] = []
        public var std: [Double] = []
        public var contentSize: [Int] = []
        public var interpolation = Interpolation.bilinear
        public init() {}
    }

    public static let contract = CalculatorContract(
        inputs: [PortSpec("IMAGE", ImageFrame.self)],
        outputs: [PortSpec("TENSORS", [Tensor].self), PortSpec("TRANSFORM", TensorImageTransform.self, optional: true)],
        concurrentProcess: true)  // process reads only its options

    public var options: Options

    public init(options: Options) throws {
        self.options = options
    }

    public func process(_ cc: CalculatorContext) throws {
        let image = try cc.input("IMAGE", as: ImageFrame.self)
        let (tensor, transform) = try Self.convert(image, options: options, pool: cc.pool)
        try cc.emit([tensor], tag: "TENSORS")
        if cc.hasOutputPort("TRANSFORM") { try cc.emit(transform, tag: "TRANSFORM") }
    }

    /// The tensor for `image` and where it came from.
    public static func convert(_ image: ImageFrame, options o: Options, pool: ImagePool = .shared) throws -> (Tensor, TensorImageTransform) {
        let gray = o.color == "gray"
        var src = try ColorConvertCalculator.convert(image, to: gray ? .gray8 : .rgb8, pool: pool)
        // Crop (clipped to the image).
        var crop = Rect(x: 0, y: 0, width: Double(image.width), height: Double(image.height))
        if o.crop.count == 4 {
            let x0 = max(0, Int(o.crop[0].rounded())), y0 = max(0, Int(o.crop[1].rounded()))
            let x1 = min(image.width, Int((o.crop[0] + o.crop[2]).rounded())), y1 = min(image.height, Int((o.crop[1] + o.crop[3]).rounded()))
            guard x1 > x0, y1 > y0 else { throw GraphError(.invalidOption, "crop \(o.crop) lies outside the \(image.width)×\(image.height) image") }
            src = try ImageCroppingCalculator.crop(src, x: x0, y: y0, width: x1 - x0, height: y1 - y0, pool: pool)
            crop = Rect(x: Double(x0), y: Double(y0), width: Double(x1 - x0), height: Double(y1 - y0))
        }
        // Where the image goes in the W×H canvas.
        let W = o.outputWidth, H = o.outputHeight
        let boxW = o.contentSize.count == 2 ? o.contentSize[0] : W, boxH = o.contentSize.count == 2 ? o.contentSize[1] : H
        var cw = boxW, ch = boxH
        if o.keepAspectRatio {
            let s = min(Double(boxW) / Double(src.width), Double(boxH) / Double(src.height))
            cw = max(1, min(boxW, Int((Double(src.width) * s).rounded())))
            ch = max(1, min(boxH, Int((Double(src.height) * s).rounded())))
        }
        let left = (W - cw) / 2, top = (H - ch) / 2
        let resized = try Resize.resize(src, width: cw, height: ch, interpolation: o.interpolation, pool: pool)
        // Normalise: v ∈ [0, 255] → [range_min, range_max], or (v/255 − mean)/std.
        let C = gray ? 1 : 3
        var scale = [Float](repeating: Float((o.rangeMax - o.rangeMin) / 255), count: C)
        var bias = [Float](repeating: Float(o.rangeMin), count: C)
        if !o.mean.isEmpty {
            for c in 0..<C {
                let m = o.mean.count == 1 ? o.mean[0] : o.mean[c], s = o.std.count == 1 ? o.std[0] : o.std[c]
                scale[c] = Float(1 / (255 * s))
                bias[c] = Float(-m / s)
            }
        }
        let order = o.color == "bgr" ? [2, 1, 0] : Array(0..<C)
        let nchw = o.layout == "nchw"
        // Element (p, c) of the canvas, p = y·W + x, lies at p·pixelStride + c·planeStride.
        let (pixelStride, planeStride) = nchw ? (1, W * H) : (C, 1)
        // Uninitialized: every element is written below.
        var values = [Float](unsafeUninitializedCapacity: W * H * C) { _, n in n = W * H * C }
        values.withUnsafeMutableBufferPointer { V in
            let v = V.baseAddress!
            // The letterbox bands hold the value of a 0 byte.
            for c in 0..<C {
                let b = bias[c]
                for p in 0..<(W * H) { v[p &* pixelStride &+ c &* planeStride] = b }
            }
            for c in 0..<C {
                let sc = scale[c], b = bias[c], from = order[c]
                for y in 0..<ch {
                    let row = resized.row(y).baseAddress! + from
                    let out = v + ((top + y) * W + left) * pixelStride + c * planeStride
                    for x in 0..<cw { out[x &* pixelStride] = Float(row[x &* C]) * sc + b }
                }
            }
        }
        let shape = nchw ? [1, C, H, W] : [1, H, W, C]
        let content = Rect(x: Double(left) / Double(W), y: Double(top) / Double(H), width: Double(cw) / Double(W), height: Double(ch) / Double(H))
        return (Tensor(shape: shape, floats: values), TensorImageTransform(crop: crop, content: content, imageWidth: image.width, imageHeight: image.height))
    }
}

extension ImageToTensorCalculator.Options {
    /// Checks the values (called by the graph before `init` and `update(options:)`).
    public func validate() throws {
        guard outputWidth > 0, outputHeight > 0, outputWidth <= 8192, outputHeight <= 8192 else {
            throw GraphError(.invalidOption, "output_width and output_height must be in 1...8192, not \(outputWidth)×\(outputHeight)")
        }
        guard ["rgb", "bgr", "gray"].contains(color) else { throw GraphError(.invalidOption, "color must be rgb, bgr or gray, not '\(color)'") }
        guard ["nhwc", "nchw"].contains(layout) else { throw GraphError(.invalidOption, "layout must be nhwc or nchw, not '\(layout)'") }
        guard crop.isEmpty || (crop.count == 4 && crop[2] > 0 && crop[3] > 0) else {
            throw GraphError(.invalidOption, "crop is [x, y, width, height] with a positive size")
        }
        let channels = color == "gray" ? 1 : 3
        guard mean.count == std.count, mean.isEmpty || mean.count == 1 || mean.count == channels, std.allSatisfy({ $0 != 0 }) else {
            throw GraphError(.invalidOption, "mean and std need 1 or \(channels) values each, std non-zero")
        }
        guard rangeMax != rangeMin else { throw GraphError(.invalidOption, "range_min and range_max must differ") }
        guard contentSize.isEmpty || (contentSize.count == 2 && contentSize[0] > 0 && contentSize[1] > 0
            && contentSize[0] <= outputWidth && contentSize[1] <= outputHeight)
        else { throw GraphError(.invalidOption, "content_size is [width, height] within the output size") }
    }
}
