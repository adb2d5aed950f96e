/// The TFLite custom operators FrameFlow runs (BuiltinOperator `CUSTOM`, told apart by the
/// operator code's `custom_code`): MediaPipe's, which face_landmark_with_attention.tflite uses
/// to crop and project the eye and lip regions, and the selfie segmentation models use to
/// upsample their output. Their options are read and checked at load: a FlexBuffer map in the
/// operator's `custom_options`, except `Convolution2DTransposeBias`, whose options are the raw
/// bytes of TFLite's `TfLiteTransposeConvParams`. Only the version MediaPipe's models use is
/// implemented (2; 1 for `Convolution2DTransposeBias`); any other code or version is refused at
/// load with an error naming it. The kernels are in `TFLite+MediaPipeCustomOps.swift`.
enum TFLiteCustomOperator: Sendable, Equatable {
    /// `Landmarks2TransformMatrix` (version 2): from a `[1, N, 3]` landmark tensor, the 4 × 4
    /// matrix that maps an `outputHeight × outputWidth` grid onto the rotated box around the
    /// `subset` landmarks, scaled by `scaleX`/`scaleY`.
    case landmarksToTransformMatrix(LandmarksToTransformMatrixOptions)
    /// `TransformTensorBilinear` (version 2): samples a `[1, H, W, C]` tensor bilinearly at a
    /// 4 × 4 matrix's image of an `height × width` grid.
    case transformTensorBilinear(height: Int, width: Int)
    /// `TransformLandmarks` (version 2): maps `[1, N, 2 or 3]` landmarks' x and y through a 4 × 4
    /// matrix (z is copied). It has no options.
    case transformLandmarks
    /// `Convolution2DTransposeBias` (version 1): a transposed convolution of a `[N, H, W, Cin]`
    /// tensor by `[Cout, KH, KW, Cin]` weights, plus a `[Cout]` bias (MediaPipe's
    /// mediapipe/util/tflite/operations/transpose_conv_bias.cc).
    case transposeConvBias(TransposeConvBiasOptions)

    /// Options of `Convolution2DTransposeBias`: `TfLiteTransposeConvParams` as three
    /// little-endian int32 (padding: 1 SAME, else none; stride width; stride height).
    struct TransposeConvBiasOptions: Sendable, Equatable {
        var same: Bool
        var strideWidth: Int, strideHeight: Int
    }

    /// Options of `Landmarks2TransformMatrix` version 2 (the FlexBuffer keys in parentheses).
    struct LandmarksToTransformMatrixOptions: Sendable, Equatable {
        /// Landmark pairs whose rotated bounding box is the crop (`subset_idxs`, flattened; an
        /// odd last index pairs with itself).
        var subset: [Int]
        /// The two landmarks whose line sets the rotation (`left_rotation_idx`, `right_rotation_idx`).
        var left: Int, right: Int
        /// The rotation the line between them should have (`target_rotation_radians`, default 0).
        var targetRotation: Float
        /// The grid the matrix maps from (`output_height`, `output_width`).
        var outputHeight: Int, outputWidth: Int
        /// How much larger than the landmarks' box the crop is (`scale_x`, `scale_y`).
        var scaleX: Float, scaleY: Float
    }

    /// The custom code, as the model names the operator.
    var name: String {
        switch self {
        case .landmarksToTransformMatrix: "Landmarks2TransformMatrix"
        case .transformTensorBilinear: "TransformTensorBilinear"
        case .transformLandmarks: "TransformLandmarks"
        case .transposeConvBias: "Convolution2DTransposeBias"
        }
    }

    /// How many input tensors the operator reads (it writes one output).
    var inputCount: Int {
        switch self {
        case .landmarksToTransformMatrix: 1
        case .transformTensorBilinear, .transformLandmarks: 2
        case .transposeConvBias: 3
        }
    }

