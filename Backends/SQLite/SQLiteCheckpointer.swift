import Dispatch
import Foundation
internal import CSQLite

/// Copies the write-ahead log back into the database file on a connection and queue of its
/// own, so that a save returns once its transaction is committed rather than after the copy.
///
/// SQLite checkpoints by default in the connection that commits, inside the commit: once the
/// log holds 1,000 pages, the save that crossed the mark also writes every logged page into
/// the database file and syncs both files, which for a save of 100,000 rows is about half of
/// its time. SQLite's documentation leaves that to the application ("run checkpoints in a
/// separate thread"); the writer's commit hook here hands the same passive checkpoint to a
/// serial queue instead. Nothing about what is committed changes: a transaction is in the
/// log before its save returns, readers read it from there, and SQLite recovers the log
/// after a crash as it does any other. With `synchronous = NORMAL` a commit was never synced
/// by itself; it still reaches the disk at the next checkpoint's first sync.
///
/// The log is kept bounded when saves come faster than the queue copies: once it holds
/// ``inlineThreshold`` pages, the committing connection checkpoints as SQLite would have.
/// When the checkpointer's own connection cannot be opened, every checkpoint runs inline.
///
/// A process that exits normally (`exit`, or returning from `main`) with a store still open,
/// as command-line tools do, first waits for the checkpoints queued then: otherwise each run
/// of a tool that saves and exits would leave its copy undone, and the log would grow from
/// run to run up to its bound.
final class SQLiteCheckpointer: @unchecked Sendable {
    /// The log's size in pages from which a commit asks for a checkpoint: the library's
    /// `wal_autocheckpoint` setting as the writer found it.
    let threshold: Int32
    /// The log's size in pages from which the committing connection checkpoints itself.
    let inlineThreshold: Int32
    private let path: String
    private let queue = DispatchQueue(label: "Strata.SQLiteStore.checkpoint")
    /// Guards `scheduled` and `unavailable`, which the writer's thread reads in its commit
    /// hook; `connection` is only touched on the queue.
    private let lock = NSLock()
    /// Whether a checkpoint is queued and has not started: commits meanwhile add nothing.
    private var scheduled = false
    /// The checkpointer's connection, opened on the queue at its first checkpoint; `nil`
    /// until then, and for good once opening it failed (`unavailable`).
    private var connection: SQLiteConnection?
    /// Whether opening `connection` failed: every checkpoint then runs in the commit.
    private var unavailable = false

    /// A checkpointer for the database at `path`, to be installed on its writer.
    init(path: String, threshold: Int32, inlineThreshold: Int32) {
        self.path = path
        self.threshold = threshold
        self.inlineThreshold = inlineThreshold
    }

    /// Replaces `writer`'s automatic checkpoint with this checkpointer; ``uninstall(from:)``
    /// must run before the checkpointer is released.
    func install(on writer: SQLiteConnection) {
        sqlite3_wal_hook(writer.handle, { context, database, name, pages in
            guard let context else { return SQLITE_OK }
            Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue()
                .committed(pages: pages, on: database, name: name)
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Removes the commit hook from `writer` and waits for a queued checkpoint to end, then
    /// closes the checkpointer's connection.
    func uninstall(from writer: SQLiteConnection) {
        sqlite3_wal_hook(writer.handle, nil, nil)
        queue.sync { connection = nil }
    }

    /// Waits until no checkpoint is queued or running (for tests).
    func waitUntilIdle() {
        queue.sync {}
    }

    /// Runs `body` while the queue is held, so no checkpoint starts until it returns (for
    /// tests, to tell a checkpoint of the queue from one of the commit).
    func holdingQueue<R>(_ body: () throws -> R) rethrows -> R {
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        queue.async {
            held.signal()
            release.wait()
        }
        held.wait()
        defer { release.signal() }
        return try body()
    }

    /// The writer's commit hook: `pages` is the log's size with the commit in it.
    private func committed(pages: Int32, on database: OpaquePointer?, name: UnsafePointer<CChar>?) {
        guard pages >= threshold else { return }
        if pages >= inlineThreshold || lock.withLock({ unavailable }) {
            sqlite3_wal_checkpoint_v2(database, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return
        }
        let schedule: Bool = lock.withLock {
            defer { scheduled = true }
            return !scheduled
        }
        guard schedule else { return }
        queue.async(group: Self.pending) { [self] in
            lock.withLock { scheduled = false }
            checkpoint()
        }
    }

    /// Occupies the queue for `seconds`, so that a checkpoint asked for meanwhile waits (for tests).
    func occupyQueue(for seconds: Double) {
        queue.async { Thread.sleep(forTimeInterval: seconds) }
    }

    /// One passive checkpoint on the checkpointer's connection, opening it first if needed.
    /// A failure leaves the log as it is, and every committed page in it, for the next one.
    private func checkpoint() {
        if connection == nil {
            do {
                let opened = try SQLiteConnection(path: path, existing: true)
                // A connection reads the journal mode from the file at its first read: until
                // then it would not know the log is there to copy. That read waits, as the
                // store's own connections do, while another connection recovers the log.
                try opened.execute("PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL; PRAGMA schema_version")
                connection = opened
            } catch {
                lock.withLock { unavailable = true }
                return
            }
        }
        guard let connection else { return }
        sqlite3_wal_checkpoint_v2(connection.handle, "main", SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }
}

extension SQLiteCheckpointer {
    /// The checkpoints queued or running in the process, which its exit waits for; the
    /// first use installs the exit handler.
    fileprivate static let pending: DispatchGroup = {
        atexit { SQLiteCheckpointer.pending.wait() }
        return DispatchGroup()
    }()
}
