/// MediaPipe's Selfie Segmentation subgraphs under MediaPipe's names, ports and side packets,
/// so that MediaPipe's compiled `selfie_segmentation_cpu.binarypb` (and graphs written for
/// MediaPipe) find the subgraphs they name.
///
/// `SelfieSegmentationCpu` stretches each frame to the chosen model's input (no letterbox),
/// runs the model and turns its one-channel output (already a probability: the model ends in
/// a sigmoid) into a float mask of the frame's size. `MODEL_SELECTION` picks the model: 0
/// (the default) the general one, 256×256; 1 the landscape one, 144×256 (height × width),
/// faster on 16:9 video. Nothing is kept between frames.
enum SelfieSegmentationSubgraphs {
    static let all: [(name: String, text: String)] = [
        ("SelfieSegmentationCpu", cpu),
        ("SelfieSegmentationModelLoader", modelLoader),
    ]

    /// The two models: (file, tensor width, tensor height), in `MODEL_SELECTION` order.
    static let models = [
        ("mediapipe/modules/selfie_segmentation/selfie_segmentation.tflite", 256, 256),
        ("mediapipe/modules/selfie_segmentation/selfie_segmentation_landscape.tflite", 256, 144),
    ]

    /// One frame in, its person mask out.
    static var cpu: String {
        let crops = models.map { _, width, height in
            """
                contained_node {
                  calculator: "ImageToTensorCalculator"
                  options { [mediapipe.ImageToTensorCalculatorOptions.ext] {
                    output_tensor_width: \(width)
                    output_tensor_height: \(height)
                    keep_aspect_ratio: false
                    output_tensor_float_range { min: 0.0 max: 1.0 }
                    border_mode: BORDER_ZERO
                  } }
                }
            """
        }.joined(separator: "\n")
        return """
            type: "SelfieSegmentationCpu"
            input_stream: "IMAGE:image"
            input_side_packet: "MODEL_SELECTION:model_selection"
            output_stream: "SEGMENTATION_MASK:segmentation_mask"

            # The whole frame stretched to the selected model's input, values in [0, 1].
            node {
              calculator: "SwitchContainer"
              input_side_packet: "SELECT:model_selection"
              input_stream: "IMAGE:image"
              output_stream: "TENSORS:input_tensors"
              options { [mediapipe.SwitchContainerOptions.ext] {
                select: 0
            \(crops)
              } }
            }
            node {
              calculator: "SelfieSegmentationModelLoader"
              input_side_packet: "MODEL_SELECTION:model_selection"
              output_side_packet: "MODEL:model"
            }
            node {
              calculator: "TfLiteCustomOpResolverCalculator"
              output_side_packet: "OP_RESOLVER:op_resolver"
            }
            node {
              calculator: "InferenceCalculator"
              input_stream: "TENSORS:input_tensors"
              input_side_packet: "MODEL:model"
              input_side_packet: "OP_RESOLVER:op_resolver"
              output_stream: "TENSORS:output_tensors"
              options { [mediapipe.InferenceCalculatorOptions.ext] { delegate { xnnpack {} } } }
            }

            # The model's probabilities, resized (bilinear) back to the frame's size.
            node {
              calculator: "ImagePropertiesCalculator"
              input_stream: "IMAGE_CPU:image"
              output_stream: "SIZE:input_size"
            }
            node {
              calculator: "TensorsToSegmentationCalculator"
              input_stream: "TENSORS:output_tensors"
              input_stream: "OUTPUT_SIZE:input_size"
              output_stream: "MASK:mask_image"
              options { [mediapipe.TensorsToSegmentationCalculatorOptions.ext] { activation: NONE } }
            }
            node {
              calculator: "FromImageCalculator"
              input_stream: "IMAGE:mask_image"
              output_stream: "IMAGE_CPU:segmentation_mask"
            }
            """
    }

    /// The model file `MODEL_SELECTION` names, read and parsed once.
    static var modelLoader: String {
        HandLandmarkSubgraphs.fileLoader(
            "SelfieSegmentationModelLoader", sidePacket: "MODEL_SELECTION:model_selection", choice: "SELECT:model_selection",
            defaultChoice: "select: 0", paths: models.map { path, _, _ in path })
    }
}
