/// A payload that knows its JSON form for `.jsonl` outputs (FrameFlowMedia's `JSONLinesSink`):
/// its members are merged into the line after `stream` and `timestamp_us`.
///
/// Lives in the core so that any module's payload types can conform without depending on
/// the media module.
public protocol JSONLinesRepresentable {
    /// A JSON object's members, e.g. `["label": "7", "score": 0.98]`.
    var jsonObject: [String: Any] { get }
}
