import FuzzSupport
import FrameFlowInference

/// Limits for one fuzz input: entries up to 16 MiB inflated (64 MiB in all), so that a bomb is
/// a limit error, not an out-of-memory report under fuzz.sh's 1 GiB malloc limit.
let limits: BundleLimits = {
    var l = BundleLimits()
    l.maxEntryBytes = 16 << 20
    l.maxTotalBytes = 64 << 20
    return l
}()

/// Every entry of `bundle` read; nested bundles opened (to the depth limit); the TFLite
/// metadata of each entry that is a TFLite model read, with its packed files and labels.
func explore(_ bundle: ModelBundle) {
    for entry in bundle.archive.entries {
        guard let bytes = try? bundle.archive.data(of: entry) else { continue }
        if ZipArchive.hasEndRecord(bytes), let inner = try? bundle.bundle(entry.name) { explore(inner) }
        if bytes.count >= 8, bytes[4..<8].elementsEqual("TFL3".utf8) { exploreMetadata(bytes, bundle.path(of: entry.name)) }
    }
}

/// The metadata of the model in `bytes`, its packed files and their labels.
func exploreMetadata(_ bytes: [UInt8], _ file: String) {
    guard let meta = try? TFLiteMetadata(tflite: bytes, file: file, limits: limits) else { return }
    for name in meta.packedFileNames { _ = try? meta.labels(name) }
    for sg in meta.subgraphs {
        for t in sg.inputs + sg.outputs { _ = (t.normalization, t.associatedFile(ofType: .tensorAxisLabels, locale: "en")) }
    }
}

/// `.task` bundles and `.tflite` models with metadata: the input opened as a bundle (ZIP) and
/// explored, and read as a TFLite model's metadata.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let bundle = try? ModelBundle(bytes: bytes, name: "fuzz.task", limits: limits) { explore(bundle) }
    if size >= 8, bytes[4..<8].elementsEqual("TFL3".utf8) { exploreMetadata(bytes, "fuzz.tflite") }
    return 0
}

@_cdecl("fuzz_bundle_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
