import Foundation
import Testing

@testable import StrataSQLite

@Suite struct SQLiteConnectionTests {
    @Test func inMemoryDatabaseRunsStatements() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (41), (1);")
        #expect(try connection.scalarText("SELECT sum(x) FROM t") == "42")
        #expect(try connection.scalarText("SELECT x FROM t WHERE x > 100") == nil)
    }

    @Test func failingSQLBecomesATypedErrorWithTheStatement() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        do {
            try connection.execute("SELECT * FROM missing_table")
            Issue.record("a query on a missing table must fail")
        } catch let error as SQLiteStoreError {
            guard case .sqlite(let code, let message, let sql, let path) = error else {
                Issue.record("expected a SQLite error, got \(error)")
                return
            }
            #expect(code == .error)
            #expect(error.resultCode == .error)
            #expect(message.contains("no such table"))
            #expect(sql == "SELECT * FROM missing_table")
            #expect(error.sql == sql)
            #expect(path == ":memory:")
        }
    }

    @Test func fileThatIsNotADatabaseIsReportedAndLeftUnchanged() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-not-a-db-\(UUID()).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let original = Data("this is a text file, not a database\n".utf8)
        try original.write(to: url)
        let connection = try SQLiteConnection(path: url.path)
        #expect { try connection.execute("PRAGMA user_version") } throws: { SQLiteStoreError.ResultCode.notADB ~= $0 }
        #expect(try Data(contentsOf: url) == original)
    }

    @Test func resultCodesMatchTheirPrimaryKind() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t(x INTEGER UNIQUE); INSERT INTO t VALUES (1)")
        do {
            try connection.execute("INSERT INTO t VALUES (1)")
            Issue.record("a duplicate in a UNIQUE column must fail")
        } catch SQLiteStoreError.ResultCode.constraint {
            // A primary code matches the extended code SQLite reported.
        }
        do {
            try connection.execute("INSERT INTO t VALUES (1)")
        } catch let error as SQLiteStoreError where error.resultCode == .constraint {
            #expect(error.extendedResultCode == .constraintUnique)
            #expect(SQLiteStoreError.ResultCode.constraintUnique ~= error)
            #expect(!(SQLiteStoreError.ResultCode.constraintNotNull ~= error))
            #expect(error.sql == "INSERT INTO t VALUES (1)")
        }
        #expect(SQLiteStoreError.readOnly(path: "x").resultCode == .readonly)
        #expect(SQLiteStoreError.corruptValue(table: "t", column: "x", expected: "int").resultCode == nil)
    }

    @Test func aTransactionRollsBackWhenItsBodyThrows() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t(x INTEGER)")
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (1)")
                throw Stop()
            }
        }
        #expect(try connection.scalarText("SELECT count(*) FROM t") == "0")
        try connection.transaction { try connection.execute("INSERT INTO t VALUES (2)") }
        #expect(try connection.scalarText("SELECT sum(x) FROM t") == "2")
    }

    @Test func compileOptionsAreReadAtRunTime() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        #expect(!connection.hasCompileOption("STRATA_NO_SUCH_OPTION"))
        #expect(SQLiteConnection.libraryVersion.hasPrefix("3."))
    }
}
