import Foundation

// SwiftPM links an executable's own `main`; it hands the command line to libFuzzer's driver.
do {
    try FileManager.default.createDirectory(at: JSONLoaderFuzzer.folder, withIntermediateDirectories: true)
    if let corpus = ProcessInfo.processInfo.environment["STRATA_FUZZ_CORPUS"] { try JSONLoaderFuzzer.writeSeed(into: corpus) }
} catch {
    fatalError("the fuzzer could not prepare: \(error)")
}
var arguments = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(runFuzzerDriver(&arguments, &argv) { start, count in
    JSONLoaderFuzzer.run(start.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
})
