/// MediaPipe's `Detection`: what was found (labels, label ids and scores, best first) and where
/// (`LocationData`: a box in pixels or in fractions of the image, and relative keypoints).
///
/// Detectors on tensors give relative boxes (`RELATIVE_BOUNDING_BOX`), as MediaPipe's do;
/// detectors on pixels (Haar cascades) give pixel boxes (`BOUNDING_BOX`). Encodes to JSON with
/// MediaPipe's field names: `{"label":[…],"label_id":[…],"score":[…],"location_data":{…}}`.
public struct Detection: Sendable, Hashable, Codable {
    /// Class names, one per score (MediaPipe's repeated `label`); may be empty.
    public var labels: [String]
    /// Class indexes, one per score (`label_id`); may be empty.
    public var labelIDs: [Int]
    /// Scores, best first (`score`).
    public var scores: [Double]
    /// Where the detection is.
    public var locationData: LocationData
    /// MediaPipe's `detection_id`, set by trackers and `DetectionsToRects`' callers.
    public var detectionID: Int?

    /// A detection with `scores` (best first) at `locationData`.
    public init(labels: [String] = [], labelIDs: [Int] = [], scores: [Double], locationData: LocationData, detectionID: Int? = nil) {
        self.labels = labels
        self.labelIDs = labelIDs
        self.scores = scores
        self.locationData = locationData
        self.detectionID = detectionID
    }

    /// A detection with a box in fractions of the image (`RELATIVE_BOUNDING_BOX`) and keypoints.
    public init(relativeBox box: Rect, score: Double, label: String? = nil, labelID: Int? = nil, keypoints: [Point] = []) {
        self.init(
            labels: label.map { [$0] } ?? [], labelIDs: labelID.map { [$0] } ?? [], scores: [score],
            locationData: LocationData(
                format: .relativeBoundingBox,
                relativeBoundingBox: .init(xmin: box.x, ymin: box.y, width: box.width, height: box.height),
                relativeKeypoints: keypoints.map { .init(x: $0.x, y: $0.y) }))
    }

    /// A detection with a box in pixels (`BOUNDING_BOX`).
    public init(pixelBox box: LocationData.BoundingBox, score: Double, label: String? = nil, labelID: Int? = nil) {
        self.init(
            labels: label.map { [$0] } ?? [], labelIDs: labelID.map { [$0] } ?? [], scores: [score],
            locationData: LocationData(format: .boundingBox, boundingBox: box))
    }

    /// The best score (0 when there is none); setting it replaces the first.
    public var score: Double {
        get { scores.first ?? 0 }
        set { if scores.isEmpty { scores = [newValue] } else { scores[0] = newValue } }
    }
    /// The best score's label.
    public var label: String? { labels.first }
    /// The best score's label id.
    public var labelID: Int? { labelIDs.first }

    /// Whether the box is in fractions of the image (else in pixels).
    public var isRelative: Bool { locationData.format != .boundingBox }

    /// The box in its own units (fractions of the image, or pixels for `BOUNDING_BOX`).
    public var box: Rect {
        get {
            if isRelative, let b = locationData.relativeBoundingBox { return Rect(x: b.xmin, y: b.ymin, width: b.width, height: b.height) }
            if let b = locationData.boundingBox {
                return Rect(x: Double(b.xmin), y: Double(b.ymin), width: Double(b.width), height: Double(b.height))
            }
            return Rect(x: 0, y: 0, width: 0, height: 0)
        }
        set {
            if isRelative {
                locationData.relativeBoundingBox = .init(xmin: newValue.x, ymin: newValue.y, width: newValue.width, height: newValue.height)
            } else {
                locationData.boundingBox = .init(
                    xmin: Int(saturating: newValue.x.rounded()), ymin: Int(saturating: newValue.y.rounded()),
                    width: Int(saturating: newValue.width.rounded()), height: Int(saturating: newValue.height.rounded()))
            }
        }
    }

    /// The keypoints in fractions of the image (MediaPipe keeps keypoints relative only);
    /// setting them keeps existing labels and scores.
    public var keypoints: [Point] {
        get { locationData.relativeKeypoints.map { Point(x: $0.x, y: $0.y) } }
        set {
            let old = locationData.relativeKeypoints
            locationData.relativeKeypoints = newValue.enumerated().map { i, p in
                var k = i < old.count ? old[i] : LocationData.RelativeKeypoint(x: 0, y: 0)
                (k.x, k.y) = (p.x, p.y)
                return k
            }
        }
    }

    /// The box in pixels of an image `width` × `height`.
    public func box(inImageOfWidth width: Int, height: Int) -> Rect {
        let b = box
        guard isRelative else { return b }
        let w = Double(width), h = Double(height)
        return Rect(x: b.x * w, y: b.y * h, width: b.width * w, height: b.height * h)
    }

    /// The keypoints in pixels of an image `width` × `height`.
    public func keypoints(inImageOfWidth width: Int, height: Int) -> [Point] {
        keypoints.map { Point(x: $0.x * Double(width), y: $0.y * Double(height)) }
    }

    enum CodingKeys: String, CodingKey {
        case labels = "label", labelIDs = "label_id", scores = "score", locationData = "location_data", detectionID = "detection_id"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        labels = try c.decodeIfPresent([String].self, forKey: .labels) ?? []
        labelIDs = try c.decodeIfPresent([Int].self, forKey: .labelIDs) ?? []
        scores = try c.decodeIfPresent([Double].self, forKey: .scores) ?? []
        locationData = try c.decode(LocationData.self, forKey: .locationData)
        detectionID = try c.decodeIfPresent(Int.self, forKey: .detectionID)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if !labels.isEmpty { try c.encode(labels, forKey: .labels) }
        if !labelIDs.isEmpty { try c.encode(labelIDs, forKey: .labelIDs) }
        try c.encode(scores, forKey: .scores)
        try c.encode(locationData, forKey: .locationData)
        try c.encodeIfPresent(detectionID, forKey: .detectionID)
    }
}
