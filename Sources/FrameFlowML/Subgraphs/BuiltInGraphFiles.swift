/// The built-in subgraphs' files, `Subgraphs/Graphs/*.pbtxt`, embedded in the library by
/// SwiftPM (`resources: [.embedInCode(…)]` generates `PackageResources`), so a copied binary
/// needs no resource bundle beside it. A new file gets a line here;
/// `BuiltInSubgraphTests.everyFileIsEmbedded` fails until it has one.
enum BuiltInGraphFiles {
    /// (file name, UTF-8 text), by file name.
    static let files: [(name: String, bytes: [UInt8])] = [
        ("face_detection.pbtxt", PackageResources.face_detection_pbtxt),
        ("face_detection_front_detection_to_roi.pbtxt", PackageResources.face_detection_front_detection_to_roi_pbtxt),
        ("face_detection_full_range.pbtxt", PackageResources.face_detection_full_range_pbtxt),
        ("face_detection_full_range_cpu.pbtxt", PackageResources.face_detection_full_range_cpu_pbtxt),
        ("face_detection_short_range.pbtxt", PackageResources.face_detection_short_range_pbtxt),
        ("face_detection_short_range_by_roi_cpu.pbtxt", PackageResources.face_detection_short_range_by_roi_cpu_pbtxt),
        ("face_detection_short_range_cpu.pbtxt", PackageResources.face_detection_short_range_cpu_pbtxt),
        ("face_detection_without_roi.pbtxt", PackageResources.face_detection_without_roi_pbtxt),
        ("face_landmark_cpu.pbtxt", PackageResources.face_landmark_cpu_pbtxt),
        ("face_landmark_front_cpu.pbtxt", PackageResources.face_landmark_front_cpu_pbtxt),
        ("face_landmark_landmarks_to_roi.pbtxt", PackageResources.face_landmark_landmarks_to_roi_pbtxt),
        ("face_landmarks_model_loader.pbtxt", PackageResources.face_landmarks_model_loader_pbtxt),
        ("face_renderer_cpu.pbtxt", PackageResources.face_renderer_cpu_pbtxt),
        ("hand_landmark_cpu.pbtxt", PackageResources.hand_landmark_cpu_pbtxt),
        ("hand_landmark_landmarks_to_roi.pbtxt", PackageResources.hand_landmark_landmarks_to_roi_pbtxt),
        ("hand_landmark_model_loader.pbtxt", PackageResources.hand_landmark_model_loader_pbtxt),
        ("hand_landmark_tracking_cpu.pbtxt", PackageResources.hand_landmark_tracking_cpu_pbtxt),
        ("hand_renderer_cpu.pbtxt", PackageResources.hand_renderer_cpu_pbtxt),
        ("palm_detection_cpu.pbtxt", PackageResources.palm_detection_cpu_pbtxt),
        ("palm_detection_detection_to_roi.pbtxt", PackageResources.palm_detection_detection_to_roi_pbtxt),
        ("palm_detection_model_loader.pbtxt", PackageResources.palm_detection_model_loader_pbtxt),
        ("pose_detection_cpu.pbtxt", PackageResources.pose_detection_cpu_pbtxt),
        ("pose_detection_to_roi.pbtxt", PackageResources.pose_detection_to_roi_pbtxt),
        ("pose_landmark_by_roi_cpu.pbtxt", PackageResources.pose_landmark_by_roi_cpu_pbtxt),
        ("pose_landmark_cpu.pbtxt", PackageResources.pose_landmark_cpu_pbtxt),
        ("pose_landmark_filtering.pbtxt", PackageResources.pose_landmark_filtering_pbtxt),
        ("pose_landmark_model_loader.pbtxt", PackageResources.pose_landmark_model_loader_pbtxt),
        ("pose_landmarks_and_segmentation_inverse_projection.pbtxt", PackageResources.pose_landmarks_and_segmentation_inverse_projection_pbtxt),
        ("pose_landmarks_to_render_data.pbtxt", PackageResources.pose_landmarks_to_render_data_pbtxt),
        ("pose_landmarks_to_roi.pbtxt", PackageResources.pose_landmarks_to_roi_pbtxt),
        ("pose_renderer_cpu.pbtxt", PackageResources.pose_renderer_cpu_pbtxt),
        ("pose_segmentation_filtering.pbtxt", PackageResources.pose_segmentation_filtering_pbtxt),
        ("selfie_segmentation_cpu.pbtxt", PackageResources.selfie_segmentation_cpu_pbtxt),
        ("selfie_segmentation_model_loader.pbtxt", PackageResources.selfie_segmentation_model_loader_pbtxt),
        ("tasks_face_detector_graph.pbtxt", PackageResources.tasks_face_detector_graph_pbtxt),
        ("tasks_face_geometry_from_landmarks_graph.pbtxt", PackageResources.tasks_face_geometry_from_landmarks_graph_pbtxt),
        ("tensors_to_face_landmarks.pbtxt", PackageResources.tensors_to_face_landmarks_pbtxt),
        ("tensors_to_face_landmarks_with_attention.pbtxt", PackageResources.tensors_to_face_landmarks_with_attention_pbtxt),
        ("tensors_to_pose_landmarks_and_segmentation.pbtxt", PackageResources.tensors_to_pose_landmarks_and_segmentation_pbtxt),
    ]
}
