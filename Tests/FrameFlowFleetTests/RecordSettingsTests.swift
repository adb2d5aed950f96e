import Foundation
import FrameFlow
import FrameFlowMedia
import Testing

@testable import FrameFlowFleet

/// The `record { … }` and `snapshots { … }` blocks of a camera: values read, relative folders
/// resolved, and every out-of-range value an error at its line and column.
@Suite("RecordSettings")
struct RecordSettingsTests {
    static func fleet(_ record: String) -> String {
        """
        camera {
          name: "door"
          source: "door.mp4"
          graph: "g.pbtxt"
          \(record)
        }
        """
    }

    @Test func readsTheBlocks() throws {
        let config = try FleetConfig(
            text: Self.fleet(
                """
                record { folder: "clips" events_stream: "ev" pre_roll_seconds: 3 post_roll_seconds: 7.5 continuous: true segment_seconds: 30 retain_days: 7 max_bytes: 2e9 }
                  snapshots { folder: "/abs/snaps" stream: "best" }
                """), file: "/site/x.fleet")
        let r = try #require(config.cameras[0].record)
        #expect(r.folder == "/site/clips" && r.eventsStream == "ev")
        #expect(r.options.preRollSeconds == 3 && r.options.postRollSeconds == 7.5 && r.options.continuous && r.options.segmentSeconds == 30)
        #expect(r.options.retention == (try RetentionPolicy(maxDays: 7, maxBytes: 2e9)))
        let s = try #require(config.cameras[0].snapshots)
        #expect(s.folder == "/abs/snaps" && s.stream == "best" && s.eventsStream == "events")
        let plain = try FleetConfig(text: Self.fleet("record { folder: \"c\" }"), file: "/site/x.fleet").cameras[0].record
        #expect(plain?.options.retention == nil && plain?.options.preRollSeconds == 5 && plain?.options.continuous == false)
    }

    @Test func outOfRangeValuesAreErrorsAtTheirPlace() {
        for (field, value) in [
            ("pre_roll_seconds", "nan"), ("pre_roll_seconds", "-1"), ("post_roll_seconds", "1e308"), ("segment_seconds", "0"),
            ("segment_seconds", "inf"), ("retain_days", "0"), ("retain_days", "-2"), ("max_bytes", "0"), ("max_bytes", "-5"),
            ("max_bytes", "nan"), ("max_bytes", "1e308"), ("continuous", "3"), ("folder", "\"\""), ("events_stream", "1"),
        ] {
            let text = Self.fleet("record { folder: \"c\" \(field): \(value) }".replacingOccurrences(of: "folder: \"c\" folder", with: "folder"))
            do {
                _ = try FleetConfig(text: text, file: "x.fleet")
                Issue.record("\(field): \(value) was accepted")
            } catch {
                let d = "\(error)"
                #expect(d.contains("x.fleet:5:") && d.contains(field), "\(field): \(value) → \(d)")
            }
        }
        for bad in ["record { }", "record { folder: \"c\" size: 3 }", "snapshots { stream: \"s\" }"] {
            #expect(throws: FleetConfigError.self) { try FleetConfig(text: Self.fleet(bad), file: "x.fleet") }
        }
    }
}
