/// MediaPipe's face detection subgraphs under MediaPipe's names, ports and options
/// (`mediapipe.FaceDetectionOptions`), so that MediaPipe's compiled top graphs
/// (`face_detection_short_range_cpu.binarypb`, …) find the subgraphs they name.
///
/// `FaceDetection` is the pipeline: image → letterboxed tensor (optionally cropped to `ROI`) →
/// the model → SSD decoding on the anchors → weighted non-maximum suppression → boxes and
/// keypoints projected back onto the image (relative coordinates). The others fix its options
/// for a model and name the variants MediaPipe's graphs use.
enum FaceDetectionSubgraphs {
    static let all: [(name: String, text: String)] = [
        ("FaceDetection", faceDetection),
        ("FaceDetectionShortRange", model("FaceDetectionShortRange", shortRange)),
        ("FaceDetectionFullRange", model("FaceDetectionFullRange", fullRange)),
        ("FaceDetectionShortRangeCpu", cpu("FaceDetectionShortRangeCpu", "FaceDetectionShortRange", roi: false)),
        ("FaceDetectionFullRangeCpu", cpu("FaceDetectionFullRangeCpu", "FaceDetectionFullRange", roi: false)),
        ("FaceDetectionShortRangeByRoiCpu", cpu("FaceDetectionShortRangeByRoiCpu", "FaceDetectionShortRange", roi: true)),
        ("FaceDetectionWithoutRoi", cpu("FaceDetectionWithoutRoi", "FaceDetection", roi: false, xnnpack: false)),
    ]

    /// The pipeline; every model-specific value comes from the graph options.
    static let faceDetection = """
        type: "FaceDetection"
        input_stream: "IMAGE:image"
        input_stream: "ROI:roi"
        output_stream: "DETECTIONS:detections"
        graph_options { [type.googleapis.com/mediapipe.FaceDetectionOptions] {} }

        node {
          calculator: "ToImageCalculator"
          input_stream: "IMAGE:image"
          output_stream: "IMAGE:image_any"
        }

        # The image (or the ROI of it) letterboxed into the model's input, values in [-1, 1];
        # MATRIX maps the tensor's coordinates back onto the image.
        node {
          calculator: "ImageToTensorCalculator"
          input_stream: "IMAGE:image_any"
          input_stream: "NORM_RECT:roi"
          output_stream: "TENSORS:input_tensors"
          output_stream: "MATRIX:tensor_to_image"
          options { [mediapipe.ImageToTensorCalculatorOptions.ext] {
            keep_aspect_ratio: true
            output_tensor_float_range { min: -1.0 max: 1.0 }
            border_mode: BORDER_ZERO
          } }
          option_value: "gpu_origin:options/gpu_origin"
          option_value: "output_tensor_width:options/tensor_width"
          option_value: "output_tensor_height:options/tensor_height"
        }

        node {
          calculator: "InferenceCalculator"
          input_stream: "TENSORS:input_tensors"
          output_stream: "TENSORS:output_tensors"
          options { [mediapipe.InferenceCalculatorOptions.ext] {} }
          option_value: "delegate:options/delegate"
          option_value: "model_path:options/model_path"
        }

        # One anchor per cell of each feature map the model predicts on.
        node {
          calculator: "SsdAnchorsCalculator"
          output_side_packet: "anchors"
          options { [mediapipe.SsdAnchorsCalculatorOptions.ext] {
            num_layers: 1
            min_scale: 0.1484375
            max_scale: 0.75
            anchor_offset_x: 0.5
            anchor_offset_y: 0.5
            aspect_ratios: 1.0
            fixed_anchor_size: true
          } }
          option_value: "input_size_width:tensor_width"
          option_value: "input_size_height:tensor_height"
          option_value: "num_layers:num_layers"
          option_value: "strides:strides"
          option_value: "interpolated_scale_aspect_ratio:interpolated_scale_aspect_ratio"
        }

        # 16 values per anchor: box centre and size, then six keypoints (eyes, nose tip,
        # mouth, ear tragions); one score per anchor.
        node {
          calculator: "TensorsToDetectionsCalculator"
          input_stream: "TENSORS:output_tensors"
          input_side_packet: "ANCHORS:anchors"
          output_stream: "DETECTIONS:candidates"
          options { [mediapipe.TensorsToDetectionsCalculatorOptions.ext] {
            num_classes: 1
            num_coords: 16
            box_coord_offset: 0
            keypoint_coord_offset: 4
            num_keypoints: 6
            num_values_per_keypoint: 2
            sigmoid_score: true
            score_clipping_thresh: 100.0
            reverse_output_order: true
          } }
          option_value: "num_boxes:num_boxes"
          option_value: "x_scale:x_scale"
          option_value: "y_scale:y_scale"
          option_value: "h_scale:h_scale"
          option_value: "w_scale:w_scale"
          option_value: "min_score_thresh:min_score_thresh"
        }

        # Overlapping candidates merge into their score-weighted mean.
        node {
          calculator: "NonMaxSuppressionCalculator"
          input_stream: "candidates"
          output_stream: "faces_on_tensor"
          options { [mediapipe.NonMaxSuppressionCalculatorOptions.ext] {
            min_suppression_threshold: 0.3
            overlap_type: INTERSECTION_OVER_UNION
            algorithm: WEIGHTED
          } }
        }

        node {
          calculator: "DetectionProjectionCalculator"
          input_stream: "DETECTIONS:faces_on_tensor"
          input_stream: "PROJECTION_MATRIX:tensor_to_image"
          output_stream: "DETECTIONS:detections"
        }
        """

