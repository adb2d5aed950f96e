// MediaPipe's Hands from Swift: the wheel's compiled tracking graph on a clip, printing each
// hand's handedness and index finger tip per frame.
//
//   swift run hand-tracking [clip.mp4] [resource-root]
//   (defaults: Tests/Fixtures/mediapipe/hand_clip.mp4, the model folder of `frameflow models fetch`)
import FrameFlow
import FrameFlowML
import FrameFlowMedia
import Foundation

let args = CommandLine.arguments
let clip = args.count > 1 ? args[1] : "Tests/Fixtures/mediapipe/hand_clip.mp4"
let environment = GraphEnvironment(resourceRoots: [args.count > 2 ? args[2] : GraphEnvironment.userModelFolder()])  // where mediapipe/modules/… lies

do {
    let registry = try CalculatorRegistry.withML()
    let config = try GraphConfig(
        contentsOfFile: environment.resolve("mediapipe/modules/hand_landmark/hand_landmark_tracking_cpu.binarypb"),
        registry: registry)
    let graph = try Graph(config, registry: registry, environment: environment)
    try graph.observe("multi_hand_landmarks") { packet in
        guard let hands = try? packet.get([NormalizedLandmarkList].self) else { return }
        let tips = hands.map { String(format: "(%.3f, %.3f)", $0.landmark[8].x, $0.landmark[8].y) }
        print(packet.timestamp, "index finger tips:", tips.joined(separator: " "))
    }
    try graph.observe("multi_handedness") { packet in
        guard let lists = try? packet.get([ClassificationList].self) else { return }
        print(packet.timestamp, "handedness:", lists.compactMap { $0.classification.first?.label })
    }
    try graph.start(sidePackets: ["num_hands": 2, "model_complexity": 1, "use_prev_landmarks": true])
    let source = try MediaSource(clip, options: .init(pixelFormat: .rgb8))
    while let frame = try source.read() { try graph.send(frame.image, to: "image", at: frame.timestamp) }
    try graph.closeAllInputStreams()
    try graph.waitUntilDone()
} catch {
    FileHandle.standardError.write(Data("hand-tracking: \(error)\n".utf8))
    exit(1)
}
