/// A MediaPipe solution or FrameFlow app that `frameflow solutions` lists: the graph file it
/// runs, the models it needs, and a command that runs it as written.
struct Solution: Sendable {
    var name: String
    var graph: String
    /// The model set `frameflow models fetch` must have unpacked (nil: none).
    var modelSet: String?
    var command: String

    /// Every graph under Graphs/, with its command (a test checks the list is complete).
    static let all: [Solution] = [
        Solution(
            name: "edge detection (MediaPipe's Hello World)", graph: "Graphs/edge_detection_mobile_gpu.pbtxt", modelSet: nil,
            command: "frameflow run Graphs/edge_detection_mobile_gpu.pbtxt --input clip.mp4 --output edges.mp4"),
        Solution(
            name: "face detection (MediaPipe, short range)", graph: "Graphs/face_detection_desktop_live.pbtxt", modelSet: "mediapipe",
            command: "frameflow run Graphs/face_detection_desktop_live.pbtxt --input clip.mp4 --output faces.mp4"),
        Solution(
            name: "face detection (BlazeFace, parallel inference)", graph: "Graphs/face_detection_short_range.pbtxt", modelSet: "mediapipe",
            command: "frameflow run Graphs/face_detection_short_range.pbtxt --input photo.png --output-stream detections=faces.jsonl"),
        Solution(
            name: "face detection (OpenCV Haar cascade)", graph: "Graphs/face_detection_haar.pbtxt", modelSet: nil,
            command: "frameflow run Graphs/face_detection_haar.pbtxt --input clip.mp4 --output faces.mp4"),
        Solution(
            name: "face tracking (Haar cascade + ObjectTracker, ByteTrack)", graph: "Graphs/face_tracking_haar.pbtxt", modelSet: nil,
            command: "frameflow run Graphs/face_tracking_haar.pbtxt --input clip.mp4 --output tracked.mp4"),
        Solution(
            name: "people detection (OpenCV HOG people detector)", graph: "Graphs/people_detection_hog.pbtxt", modelSet: nil,
            command: "frameflow run Graphs/people_detection_hog.pbtxt --input clip.mp4 --output people.mp4"),
        Solution(
            name: "people detection, motion-gated (motion → gate → HOG → tracker)", graph: "Graphs/people_detection_hog_gated.pbtxt",
            modelSet: nil, command: "frameflow run Graphs/people_detection_hog_gated.pbtxt --input clip.mp4 --output people.mp4"),
        Solution(
            name: "people events (HOG + ByteTrack, zones, lines, Frigate events)", graph: "Graphs/people_events_hog.pbtxt", modelSet: nil,
            command: "frameflow run Graphs/people_events_hog.pbtxt --input clip.mp4 --output-stream events=events.jsonl"),
        Solution(
            name: "people events, drawn (tracks, zones, line counts)", graph: "Graphs/people_events_hog_desktop_live.pbtxt", modelSet: nil,
            command: "frameflow run Graphs/people_events_hog_desktop_live.pbtxt --input clip.mp4 --output events.mp4"),
        Solution(
            name: "Face Mesh (MediaPipe)", graph: "Graphs/face_mesh_desktop_live.pbtxt", modelSet: "mediapipe",
            command: "frameflow run Graphs/face_mesh_desktop_live.pbtxt --input clip.mp4 --output mesh.mp4"),
        Solution(
            name: "Hands (MediaPipe)", graph: "Graphs/hand_tracking_desktop_live.pbtxt", modelSet: "mediapipe",
            command: "frameflow run Graphs/hand_tracking_desktop_live.pbtxt --input clip.mp4 --output hands.mp4"),
        Solution(
            name: "Holistic (MediaPipe)", graph: "Graphs/holistic_tracking_desktop_live.pbtxt", modelSet: "mediapipe",
            command: "frameflow run Graphs/holistic_tracking_desktop_live.pbtxt --input clip.mp4 --output holistic.mp4"),
        Solution(
            name: "Pose (MediaPipe)", graph: "Graphs/pose_tracking_desktop_live.pbtxt", modelSet: "mediapipe",
            command: "frameflow run Graphs/pose_tracking_desktop_live.pbtxt --input clip.mp4 --output pose.mp4"),
        Solution(
            name: "Selfie Segmentation (MediaPipe)", graph: "Graphs/selfie_segmentation_desktop_live.pbtxt", modelSet: "mediapipe",
            command: "frameflow run Graphs/selfie_segmentation_desktop_live.pbtxt --input clip.mp4 --output selfie.mp4"),
        Solution(
            name: "virtual background, blurred", graph: "Graphs/virtual_background.pbtxt", modelSet: "mediapipe",
            command: "frameflow run Graphs/virtual_background.pbtxt --input clip.mp4 --output blurred.mp4"),
        Solution(
            name: "virtual background, a picture (Examples/VirtualBackground)", graph: "Graphs/virtual_background_replace.pbtxt",
            modelSet: "mediapipe", command: "swift run -c release virtual-background --background beach.png clip.mp4 out.mp4"),
        Solution(
            name: "object detection on a camera (BlazeFace, NV12)", graph: "Graphs/object_detection_camera.pbtxt", modelSet: "mediapipe",
            command: "frameflow run Graphs/object_detection_camera.pbtxt --input /dev/video0 --pixel-format nv12 --output window"),
        Solution(
            name: "YOLO (an Ultralytics ONNX export)", graph: "Graphs/object_detection_yolo.pbtxt", modelSet: nil,
            command: "frameflow run Graphs/object_detection_yolo.pbtxt --side model=yolov8n.onnx --input clip.mp4 --output objects.mp4"),
        Solution(
            name: "digit classifier (MNIST)", graph: "Graphs/digit_classifier.pbtxt", modelSet: nil,
            command: "frameflow run Graphs/digit_classifier.pbtxt --input digit.png --output-stream classification=out.jsonl"),
    ]
}
