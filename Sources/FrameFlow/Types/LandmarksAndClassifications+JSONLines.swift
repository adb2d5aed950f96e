/// An element whose arrays are written as one `.jsonl` line (see `JSONLinesRepresentable`).
///
/// Landmark and classification lists, one line per packet, with MediaPipe's proto field names:
///
///   - `NormalizedLandmarkList`, `LandmarkList`: `{"landmark": [{"x":…,"y":…,"z":…}, …]}`, with
///     `visibility` and `presence` when set.
///   - `[NormalizedLandmarkList]`, `[LandmarkList]` (one list per hand or face):
///     `{"landmark_lists": [{"landmark": […]}, …]}`.
///   - `ClassificationList` (e.g. a hand's handedness): the first (best) class's `label`,
///     `score` and `index` (and `display_name` when set), and `classification` with every class
///     as `{"index":…,"score":…,"label":…}`. A class without a label is named by its index as
///     text; an empty list is `{"classification": []}`.
///   - `[ClassificationList]`: `{"classification_lists": [{…as above…}, …]}`.
///   - `[Classification]`: as the `ClassificationList` of those classes.
///
/// Example, the handedness of two hands:
/// ```
/// {"stream":"multi_handedness","timestamp_us":0,"classification_lists":[{"classification":
///   [{"index":0,"label":"Left","score":0.97}],"index":0,"label":"Left","score":0.97}, …]}
/// ```
public protocol JSONLinesArrayElement {
    /// The line's members for `elements`.
    static func jsonObject(for elements: [Self]) -> [String: Any]
}

extension Array: JSONLinesRepresentable where Element: JSONLinesArrayElement {
    /// The elements' line, as `Element.jsonObject(for:)` makes it.
    public var jsonObject: [String: Any] { Element.jsonObject(for: self) }
}

extension LandmarkPoint {
    /// `x`, `y`, `z`, and `visibility` / `presence` when set.
    public var jsonObject: [String: Any] {
        var members: [String: Any] = ["x": x, "y": y, "z": z]
        if let visibility { members["visibility"] = visibility }
        if let presence { members["presence"] = presence }
        return members
    }
}

extension LandmarkPointList: JSONLinesRepresentable, JSONLinesArrayElement {
    /// `landmark`: the points.
    public var jsonObject: [String: Any] { ["landmark": landmark.map(\.jsonObject)] }

    /// `landmark_lists`: each list.
    public static func jsonObject(for elements: [Self]) -> [String: Any] {
        ["landmark_lists": elements.map(\.jsonObject)]
    }
}

extension Classification: JSONLinesArrayElement {
    /// `index`, `score`, `label` (the index as text when unset) and `display_name` when set.
    public var jsonObject: [String: Any] {
        var members: [String: Any] = ["index": index, "score": score, "label": label ?? String(index)]
        if let displayName { members["display_name"] = displayName }
        return members
    }

    /// The classes as one `ClassificationList`.
    public static func jsonObject(for elements: [Self]) -> [String: Any] { ClassificationList(elements).jsonObject }
}

extension ClassificationList: JSONLinesRepresentable, JSONLinesArrayElement {
    /// The best class's members, and `classification`: every class.
    public var jsonObject: [String: Any] {
        var members = classification.first?.jsonObject ?? [:]
        members["classification"] = classification.map(\.jsonObject)
        return members
    }

    /// `classification_lists`: each list.
    public static func jsonObject(for elements: [Self]) -> [String: Any] {
        ["classification_lists": elements.map(\.jsonObject)]
    }
}