    /// The short-range model (faces within about 2 m: selfies), 128×128, 896 anchors.
    static let shortRange = """
        model_path: "mediapipe/modules/face_detection/face_detection_short_range.tflite"
        tensor_width: 128 tensor_height: 128
        num_layers: 4 strides: 8 strides: 16 strides: 16 strides: 16
        interpolated_scale_aspect_ratio: 1.0
        num_boxes: 896
        x_scale: 128.0 y_scale: 128.0 h_scale: 128.0 w_scale: 128.0
        min_score_thresh: 0.5
        """

    /// The full-range model (faces within about 5 m), 192×192, 2304 anchors.
    static let fullRange = """
        model_path: "mediapipe/modules/face_detection/face_detection_full_range_sparse.tflite"
        tensor_width: 192 tensor_height: 192
        num_layers: 1 strides: 4
        interpolated_scale_aspect_ratio: 0.0
        num_boxes: 2304
        x_scale: 192.0 y_scale: 192.0 h_scale: 192.0 w_scale: 192.0
        min_score_thresh: 0.6
        """

    /// `FaceDetection` with a model's options, which the caller's options override.
    static func model(_ type: String, _ options: String) -> String {
        """
        type: "\(type)"
        input_stream: "IMAGE:image"
        input_stream: "ROI:roi"
        output_stream: "DETECTIONS:detections"
        graph_options { [type.googleapis.com/mediapipe.FaceDetectionOptions] {} }
        node {
          calculator: "FaceDetection"
          input_stream: "IMAGE:image"
          input_stream: "ROI:roi"
          output_stream: "DETECTIONS:detections"
          node_options { [type.googleapis.com/mediapipe.FaceDetectionOptions] {
            \(options)
          } }
          option_value: "OPTIONS:options"
        }
        """
    }

    /// A CPU entry point: `inner` on the whole image (or on `ROI`), with the XNNPACK delegate
    /// MediaPipe's CPU graphs name (FrameFlow runs its own CPU kernels either way).
    static func cpu(_ type: String, _ inner: String, roi: Bool, xnnpack: Bool = true) -> String {
        let roiIn = roi ? "input_stream: \"ROI:roi\"" : ""
        return """
            type: "\(type)"
            input_stream: "IMAGE:image"
            \(roiIn)
            output_stream: "DETECTIONS:detections"
            graph_options { [type.googleapis.com/mediapipe.FaceDetectionOptions] {} }
            node {
              calculator: "\(inner)"
              input_stream: "IMAGE:image"
              \(roiIn)
              output_stream: "DETECTIONS:detections"
              node_options { [type.googleapis.com/mediapipe.FaceDetectionOptions] {
                \(xnnpack ? "delegate { xnnpack {} }" : "")
              } }
              option_value: "OPTIONS:options"
            }
            """
    }
}
