import CFuzzer
import Foundation

/// Runs libFuzzer's driver over `check` with the program's arguments (libFuzzer's flags and corpus
/// folders) and exits with its status: every fuzzer's `main`.
public func runFuzzer(_ check: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, check))
}

/// The input libFuzzer passes, as `Data` (it passes a null pointer for the empty input).
public func input(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Data {
    guard let start, count > 0 else { return Data() }
    return Data(bytes: start, count: count)
}
