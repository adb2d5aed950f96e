import Testing

@testable import FrameFlowMQTT

@Suite struct MQTTTopicTests {
    @Test(arguments: ["frameflow/cam1/detections", "a", "frameflow/caméra/health", "/leading/slash"])
    func publishableTopicsPass(topic: String) throws {
        try MQTTTopic.validate(topic)
    }

    @Test(arguments: ["", "frameflow/+/detections", "frameflow/#", "nul\u{0}inside", String(repeating: "x", count: 65_536)])
    func unpublishableTopicsAreRefused(topic: String) {
        #expect(throws: MQTTError.self) { try MQTTTopic.validate(topic) }
    }

    @Test func namesCannotAddLevelsOrWildcards() throws {
        #expect(MQTTTopic.level("door/left+#") == "door_left__")
        #expect(MQTTTopic.level("") == "_")
        try MQTTTopic.validate("frameflow/" + MQTTTopic.level("a/b#") + "/health")
    }
}
