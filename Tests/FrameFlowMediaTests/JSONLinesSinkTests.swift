import Foundation
import FrameFlow
import FrameFlowMedia
import Testing

/// JSONLinesSink on landmark and classification payloads: each line decoded and compared with
/// the values written.
@Suite struct JSONLinesSinkTests {
    /// Writes `packets` to a fresh `.jsonl` file and returns its lines as JSON objects.
    func lines(_ packets: [Packet], stream: String) throws -> [[String: Any]] {
        let path = MediaFixtures.path("sink-\(UUID().uuidString).jsonl")
        defer { unlink(path) }
        let sink = try makeSink(path, stream: stream)
        for p in packets { try sink.write(p) }
        try sink.finish()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        return try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// The landmarks of a `"landmark"` array as (x, y, z, visibility, presence).
    func points(_ value: Any?) throws -> [[Double?]] {
        let list = try #require(value as? [[String: Any]])
        return list.map { p in ["x", "y", "z", "visibility", "presence"].map { p[$0] as? Double } }
    }

    static let hand = NormalizedLandmarkList([
        NormalizedLandmark(x: 0.25, y: 0.5, z: -0.125), NormalizedLandmark(x: 0.75, y: 0.375, z: 0.0625, visibility: 0.5, presence: 0.875),
    ])

    @Test func normalizedLandmarkListsSingleAndVector() throws {
        let out = try lines(
            [Packet(Self.hand, at: 3), Packet([Self.hand, NormalizedLandmarkList()], at: 7), Packet([NormalizedLandmarkList](), at: 9)],
            stream: "hand_landmarks")
        try #require(out.count == 3)
        #expect(out.map { $0["stream"] as? String } == ["hand_landmarks", "hand_landmarks", "hand_landmarks"])
        #expect(out.map { $0["timestamp_us"] as? Int } == [3, 7, 9])
        let expected: [[Double?]] = [[0.25, 0.5, -0.125, nil, nil], [0.75, 0.375, 0.0625, 0.5, 0.875]]
        #expect(try points(out[0]["landmark"]) == expected)
        #expect(Set(((out[0]["landmark"] as? [[String: Any]])?[0].keys).map(Array.init) ?? []) == ["x", "y", "z"], "unset fields left out")
        let lists = try #require(out[1]["landmark_lists"] as? [[String: Any]])
        #expect(lists.count == 2)
        #expect(try points(lists[0]["landmark"]) == expected)
        #expect(try points(lists[1]["landmark"]).isEmpty)
        #expect((out[2]["landmark_lists"] as? [Any])?.isEmpty == true)
    }

    @Test func worldLandmarkListsSingleAndVector() throws {
        let world = LandmarkList([Landmark(x: 0.01, y: -0.02, z: 0.03, visibility: 0.25)])
        let out = try lines([Packet(world, at: 0), Packet([world, world], at: 1)], stream: "world")
        try #require(out.count == 2)
        #expect(try points(out[0]["landmark"]) == [[0.01, -0.02, 0.03, 0.25, nil]])
        let lists = try #require(out[1]["landmark_lists"] as? [[String: Any]])
        #expect(try lists.map { try points($0["landmark"]) } == [[[0.01, -0.02, 0.03, 0.25, nil]], [[0.01, -0.02, 0.03, 0.25, nil]]])
    }

    @Test func handednessSingleAndVector() throws {
        let left = ClassificationList([Classification(index: 0, score: 0.9375, label: "Left")])
        let right = ClassificationList([
            Classification(index: 1, score: 0.75, label: "Right", displayName: "right hand"), Classification(index: 0, score: 0.25),
        ])
        let out = try lines([Packet(left, at: 0), Packet([left, right], at: 33), Packet(ClassificationList(), at: 66)], stream: "handedness")
        try #require(out.count == 3)
        #expect(out[0]["label"] as? String == "Left" && out[0]["index"] as? Int == 0 && out[0]["score"] as? Double == 0.9375)
        let all = try #require(out[0]["classification"] as? [[String: Any]])
        #expect(all.count == 1 && all[0]["label"] as? String == "Left" && all[0]["score"] as? Double == 0.9375)

        #expect(out[1]["timestamp_us"] as? Int == 33)
        let hands = try #require(out[1]["classification_lists"] as? [[String: Any]])
        #expect(hands.map { $0["label"] as? String } == ["Left", "Right"])
        #expect(hands.map { $0["index"] as? Int } == [0, 1])
        #expect(hands.map { $0["score"] as? Double } == [0.9375, 0.75])
        #expect(hands[1]["display_name"] as? String == "right hand")
        let second = try #require(hands[1]["classification"] as? [[String: Any]])
        #expect(second.map { $0["label"] as? String } == ["Right", "0"], "a class without a label: its index as text")
        #expect(second.map { $0["score"] as? Double } == [0.75, 0.25])

        #expect(out[2]["label"] == nil && (out[2]["classification"] as? [Any])?.isEmpty == true)
    }
}
