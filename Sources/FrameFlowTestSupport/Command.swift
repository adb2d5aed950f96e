import Foundation

/// A command that exited with a non-zero status: its command line and standard error.
public struct CommandFailed: Error, CustomStringConvertible {
    public let description: String
}

/// Runs `arguments` to the end (the program looked up as `env` does, so a name or a path);
/// returns its standard output, or throws `CommandFailed` with its standard error.
@discardableResult
public func runCommand(_ arguments: [String]) throws -> Data {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = arguments
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else {
        throw CommandFailed(description: "\(arguments.joined(separator: " ")) failed: \(String(decoding: errors, as: UTF8.self))")
    }
    return data
}
