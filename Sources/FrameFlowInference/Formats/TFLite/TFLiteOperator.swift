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
    case gather = 36
    case transpose = 39
    case mean = 40
    case sub = 41
    case div = 42
    case stridedSlice = 45
    case prelu = 54
    case maximum = 55
    case minimum = 57
    case neg = 59
    case sum = 74
    case sqrt = 75
    case rsqrt = 76
    case reduceMax = 82
    case unpack = 88  // the one builtin here with several outputs
    case reduceMin = 89
    case squaredDifference = 99
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
        case .gather: "GATHER"
        case .transpose: "TRANSPOSE"
        case .mean: "MEAN"
        case .sub: "SUB"
        case .div: "DIV"
        case .stridedSlice: "STRIDED_SLICE"
        case .prelu: "PRELU"
        case .maximum: "MAXIMUM"
        case .minimum: "MINIMUM"
        case .neg: "NEG"
        case .sum: "SUM"
        case .sqrt: "SQRT"
        case .rsqrt: "RSQRT"
        case .reduceMax: "REDUCE_MAX"
        case .unpack: "UNPACK"
        case .reduceMin: "REDUCE_MIN"
        case .squaredDifference: "SQUARED_DIFFERENCE"
        case .hardSwish: "HARD_SWISH"
        case .densify: "DENSIFY"
        }
    }
}
