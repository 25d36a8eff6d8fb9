import Foundation
import StrataCore
import StrataJSON
import StrataTesting

/// libFuzzer's entry points over the JSON store's loader.
///
/// Each input is written as a store document and opened: it must open, or fail with a typed
/// error and leave the file as it was; an opened one is read in full (every model, its
/// relationships, the history), which must succeed or fail with a typed error. Anything else
/// — a trap, an untyped error, a changed file — stops the fuzzer with the input saved.
enum JSONLoaderFuzzer {
    static let schema = Schema(LoadRun.schema.entities.compactMap(\.modelType) + CrashLoop.schema.entities.compactMap(\.modelType))
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-libfuzzer-\(getpid())")
    static let document = folder.appendingPathComponent("fuzz.json")

    static func configuration(_ url: URL) -> JSONStoreConfiguration {
        JSONStoreConfiguration(schema: schema, url: url)
    }

    /// Writes a valid document with every shape the schema has into `corpus`, if given.
    static func writeSeed(into corpus: String) throws {
        let url = URL(fileURLWithPath: corpus).appendingPathComponent("seed.json")
        guard !FileManager.default.fileExists(atPath: url.path) else { return }
        let staging = folder.appendingPathComponent("seed.json")
        let container = try ModelContainer(for: schema, configurations: configuration(staging))
        try LoadRun.prepare(ModelContext(container))
        let context = ModelContext(container)
        _ = try LoadRun.write(writer: 0, in: context, for: .milliseconds(20))
        context.insert(CrashEntry(sequence: 7))
        try context.save()
        try FileManager.default.copyItem(at: staging, to: url)
    }

    static func run(_ bytes: Data) {
        do {
            try bytes.write(to: document)
        } catch {
            fatalError("the fuzzer could not write its input: \(error)")
        }
        let container: ModelContainer
        do {
            container = try ModelContainer(for: schema, configurations: configuration(document))
        } catch is JSONStoreError, is SwiftDataError, is DataStoreError {
            guard (try? Data(contentsOf: document)) == bytes else { fatalError("a refused document changed") }
            return
        } catch {
            fatalError("an untyped error opening a document: \(type(of: error)): \(error)")
        }
        do {
            let context = ModelContext(container)
            for account in try context.fetch(FetchDescriptor<LoadAccount>()) {
                _ = (account.number, account.entries.map { ($0.writer, $0.sequence, $0.account?.number) })
            }
            for board in try context.fetch(FetchDescriptor<LoadBoard>()) { _ = (board.name, board.w0, board.w9) }
            for entry in try context.fetch(FetchDescriptor<CrashEntry>()) { _ = (entry.sequence, entry.payload) }
            _ = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        } catch is JSONStoreError, is SwiftDataError, is DataStoreError {
            return
        } catch {
            fatalError("an untyped error reading an opened document: \(type(of: error)): \(error)")
        }
    }
}

/// libFuzzer's driver, which parses its options from the command line and runs `callback`
/// on each input.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
