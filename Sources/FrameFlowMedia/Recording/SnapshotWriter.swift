import Foundation
import FrameFlow
import FrameFlowSinks

/// Saves an event's snapshot in a folder as three JPEGs named after the event:
/// `<event id>.jpg` (the whole frame), `<event id>-crop.jpg` (the box with its margin) and
/// `<event id>-annotated.jpg` (the frame with the box and label drawn). Each file is written
/// under a temporary name and renamed, and a later snapshot of the same event replaces them;
/// if one file fails, the files of this call are removed and the error names it.
///
/// ```swift
/// let writer = try SnapshotWriter(folder: "clips")
/// try writer.write(snapshot, eventID: event.after.id)
/// ```
public struct SnapshotWriter: Sendable {
    /// The folder written to.
    public let folder: String

    /// A writer into `folder` (made if missing); throws when it cannot be written.
    public init(folder: String) throws {
        var isDir: ObjCBool = false
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDir) {
            do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
                throw MediaError(.cannotWrite, folder, "cannot make the snapshots folder: \(error.localizedDescription)")
            }
        } else if !isDir.boolValue {
            throw MediaError(.cannotWrite, folder, "is a file, not a folder for snapshots")
        }
        guard access(folder, W_OK | X_OK) == 0 else { throw MediaError(.cannotWrite, folder, "the snapshots folder is not writable") }
        self.folder = folder
    }

    /// The three paths of `eventID`'s snapshot: full, crop, annotated.
    public func paths(for eventID: String) -> (full: String, crop: String, annotated: String) {
        let stem = (folder as NSString).appendingPathComponent(ClipRecorder.fileStem(for: eventID))
        return (stem + ".jpg", stem + "-crop.jpg", stem + "-annotated.jpg")
    }

    /// Writes `snapshot` as `eventID`'s three JPEGs.
    public func write(_ snapshot: ObjectSnapshot, eventID: String) throws {
        let p = paths(for: eventID)
        var done: [String] = []
        do {
            for (image, path) in [(snapshot.image, p.full), (snapshot.crop, p.crop), (snapshot.annotated, p.annotated)] {
                try ImageFileWriter.write(image, to: path)
                done.append(path)
            }
        } catch {
            for path in done { unlink(path) }
            throw error
        }
    }
}
