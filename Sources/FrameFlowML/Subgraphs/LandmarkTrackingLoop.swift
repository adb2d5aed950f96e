/// The detect-or-track loop MediaPipe's Face Mesh and Hands front graphs share, as one text
/// template: last frame's landmark ROIs (unless `USE_PREV_LANDMARKS` is false) are reused; the
/// detector runs only on frames where they are fewer than the count side packet; detections
/// become ROIs, which give way to overlapping tracked ones; each ROI goes through the landmark
/// subgraph, and its landmarks give next frame's ROI.
///
/// Streams inside: `detections` (the detector's, clipped to the count), `rois_from_detections`,
/// `rois_from_landmarks`, and per ROI `one_roi_image`, `one_roi_image_size`, `one_roi`; the
/// landmark node reads those and its per-ROI outputs are collected by `collected`.
enum LandmarkTrackingLoop {
    /// - Parameters:
    ///   - interface: the subgraph's `type`, streams and side packets, naming the streams above.
    ///   - count: the side packet with the most objects to track (`num_faces`).
    ///   - detector: a node reading `IMAGE:detection_image`, writing `DETECTIONS:every_detection`.
    ///   - detectionToRoi, landmarksToRoi: the ROI subgraphs (`DETECTION:` / `LANDMARKS:` and
    ///     `IMAGE_SIZE:` in, `ROI:` out).
    ///   - imageTag: the tag `ImagePropertiesCalculator` reads the frame under.
    ///   - landmarks: the landmark node; its `LANDMARKS` output must be `one_landmarks`.
    ///   - collected: end-loop calculators and the per-ROI stream each gathers into a list.
    static func text(
        interface: String, count: String, detector: String, detectionToRoi: String, landmarksToRoi: String,
        imageTag: String, landmarks: String, collected: [(calculator: String, item: String, list: String)]
    ) -> String {
        let ends = (collected + [("EndLoopNormalizedRectCalculator", "one_roi_from_landmarks", "rois_from_landmarks")])
            .map { calculator, item, list in
                """
                node {
                  calculator: "\(calculator)"
                  input_stream: "ITEM:\(item)"
                  input_stream: "BATCH_END:roi_batch_end"
                  output_stream: "ITERABLE:\(list)"
                }
                """
            }.joined(separator: "\n")
        return """
            \(interface)

            # Last frame's ROIs, unless tracking is off.
            node {
              calculator: "GateCalculator"
              input_stream: "last_rois"
              input_side_packet: "ALLOW:use_prev_landmarks"
              output_stream: "tracked_rois"
              options { [mediapipe.GateCalculatorOptions.ext] { allow: true } }
            }
            node {
              calculator: "NormalizedRectVectorHasMinSizeCalculator"
              input_stream: "ITERABLE:tracked_rois"
              input_side_packet: "\(count)"
              output_stream: "tracking_is_enough"
            }

            # The detector runs only on frames where tracking does not give every object.
            node {
              calculator: "GateCalculator"
              input_stream: "image"
              input_stream: "DISALLOW:tracking_is_enough"
              output_stream: "detection_image"
              options { [mediapipe.GateCalculatorOptions.ext] { empty_packets_as_allow: true } }
            }
            \(detector)
            node {
              calculator: "ClipDetectionVectorSizeCalculator"
              input_stream: "every_detection"
              input_side_packet: "\(count)"
              output_stream: "detections"
            }
            node {
              calculator: "ImagePropertiesCalculator"
              input_stream: "IMAGE:detection_image"
              output_stream: "SIZE:detection_image_size"
            }
            node {
              calculator: "BeginLoopDetectionCalculator"
              input_stream: "ITERABLE:detections"
              input_stream: "CLONE:detection_image_size"
              output_stream: "ITEM:one_detection"
              output_stream: "CLONE:one_detection_image_size"
              output_stream: "BATCH_END:detection_batch_end"
            }
            node {
              calculator: "\(detectionToRoi)"
              input_stream: "DETECTION:one_detection"
              input_stream: "IMAGE_SIZE:one_detection_image_size"
              output_stream: "ROI:one_roi_from_detection"
            }
            node {
              calculator: "EndLoopNormalizedRectCalculator"
              input_stream: "ITEM:one_roi_from_detection"
              input_stream: "BATCH_END:detection_batch_end"
              output_stream: "ITERABLE:rois_from_detections"
            }

            # New ROIs that overlap a tracked one by more than half give way to it.
            node {
              calculator: "AssociationNormRectCalculator"
              input_stream: "rois_from_detections"
              input_stream: "tracked_rois"
              output_stream: "rois"
              options { [mediapipe.AssociationCalculatorOptions.ext] { min_similarity_threshold: 0.5 } }
            }

            node {
              calculator: "ImagePropertiesCalculator"
              input_stream: "\(imageTag):image"
              output_stream: "SIZE:image_size"
            }
            node {
              calculator: "BeginLoopNormalizedRectCalculator"
              input_stream: "ITERABLE:rois"
              input_stream: "CLONE:0:image"
              input_stream: "CLONE:1:image_size"
              output_stream: "ITEM:one_roi"
              output_stream: "CLONE:0:one_roi_image"
              output_stream: "CLONE:1:one_roi_image_size"
              output_stream: "BATCH_END:roi_batch_end"
            }
            \(landmarks)
            node {
              calculator: "\(landmarksToRoi)"
              input_stream: "LANDMARKS:one_landmarks"
              input_stream: "IMAGE_SIZE:one_roi_image_size"
              output_stream: "ROI:one_roi_from_landmarks"
            }
            \(ends)

            # This frame's landmark ROIs come back on the next frame.
            node {
              calculator: "PreviousLoopbackCalculator"
              input_stream: "MAIN:image"
              input_stream: "LOOP:rois_from_landmarks"
              input_stream_info { tag_index: "LOOP" back_edge: true }
              output_stream: "PREV_LOOP:last_rois"
            }
            """
    }

