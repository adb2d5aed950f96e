import FrameFlow
import FrameFlowFleet
import Foundation

/// Saves cameras added or removed over HTTP back to the fleet file (`?save=true`): the new
/// text is checked as a whole fleet file, written to a temporary file in the same folder and
/// renamed over the old one, so a reader never sees half a file.
///
/// Removing deletes the lines from the camera block's first line up to the next top-level
/// field (or the end of the file): comments between the block and the next one go with it.
/// A block that shares a line with another field is not removed (an error says so).
struct FleetFileEditor {
    let config: FleetConfig

    /// Appends the `camera { … }` block `text` to the file.
    func append(_ text: String) throws {
        let (path, old) = try read()
        let joined = (old.isEmpty || old.hasSuffix("\n") ? old : old + "\n") + (text.hasSuffix("\n") ? text : text + "\n")
        try write(joined, to: path)
    }

    /// Deletes camera `name`'s block from the file.
    func remove(camera name: String) throws {
        let (path, old) = try read()
        let message: TextMessage
        do { message = try TextFormatParser.parse(old, file: path) } catch { throw SaveError("\(path) no longer reads: \(error)") }
        let fields = message.fields
        guard
            let i = fields.firstIndex(where: { f in
                guard f.name == "camera", case .message(let m) = f.value.kind, let n = m.fields(named: "name").first,
                    case .string(let s) = n.value.kind
                else { return false }
                return s == name
            })
        else { throw SaveError("camera '\(name)' is not in \(path); the file was left as it is") }
        var lines = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let first = fields[i].location.line - 1
        let end = i + 1 < fields.count ? fields[i + 1].location.line - 1 : lines.count
        let before = lines[first].prefix(max(0, fields[i].location.column - 1))
        guard before.allSatisfy(\.isWhitespace), end > first, i == 0 || fields[i - 1].location.line - 1 < first else {
            throw SaveError("camera '\(name)' shares a line with another field in \(path); the file was left as it is")
        }
        lines.removeSubrange(first..<end)
        try write(lines.joined(separator: "\n"), to: path)
    }

    private func read() throws -> (String, String) {
        guard let path = config.file else { throw SaveError("the fleet was not read from a file: nothing to save to") }
        guard let data = FileManager.default.contents(atPath: path), let text = String(validating: [UInt8](data), as: UTF8.self) else {
            throw SaveError("cannot read \(path)")
        }
        return (path, text)
    }

    /// Checks `text` as a fleet file, then writes it to a temporary file beside `path` and
    /// renames it over `path`.
    private func write(_ text: String, to path: String) throws {
        do { _ = try FleetConfig(text: text, file: path) } catch {
            throw SaveError("the edited fleet file would not read (\(error)); it was left as it is")
        }
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        do {
            try Data(text.utf8).write(to: temporary)
            guard rename(temporary.path, path) == 0 else { throw SaveError("cannot replace \(path): \(String(cString: strerror(errno)))") }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error is SaveError ? error : SaveError("cannot write beside \(path): \(error)")
        }
    }
}

/// Why a change could not be saved to the fleet file.
struct SaveError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
