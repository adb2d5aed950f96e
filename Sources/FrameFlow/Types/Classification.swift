/// MediaPipe's `Classification`: a class index with its score and names.
public struct Classification: Sendable, Hashable, Codable {
    /// The class index.
    public var index: Int
    /// The class's score (a probability for most models).
    public var score: Double
    /// The class's name, when known.
    public var label: String?
    /// A name for display (`display_name`), when given.
    public var displayName: String?

    /// Class `index` with `score`.
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
    /// The classes, best first as the producer orders them.
    public var classification: [Classification]
    /// A list of `classification`.
    public init(_ classification: [Classification] = []) { self.classification = classification }
}
