import Foundation
import Strata
@_spi(StoreTesting) @testable import StrataCore
import Testing

@testable import StrataSQLite

/// The write-ahead log is copied back into the database file by the checkpointer's queue,
/// not by the save that filled it; by the committing connection only when the log has grown
/// past its bound or the checkpointer cannot open its connection.
///
/// A class, so that each test's files (several megabytes) go with its instance.
@Suite final class SQLiteCheckpointTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-checkpoint-\(UUID())")

    init() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A writer in WAL mode on a new file with one table, as the store's writer is set up,
    /// with a checkpointer installed on it until the value is released.
    final class Writer {
        let path: String
        let connection: SQLiteConnection
        let checkpointer: SQLiteCheckpointer
        /// The file's size before the first commit.
        let initialSize: Int

        /// `checkpointerPath` is where the checkpointer opens its connection: the writer's file unless given.
        init(_ path: String, inlineThreshold: Int32 = 1_000, checkpointerPath: String? = nil) throws {
            self.path = path
            connection = try SQLiteConnection(path: path)
            try connection.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE TABLE page(content BLOB)")
            checkpointer = SQLiteCheckpointer(path: checkpointerPath ?? path, threshold: 10, inlineThreshold: inlineThreshold)
            checkpointer.install(on: connection)
            initialSize = try fileSize(path)
        }

        deinit { checkpointer.uninstall(from: connection) }

        /// Commits `count` transactions of one row of about a page each; each logs the row's
        /// page and the table's root.
        func commitPages(_ count: Int) throws {
            for _ in 0..<count { try connection.execute("INSERT INTO page VALUES (zeroblob(4000))") }
        }

        /// How much the database file itself, without its log, grew since the first commit.
        func growth() throws -> Int { try fileSize(path) - initialSize }
    }

    @Test func aCommitPastTheThresholdLeavesTheCopyToTheQueue() throws {
        let writer = try Writer(directory.appendingPathComponent("queue.sqlite").path)
        try writer.checkpointer.holdingQueue {
            try writer.commitPages(30)
            #expect(try writer.growth() == 0, "a commit copied the log back itself")
        }
        writer.checkpointer.waitUntilIdle()
        #expect(try writer.growth() >= 30 * 4_000)
    }

    @Test func aLogPastItsBoundIsCopiedBackByTheCommit() throws {
        let writer = try Writer(directory.appendingPathComponent("bound.sqlite").path, inlineThreshold: 100)
        try writer.checkpointer.holdingQueue {
            try writer.commitPages(20)
            #expect(try writer.growth() == 0)
            try writer.commitPages(60)
            #expect(try writer.growth() >= 50 * 4_000, "the log grew past its bound while the queue was busy")
        }
    }

    @Test func aCheckpointerWithoutItsConnectionCopiesBackInTheCommit() throws {
        // Its connection cannot open: there is no file where it looks.
        let missing = directory.appendingPathComponent("missing")
        let writer = try Writer(directory.appendingPathComponent("alone.sqlite").path, checkpointerPath: missing.appendingPathComponent("alone.sqlite").path)
        try writer.checkpointer.holdingQueue { try writer.commitPages(15) }
        writer.checkpointer.waitUntilIdle()
        #expect(try writer.growth() == 0)
        try writer.commitPages(1)
        #expect(try writer.growth() >= 15 * 4_000)
        #expect(!FileManager.default.fileExists(atPath: missing.path), "the checkpointer created a file")
    }

    @Test func aStoreSavesReadsAndClosesWithItsLogCopiedBack() throws {
        let url = directory.appendingPathComponent("pictures.store")
        let configuration = ModelConfiguration("checkpoint", schema: Schema([Picture.self]), url: url)
        do {
            let store = try SQLiteStore(configuration, migrationPlan: nil)
            let checkpointer = try #require(store.checkpointer)
            let before = try fileSize(url.path)
            try checkpointer.holdingQueue {
                try savePictures(2_000, into: store)
                #expect(try fileSize(url.path) == before, "the save copied its pages back itself")
                // Committed is readable, from the log.
                let count = try store.read { connection in
                    try connection.scalarText(#"SELECT count(*) FROM "Picture" WHERE length(caption) > 2500"#)
                }
                #expect(count == "2000")
            }
            checkpointer.waitUntilIdle()
            #expect(try fileSize(url.path) >= before + 2_000 * 2_500)
        }
        // The store's connections, the checkpointer's among them, are closed: the last one
        // copied the rest back and removed the log.
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        let reopened = try SQLiteStore(configuration, migrationPlan: nil)
        let captions = try reopened.read { connection in
            try connection.scalarText(#"SELECT count(DISTINCT caption) FROM "Picture""#)
        }
        #expect(captions == "2000")
    }

    @Test func aProcessThatExitsWithItsStoreOpenFinishesTheCheckpointFirst() async throws {
        let url = directory.appendingPathComponent("exit.store")
        await #expect(processExitsWith: .success) { [path = url.path as String] in
            let store = try SQLiteStore(ModelConfiguration("exit", schema: Schema([Picture.self]), url: URL(fileURLWithPath: path)), migrationPlan: nil)
            // The checkpoint the save asks for waits behind this, past the save's return.
            store.checkpointer?.occupyQueue(for: 0.3)
            try savePictures(2_000, into: store)
            exit(0)  // as a command-line tool does, with the store still open
        }
        #expect(try fileSize(url.path) >= 2_000 * 2_500, "the process exited before the log was copied back")
    }
}

/// Saves `count` pictures of about 2,500 bytes each into `store` in one save: a log of
/// more than 1,000 pages.
private func savePictures(_ count: Int, into store: SQLiteStore) throws {
    let caption = String(repeating: "x", count: 2_500)
    var related: [PersistentIdentifier: any BackingData] = [:]
    let snapshots = (0..<count).map { DefaultSnapshot(from: Picture(caption: "\($0) \(caption)").persistentBackingData, relatedBackingDatas: &related) }
    _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: snapshots, updated: [], deleted: []))
}

/// The size of the database file at `path` itself, without its log.
private func fileSize(_ path: String) throws -> Int {
    try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
}
