/// libFuzzer's driver, linked in by `-sanitize=fuzzer`.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// Runs libFuzzer over `fuzz` with the program's arguments. SwiftPM links an executable's entry
/// point as `<target>_main`, so each fuzz target exports that symbol and calls this.
public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ fuzz: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt {
    var c = argc
    var v = argv
    return LLVMFuzzerRunDriver(&c, &v, fuzz)
}
