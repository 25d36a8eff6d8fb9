import Foundation
import Strata
@_spi(StoreTesting) @testable import StrataCore
import Testing

@testable import StrataSQLite

/// The write-ahead log is copied back into the database file by the checkpointer's queue,
/// not by the save that filled it; by the committing connection only when the log has grown
/// past its bound or the checkpointer cannot open its connection.
@Suite struct SQLiteCheckpointTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-checkpoint-\(UUID())")

    init() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The size of the database file itself, without its log.
    func fileSize(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    /// A connection in WAL mode on a new file with one table, as the store's writer is set up.
    func openWriter(_ path: String) throws -> SQLiteConnection {
        let writer = try SQLiteConnection(path: path)
        try writer.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE TABLE page(content BLOB)")
        return writer
    }

    /// Commits `count` transactions of one row of about a page each.
    func commitPages(_ count: Int, on writer: SQLiteConnection) throws {
        for _ in 0..<count { try writer.execute("INSERT INTO page VALUES (zeroblob(4000))") }
    }

    @Test func aCommitPastTheThresholdLeavesTheCopyToTheQueue() throws {
        let path = directory.appendingPathComponent("queue.sqlite").path
        let writer = try openWriter(path)
        let checkpointer = SQLiteCheckpointer(path: path, threshold: 10, inlineThreshold: 1_000)
        checkpointer.install(on: writer)
        defer { checkpointer.uninstall(from: writer) }
        let before = try fileSize(path)
        try checkpointer.holdingQueue {
            try commitPages(30, on: writer)
            #expect(try fileSize(path) == before, "a commit copied the log back itself")
        }
        checkpointer.waitUntilIdle()
        #expect(try fileSize(path) >= before + 30 * 4_000)
    }

    @Test func aLogPastItsBoundIsCopiedBackByTheCommit() throws {
        let path = directory.appendingPathComponent("bound.sqlite").path
        let writer = try openWriter(path)
        let checkpointer = SQLiteCheckpointer(path: path, threshold: 10, inlineThreshold: 100)
        checkpointer.install(on: writer)
        defer { checkpointer.uninstall(from: writer) }
        let before = try fileSize(path)
        try checkpointer.holdingQueue {
            // Each commit logs the new row's page and the table's root.
            try commitPages(20, on: writer)
            #expect(try fileSize(path) == before)
            try commitPages(60, on: writer)
            #expect(try fileSize(path) >= before + 50 * 4_000, "the log grew past its bound while the queue was busy")
        }
    }

    @Test func aCheckpointerWithoutItsConnectionCopiesBackInTheCommit() throws {
        let path = directory.appendingPathComponent("alone.sqlite").path
        let writer = try openWriter(path)
        // Its connection cannot open: there is no file where it looks.
        let checkpointer = SQLiteCheckpointer(path: directory.appendingPathComponent("missing/alone.sqlite").path, threshold: 10, inlineThreshold: 1_000)
        checkpointer.install(on: writer)
        defer { checkpointer.uninstall(from: writer) }
        let before = try fileSize(path)
        try checkpointer.holdingQueue { try commitPages(15, on: writer) }
        checkpointer.waitUntilIdle()
        #expect(try fileSize(path) == before)
        try commitPages(1, on: writer)
        #expect(try fileSize(path) >= before + 15 * 4_000)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("missing").path), "the checkpointer created a file")
    }

    @Test func aStoreSavesReadsAndClosesWithItsLogCopiedBack() throws {
        let url = directory.appendingPathComponent("pictures.store")
        let configuration = ModelConfiguration("checkpoint", schema: Schema([Picture.self]), url: url)
        let caption = String(repeating: "x", count: 2_500)
        do {
            let store = try SQLiteStore(configuration, migrationPlan: nil)
            let checkpointer = try #require(store.checkpointer)
            let before = try fileSize(url.path)
            try checkpointer.holdingQueue {
                var related: [PersistentIdentifier: any BackingData] = [:]
                let snapshots = (0..<2_000).map { DefaultSnapshot(from: Picture(caption: "\($0) \(caption)").persistentBackingData, relatedBackingDatas: &related) }
                _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: snapshots, updated: [], deleted: []))
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
}
