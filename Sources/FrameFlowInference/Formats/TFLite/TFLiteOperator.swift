/// The TFLite builtin operators FrameFlow runs, with their codes in LiteRT's schema
/// (`BuiltinOperator` in `schema.fbs`). A model using any other code is refused at load.
enum TFLiteOperator: Int32, CaseIterable, Sendable {
    case add = 0
    case averagePool2D = 1
    case concatenation = 2
    case conv2D = 3
    case depthwiseConv2D = 4
    case depthToSpace = 5
    case dequantize = 6
    case fullyConnected = 9
    case logistic = 14
    case maxPool2D = 17
    case mul = 18
    case relu = 19
    case relu6 = 21
    case reshape = 22
    case resizeBilinear = 23
    case softmax = 25
    case custom = 32  // a TFLiteCustomOperator, by its custom_code
    case pad = 34
    case mean = 40
    case stridedSlice = 45
    case prelu = 54
    case hardSwish = 117
    case densify = 124  // of a sparse constant: folded at load

    /// The schema's name ("CONV_2D"), as errors, `Model.opTypes` and profiles show it.
    var name: String {
        switch self {
        case .add: "ADD"
        case .averagePool2D: "AVERAGE_POOL_2D"
        case .concatenation: "CONCATENATION"
        case .conv2D: "CONV_2D"
        case .depthwiseConv2D: "DEPTHWISE_CONV_2D"
        case .depthToSpace: "DEPTH_TO_SPACE"
        case .dequantize: "DEQUANTIZE"
        case .fullyConnected: "FULLY_CONNECTED"
        case .logistic: "LOGISTIC"
        case .maxPool2D: "MAX_POOL_2D"
        case .mul: "MUL"
        case .relu: "RELU"
        case .relu6: "RELU6"
        case .reshape: "RESHAPE"
        case .resizeBilinear: "RESIZE_BILINEAR"
        case .softmax: "SOFTMAX"
        case .custom: "CUSTOM"
        case .pad: "PAD"
        case .mean: "MEAN"
        case .stridedSlice: "STRIDED_SLICE"
        case .prelu: "PRELU"
        case .hardSwish: "HARD_SWISH"
        case .densify: "DENSIFY"
        }
    }
}