    /// The single-shot detector both loops start from (palms, people): the whole image
    /// letterboxed into the model's square input, the model, one anchor per cell of each
    /// feature map, the boxes and keypoints decoded, overlapping ones merged into their
    /// score-weighted mean, and the letterbox taken off again.
    /// - Parameters:
    ///   - interface: the subgraph's `type`, ports and side packets (`IMAGE:image` in,
    ///     `DETECTIONS:detections` out).
    ///   - toTensor, anchors, decode: the bodies of `ImageToTensorCalculatorOptions`,
    ///     `SsdAnchorsCalculatorOptions` and `TensorsToDetectionsCalculatorOptions`.
    ///   - model: the nodes that read `TENSORS:input_tensor` and write `TENSORS:model_outputs`.
    static func detector(interface: String, toTensor: String, model: String, anchors: String, decode: String) -> String {
        """
        \(interface)
        node {
          calculator: "ImageToTensorCalculator"
          input_stream: "IMAGE:image"
          output_stream: "TENSORS:input_tensor"
          output_stream: "LETTERBOX_PADDING:padding"
          options { [mediapipe.ImageToTensorCalculatorOptions.ext] {
            \(toTensor)
          } }
        }
        \(model)
        node {
          calculator: "SsdAnchorsCalculator"
          output_side_packet: "anchors"
          options { [mediapipe.SsdAnchorsCalculatorOptions.ext] {
            \(anchors)
          } }
        }
        node {
          calculator: "TensorsToDetectionsCalculator"
          input_stream: "TENSORS:model_outputs"
          input_side_packet: "ANCHORS:anchors"
          output_stream: "DETECTIONS:candidates"
          options { [mediapipe.TensorsToDetectionsCalculatorOptions.ext] {
            \(decode)
          } }
        }
        node {
          calculator: "NonMaxSuppressionCalculator"
          input_stream: "candidates"
          output_stream: "found_in_letterbox"
          options { [mediapipe.NonMaxSuppressionCalculatorOptions.ext] {
            min_suppression_threshold: 0.3
            overlap_type: INTERSECTION_OVER_UNION
            algorithm: WEIGHTED
          } }
        }
        node {
          calculator: "DetectionLetterboxRemovalCalculator"
          input_stream: "DETECTIONS:found_in_letterbox"
          input_stream: "LETTERBOX_PADDING:padding"
          output_stream: "DETECTIONS:detections"
        }
        """
    }
}
