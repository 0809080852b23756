// The one entry point of the fuzz targets. Built with `-DFUZZING` and `-sanitize=fuzzer,address` (Fuzz/run), the
// target is a libFuzzer binary: libFuzzer's driver takes the command line and calls the body with every input it
// makes. Otherwise it is a replay tool: every file named on the command line goes through the body once, so a
// crashing input or a regression corpus can be rerun under the debugger or in an ordinary build.
import Foundation

/// Writes a line to the standard error.
public func fuzzReport(_ line: String) {
    FileHandle.standardError.write(Data(line.utf8))
}

/// The body the driver calls; set once by `fuzzMain`, before any input runs.
nonisolated(unsafe) private var fuzzBody: (UnsafeRawBufferPointer) -> Void = { _ in }

#if FUZZING
    // libFuzzer's documented driver for programs that have their own `main`; its C signature is
    // int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size)).
    @_silgen_name("LLVMFuzzerRunDriver")
    private func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt
#endif

/// Runs `body` on every input: libFuzzer's inputs in a fuzzing build, the files named by the arguments otherwise.
/// Returns the process's exit status.
public func fuzzMain(_ body: @escaping (UnsafeRawBufferPointer) -> Void) -> Int32 {
    fuzzBody = body
    #if FUZZING
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            fuzzBody(UnsafeRawBufferPointer(start: data, count: size))
            return 0
        }
    #else
        let paths = CommandLine.arguments.dropFirst()
        guard !paths.isEmpty else {
            fuzzReport("usage: \(CommandLine.arguments[0]) FILE…   (replays each file through the fuzz body)\n")
            return 2
        }
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                fuzzReport("cannot read \(path)\n")
                return 1
            }
            data.withUnsafeBytes { body($0) }
        }
        print("\(paths.count) inputs ran")
        return 0
    #endif
}