    /// The operator `code` (version `version`) with `options` (its `custom_options` bytes);
    /// `context` starts each error ("model.tflite: operator 192").
    init(code: String, version: Int, options: some Collection<UInt8>, context: String) throws {
        let known = ["Landmarks2TransformMatrix", "TransformTensorBilinear", "TransformLandmarks", "Convolution2DTransposeBias"]
        guard known.contains(code) else {
            throw ModelError("\(context) uses the custom op '\(code)', which FrameFlow does not implement (it runs \(known.joined(separator: ", ")))")
        }
        let implemented = code == "Convolution2DTransposeBias" ? 1 : 2
        guard version == implemented else {
            throw ModelError("\(context) (\(code)): version \(version) is not implemented (only version \(implemented))")
        }
        let context = "\(context) (\(code))"
        if code == "Convolution2DTransposeBias" {
            self = .transposeConvBias(try Self.transposeConvParams(options, context: context))
            return
        }
        func map() throws -> FlexBuffer.Map { try FlexBuffer(bytes: options, context: context).root().map() }
        switch code {
        case "Landmarks2TransformMatrix":
            let m = try map()
            var o = LandmarksToTransformMatrixOptions(
                subset: try m.ints("subset_idxs"), left: try m.int("left_rotation_idx"), right: try m.int("right_rotation_idx"),
                targetRotation: try m.float("target_rotation_radians", default: 0),
                outputHeight: try m.int("output_height"), outputWidth: try m.int("output_width"),
                scaleX: try m.float("scale_x"), scaleY: try m.float("scale_y"))
            if o.subset.count % 2 == 1, let last = o.subset.last { o.subset.append(last) }
            func check(_ ok: Bool, _ what: String) throws { if !ok { throw ModelError("\(context): \(what)") } }
            try check(!o.subset.isEmpty, "subset_idxs is empty")
            try check(o.subset.allSatisfy { $0 >= 0 }, "subset_idxs holds a negative index: \(o.subset.filter { $0 < 0 })")
            try check(o.left >= 0, "left_rotation_idx \(o.left) is negative")
            try check(o.right >= 0, "right_rotation_idx \(o.right) is negative")
            try check(o.outputHeight > 0, "output_height \(o.outputHeight) is not positive")
            try check(o.outputWidth > 0, "output_width \(o.outputWidth) is not positive")
            try check(o.scaleX > 0, "scale_x \(o.scaleX) is not positive")
            try check(o.scaleY > 0, "scale_y \(o.scaleY) is not positive")
            self = .landmarksToTransformMatrix(o)
        case "TransformTensorBilinear":
            let m = try map()
            let h = try m.int("output_height"), w = try m.int("output_width")
            guard h > 0, w > 0 else { throw ModelError("\(context): output_height \(h) × output_width \(w) is not positive") }
            self = .transformTensorBilinear(height: h, width: w)
        default:
            self = .transformLandmarks  // version 2 reads no options
        }
    }

    /// `TfLiteTransposeConvParams` from `custom_options`: MediaPipe's kernel reads the bytes as
    /// that C struct, so they must hold at least its three int32.
    private static func transposeConvParams(_ options: some Collection<UInt8>, context: String) throws -> TransposeConvBiasOptions {
        let b = Array(options)
        guard b.count >= 12 else {
            throw ModelError(
                "\(context): custom_options has \(b.count) bytes; TfLiteTransposeConvParams (padding, stride_width, stride_height) needs 12")
        }
        func int32(_ i: Int) -> Int { Int(Int32(bitPattern: UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24)) }
        let padding = int32(0), sw = int32(4), sh = int32(8)
        // MediaPipe pads only for SAME; kTfLitePaddingUnknown (0) and VALID (2) pad nothing.
        guard (0...2).contains(padding) else { throw ModelError("\(context): padding \(padding) is not 0 (unknown), 1 (SAME) or 2 (VALID)") }
        guard (1..<(1 << 16)).contains(sw), (1..<(1 << 16)).contains(sh) else {
            throw ModelError("\(context): strides (\(sh), \(sw)) out of range")
        }
        return TransposeConvBiasOptions(same: padding == 1, strideWidth: sw, strideHeight: sh)
    }
}
