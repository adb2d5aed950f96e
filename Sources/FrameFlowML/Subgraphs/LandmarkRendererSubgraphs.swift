/// Renderers for Face Mesh and Hands under MediaPipe's names and ports (`FaceRendererCpu`,
/// `HandRendererSubgraph`): detections and ROIs as boxes, each face's contours (lips, eyes,
/// eyebrows, irises, oval) or each hand's skeleton as lines with the landmarks as dots, and
/// the handedness of a single hand as a label.
enum LandmarkRendererSubgraphs {
    static let all: [(name: String, text: String)] = [
        ("FaceRendererCpu", face),
        ("HandRendererSubgraph", hand),
    ]

    /// Pairs of mesh vertices joined when a face is drawn: the contours of the lips, eyes,
    /// eyebrows and face oval, then the two irises (vertices 468–477, with attention only;
    /// lines to vertices a 468-point mesh lacks are left out).
    static let faceConnections = """
        0, 267, 7, 163, 10, 338, 13, 312, 14, 317, 17, 314, 21, 54, 33, 7, 33, 246, 37, 0, 39, 37, 40,
        39, 46, 53, 52, 65, 53, 52, 54, 103, 58, 132, 61, 146, 61, 185, 63, 105, 65, 55, 66, 107, 67,
        109, 70, 63, 78, 95, 78, 191, 80, 81, 81, 82, 82, 13, 84, 17, 87, 14, 88, 178, 91, 181, 93,
        234, 95, 88, 103, 67, 105, 66, 109, 10, 127, 162, 132, 93, 136, 172, 144, 145, 145, 153, 146,
        91, 148, 176, 149, 150, 150, 136, 152, 148, 153, 154, 154, 155, 155, 133, 157, 173, 158, 157,
        159, 158, 160, 159, 161, 160, 162, 21, 163, 144, 172, 58, 173, 133, 176, 149, 178, 87, 181, 84,
        185, 40, 191, 80, 234, 127, 246, 161, 249, 390, 251, 389, 263, 249, 263, 466, 267, 269, 269,
        270, 270, 409, 276, 283, 282, 295, 283, 282, 284, 251, 288, 397, 293, 334, 295, 285, 296, 336,
        297, 332, 300, 293, 310, 415, 311, 310, 312, 311, 314, 405, 317, 402, 318, 324, 321, 375, 323,
        361, 324, 308, 332, 284, 334, 296, 338, 297, 356, 454, 361, 288, 365, 379, 373, 374, 374, 380,
        375, 291, 377, 152, 378, 400, 379, 378, 380, 381, 381, 382, 382, 362, 384, 398, 385, 384, 386,
        385, 387, 386, 388, 387, 389, 356, 390, 373, 397, 365, 398, 362, 400, 377, 402, 318, 405, 321,
        409, 291, 415, 308, 454, 323, 466, 388, 469, 470, 470, 471, 471, 472, 472, 469, 474, 475, 475,
        476, 476, 477, 477, 474
        """

    /// Pairs of hand landmarks joined into the skeleton: wrist to each finger's base, then
    /// along each finger, and across the palm.
    static let handConnections = """
        0, 1, 0, 5, 0, 17, 1, 2, 2, 3, 3, 4, 5, 6, 5, 9, 6, 7, 7, 8, 9, 10, 9, 13, 10, 11, 11, 12, 13,
        14, 13, 17, 14, 15, 15, 16, 17, 18, 18, 19, 19, 20
        """

    /// Boxes and keypoints of `detections`, as render data on `output`.
    static func drawDetections(_ detections: String, _ output: String) -> String {
        """
        node {
          calculator: "DetectionsToRenderDataCalculator"
          input_stream: "DETECTIONS:\(detections)"
          output_stream: "RENDER_DATA:\(output)"
          options { [mediapipe.DetectionsToRenderDataCalculatorOptions.ext] {
            thickness: 2.0 color { r: 0 g: 200 b: 255 }
          } }
        }
        """
    }

    /// Outlines of the rects of `rects` in `color` (r, g, b), as render data on `output`.
    static func drawRects(_ rects: String, _ output: String, color: (Int, Int, Int)) -> String {
        """
        node {
          calculator: "RectToRenderDataCalculator"
          input_stream: "NORM_RECTS:\(rects)"
          output_stream: "RENDER_DATA:\(output)"
          options { [mediapipe.RectToRenderDataCalculatorOptions.ext] {
            filled: false thickness: 2.0 color { r: \(color.0) g: \(color.1) b: \(color.2) }
          } }
        }
        """
    }

