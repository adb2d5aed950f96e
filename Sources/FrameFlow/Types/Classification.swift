/// MediaPipe's `Classification`: a class index with its score and names.
public struct Classification: Sendable, Hashable, Codable {
    public var index: Int
    public var score: Double
    public var label: String?
    public var displayName: String?

    public init(index: Int, score: Double, label: String? = nil, displayName: String? = nil) {
        self.index = index
        self.score = score
        self.label = label
        self.displayName = displayName
    }

    enum CodingKeys: String, CodingKey { case index, score, label, displayName = "display_name" }
}

/// MediaPipe's `ClassificationList` (JSON: `{"classification": […]}`), e.g. a hand's handedness.
public struct ClassificationList: Sendable, Hashable, Codable {
    public var classification: [Classification]
    public init(_ classification: [Classification] = []) { self.classification = classification }
}
