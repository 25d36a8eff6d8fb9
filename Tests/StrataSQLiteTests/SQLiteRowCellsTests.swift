import Foundation
import StrataCore
import Testing

@testable import StrataSQLite

/// A row read from its first column's value at the measured spacing
/// (``SQLiteStatement/cells(spacedBy:)``) reads as the same row asked of SQLite column by
/// column, in every shape of query.
@Suite struct SQLiteRowCellsTests {
    /// A table of every storage class, NULLs among them, and a second table to join.
    private func database() throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute(
            """
            CREATE TABLE t(_pk INTEGER PRIMARY KEY, name TEXT, score REAL, flag INTEGER, owner INTEGER, note TEXT, raw BLOB);
            INSERT INTO t VALUES
                (1, 'alpha', 1.5, 1, 7, NULL, x'00ff'),
                (2, 'bravo', NULL, 0, NULL, 'b', NULL),
                (3, NULL, -2.25, NULL, 9, '3', x''),
                (4, 'délta', 1e300, 1, 7, 'a longer note than the others', x'0102030405'),
                (5, '', 0.0, 0, 5, '', NULL);
            CREATE TABLE u(_pk INTEGER PRIMARY KEY, t INTEGER, label TEXT);
            INSERT INTO u VALUES (10, 1, 'one'), (11, 1, 'uno'), (12, 4, 'four');
            """)
        return connection
    }

    /// Every shape the store's readers run, and some they do not: a sort through SQLite's
    /// sorter, a compound select (whose rows come from two result instructions), a join,
    /// expressions, an aggregate, a subquery and a window.
    private static let shapes = [
        "SELECT _pk, name, score, flag, owner, note, raw FROM t",
        "SELECT _pk, name, score, flag, owner, note, raw FROM t ORDER BY note DESC, score",
        "SELECT _pk, name, score FROM t WHERE flag = 1 UNION ALL SELECT _pk, label, t FROM u",
        "SELECT t._pk, u.label, t.score, u.t FROM t JOIN u ON u.t = t._pk ORDER BY u._pk",
        "SELECT _pk * 2, upper(name), score / 2, flag IS NULL, coalesce(owner, -1) FROM t",
        "SELECT owner, count(*), max(score), group_concat(name) FROM t GROUP BY owner",
        "SELECT _pk, (SELECT count(*) FROM u WHERE u.t = t._pk), name FROM t LIMIT 3 OFFSET 1",
        "SELECT _pk, name, row_number() OVER (ORDER BY score) FROM t",
    ]

    private static let kinds: [PersistentValue.Kind] = [.string, .double, .date, .int, .bool]

    @Test(arguments: shapes)
    func aRowReadAtItsSpacingReadsAsTheRowAskedColumnByColumn(_ sql: String) throws {
        let connection = try database()
        let statement = try connection.prepare(sql)
        let template = try PersistentIdentifier.identifier(for: "cells", entityName: "Owner", primaryKey: 0)
        var spacing: Int?? = .none
        var rows = 0
        while try statement.step() {
            if case .none = spacing { spacing = .some(statement.columnValueSpacing()) }
            // SQLite keeps a result row in consecutive registers, so the fast path is taken.
            #expect(spacing! != nil, "no spacing measured for \(sql)")
            let cells = statement.cells(spacedBy: spacing!)
            let asked = statement.cells(spacedBy: nil)
            for column in 0..<statement.columnCount {
                for kind in Self.kinds {
                    #expect(cells.value(at: column, kind: kind) == asked.value(at: column, kind: kind), "\(sql): column \(column) as \(kind)")
                }
                #expect(cells.identifier(at: column, as: template) == asked.identifier(at: column, as: template), "\(sql): column \(column)")
                #expect(cells.int64(column) == statement.int64(column), "\(sql): column \(column)")
            }
            rows += 1
        }
        #expect(rows > 0)
    }

    @Test func aRowOfOneColumnHasNoSpacingAndIsAskedOfSQLite() throws {
        let connection = try database()
        let statement = try connection.prepare("SELECT name FROM t ORDER BY _pk")
        var names: [PersistentValue?] = []
        while try statement.step() {
            #expect(statement.columnValueSpacing() == nil)
            names.append(statement.cells(spacedBy: nil).value(at: 0, kind: .string))
        }
        #expect(names == [.string("alpha"), .string("bravo"), nil, .string("délta"), .string("")])
    }

    @Test func withoutASpacingEveryColumnIsAskedOfSQLite() throws {
        let connection = try database()
        let statement = try connection.prepare("SELECT _pk, score, owner FROM t WHERE _pk = 4")
        #expect(try statement.step())
        let cells = statement.cells(spacedBy: nil)
        #expect(cells.int64(0) == 4)
        #expect(cells.value(at: 1, kind: .double) == .double(1e300))
        let template = try PersistentIdentifier.identifier(for: "cells", entityName: "Owner", primaryKey: 0)
        #expect(cells.identifier(at: 2, as: template) == .identifier(template.replacingPrimaryKey(7)))
    }
}