    /// Each landmark list of `lists` drawn with `options` (LandmarksToRenderDataCalculatorOptions
    /// fields), the render data collected into a list on `output`.
    static func drawEach(_ lists: String, _ output: String, options: String) -> String {
        """
        node {
          calculator: "BeginLoopNormalizedLandmarkListVectorCalculator"
          input_stream: "ITERABLE:\(lists)"
          output_stream: "ITEM:one_list"
          output_stream: "BATCH_END:lists_end"
        }
        node {
          calculator: "LandmarksToRenderDataCalculator"
          input_stream: "NORM_LANDMARKS:one_list"
          output_stream: "RENDER_DATA:one_drawing"
          options { [mediapipe.LandmarksToRenderDataCalculatorOptions.ext] {
            \(options)
          } }
        }
        node {
          calculator: "EndLoopRenderDataCalculator"
          input_stream: "ITEM:one_drawing"
          input_stream: "BATCH_END:lists_end"
          output_stream: "ITERABLE:\(output)"
        }
        """
    }

    static let face = """
        type: "FaceRendererCpu"
        input_stream: "IMAGE:image"
        input_stream: "LANDMARKS:multi_face_landmarks"
        input_stream: "NORM_RECTS:rois"
        input_stream: "DETECTIONS:detections"
        output_stream: "IMAGE:annotated"
        \(drawDetections("detections", "detection_drawing"))
        \(drawRects("rois", "roi_drawing", color: (255, 80, 80)))
        \(drawEach("multi_face_landmarks", "face_drawings", options: """
            landmark_connections: [\(faceConnections)]
            landmark_color { r: 255 g: 255 b: 255 }
            connection_color { r: 60 g: 220 b: 60 }
            thickness: 1.0
            visualize_landmark_depth: false
            """))
        node {
          calculator: "AnnotationOverlayCalculator"
          input_stream: "IMAGE:image"
          input_stream: "detection_drawing"
          input_stream: "roi_drawing"
          input_stream: "VECTOR:0:face_drawings"
          output_stream: "IMAGE:annotated"
        }
        """

    static let hand = """
        type: "HandRendererSubgraph"
        input_stream: "IMAGE:image"
        input_stream: "LANDMARKS:multi_hand_landmarks"
        input_stream: "HANDEDNESS:multi_handedness"
        input_stream: "NORM_RECTS:0:palm_rois"
        input_stream: "NORM_RECTS:1:hand_rois"
        input_stream: "DETECTIONS:palm_detections"
        output_stream: "IMAGE:annotated"
        \(drawDetections("palm_detections", "palm_drawing"))
        \(drawRects("palm_rois", "palm_roi_drawing", color: (160, 60, 200)))
        \(drawRects("hand_rois", "hand_roi_drawing", color: (255, 80, 80)))
        \(drawEach("multi_hand_landmarks", "hand_drawings", options: """
            landmark_connections: [\(handConnections)]
            landmark_color { r: 255 g: 40 b: 40 }
            connection_color { r: 40 g: 255 b: 40 }
            thickness: 2.0
            visualize_landmark_depth: false
            """))

        # With exactly one hand, its handedness is written in the corner.
        node {
          calculator: "ClassificationListVectorHasMinSizeCalculator"
          input_stream: "ITERABLE:multi_handedness"
          output_stream: "two_or_more_hands"
          options { [mediapipe.CollectionHasMinSizeCalculatorOptions.ext] { min_size: 2 } }
        }
        node {
          calculator: "GateCalculator"
          input_stream: "multi_handedness"
          input_stream: "DISALLOW:two_or_more_hands"
          output_stream: "single_handedness_list"
        }
        node {
          calculator: "SplitClassificationListVectorCalculator"
          input_stream: "single_handedness_list"
          output_stream: "single_handedness"
          options { [mediapipe.SplitVectorCalculatorOptions.ext] {
            ranges { begin: 0 end: 1 }
            element_only: true
          } }
        }
        node {
          calculator: "LabelsToRenderDataCalculator"
          input_stream: "CLASSIFICATIONS:single_handedness"
          output_stream: "RENDER_DATA:handedness_drawing"
          options { [mediapipe.LabelsToRenderDataCalculatorOptions.ext] {
            color { r: 255 g: 40 b: 40 }
            thickness: 4.0
            font_height_px: 32
            horizontal_offset_px: 16
            vertical_offset_px: 40
            max_num_labels: 1
            location: TOP_LEFT
          } }
        }
        node {
          calculator: "AnnotationOverlayCalculator"
          input_stream: "IMAGE:image"
          input_stream: "palm_drawing"
          input_stream: "palm_roi_drawing"
          input_stream: "hand_roi_drawing"
          input_stream: "handedness_drawing"
          input_stream: "VECTOR:0:hand_drawings"
          output_stream: "IMAGE:annotated"
        }
        """
}
