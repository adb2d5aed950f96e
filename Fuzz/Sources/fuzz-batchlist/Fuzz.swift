import FuzzSupport
import FrameFlowFleet
import Foundation

/// `frameflow batch` lists: parse any bytes; what parses must keep BatchList's contract (a
/// file per entry with a line inside the text, stems unique), and every shard of it must
/// name each entry once.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
    guard let list = try? BatchList(data: bytes, file: "fuzz.txt", baseDirectory: "/lists") else { return 0 }
    precondition(!list.entries.isEmpty && Set(list.entries.map(\.stem)).count == list.entries.count)
    for entry in list.entries {
        precondition((1...lines).contains(entry.line) && !entry.stem.isEmpty)
        _ = list.outputPath(for: entry, stream: "detections", extension: "jsonl", in: "/out")
    }
    for n in 1...3 {
        let covered = (0..<n).reduce(0) { sum, i in sum + ((try? Shard(index: i, count: n).select(list.entries).count) ?? 0) }
        precondition(covered == list.entries.count)
    }
    return 0
}

@_cdecl("fuzz_batchlist_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
