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
        } catch let error as SQLiteError {
            #expect(error.message.contains("no such table"))
            #expect(error.sql == "SELECT * FROM missing_table")
            #expect(error.path == ":memory:")
        }
    }

    @Test func fileThatIsNotADatabaseIsReportedAndLeftUnchanged() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-not-a-db-\(UUID()).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let original = Data("this is a text file, not a database\n".utf8)
        try original.write(to: url)
        let connection = try SQLiteConnection(path: url.path)
        #expect(throws: SQLiteError.self) { try connection.execute("PRAGMA user_version") }
        #expect(try Data(contentsOf: url) == original)
    }

    @Test func compileOptionsAreReadAtRunTime() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        #expect(!connection.hasCompileOption("STRATA_NO_SUCH_OPTION"))
        #expect(SQLiteConnection.libraryVersion.hasPrefix("3."))
    }
}
