import Foundation
import FrameFlow

/// One packet as one JSON object: `{"stream":…,"timestamp_us":…, …payload}`, the line
/// `JSONLinesSink` writes (without its newline) and the message `MQTTPacketSink` publishes.
///
/// The payload's members come from `JSONLinesRepresentable` (an image gives its `width`,
/// `height` and `format`, and a float mask also its `mean` and `foreground_fraction`, the
/// fraction of pixels ≥ 0.5); `[Detection]` becomes
/// `"detections": [{"label":[…],"score":[…],"location_data":{…}}, …]` (MediaPipe's field
/// names); other `Encodable` values merge an object's members or become `"value"`; anything
/// else is its description. Keys of the payload are sorted, so equal packets give equal bytes.
///
/// ```swift
/// let data = try PacketJSON.object(Packet(7, at: Timestamp(40_000)), stream: "count")
/// print(String(decoding: data!, as: UTF8.self))
/// // Prints {"stream":"count","timestamp_us":40000,"value":7}
/// ```
public enum PacketJSON {
    /// The JSON object of `packet` on `stream`, UTF-8; `nil` for an empty packet (no payload).
    public static func object(_ packet: Packet, stream: String) throws -> Data? {
        guard let payload = packet.payload else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var members: [String: Any] = [:]
        if let r = payload as? JSONLinesRepresentable {
            members = r.jsonObject
        } else if let d = payload as? [Detection], let data = try? encoder.encode(d),
            let list = try? JSONSerialization.jsonObject(with: data)
        {
            members["detections"] = list
        } else if let e = payload as? Encodable, let data = try? encoder.encode(AnyEncodable(e)),
            let obj = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        {
            if let dict = obj as? [String: Any] { members = dict } else { members["value"] = obj }
        } else {
            members["value"] = String(describing: payload)
        }
        let body = try JSONSerialization.data(withJSONObject: members, options: [.sortedKeys])
        let streamJSON = String(decoding: try JSONSerialization.data(withJSONObject: stream, options: [.fragmentsAllowed]), as: UTF8.self)
        var line = "{\"stream\":\(streamJSON),\"timestamp_us\":\(packet.timestamp.microseconds)"
        let inner = String(decoding: body, as: UTF8.self).dropFirst().dropLast()
        if !inner.isEmpty { line += "," + inner }
        line += "}"
        return Data(line.utf8)
    }
}

package struct AnyEncodable: Encodable {
    package let value: Encodable
    package init(_ value: Encodable) { self.value = value }
    package func encode(to encoder: Encoder) throws { try value.encode(to: encoder) }
}
