import Foundation
import Testing

@testable import StrataCore
@testable import StrataSQLite

/// A connection with Strata's functions and collations registered.
private func connection() throws -> SQLiteConnection {
    let connection = try SQLiteConnection(path: ":memory:")
    try SQLiteFunctions.register(on: connection)
    return connection
}

/// The single value `sql` selects with `bindings`.
private func scalar(_ sql: String, _ bindings: [SQLiteValue] = [], on connection: SQLiteConnection) throws -> SQLiteValue {
    let statement = try connection.prepare(sql)
    try statement.bind(bindings)
    #expect(try statement.step())
    return statement.column(0)
}

@Suite struct SQLiteFunctionsTests {
    @Test func localizedStandardContainsIgnoresCaseAndDiacritics() throws {
        let db = try connection()
        let sql = "SELECT strata_localized_standard_contains(?, ?)"
        #expect(try scalar(sql, [.text("Hotel Zürich"), .text("zur")], on: db) == .integer(1))
        #expect(try scalar(sql, [.text("Musée d'Orsay"), .text("MUSEE")], on: db) == .integer(1))
        #expect(try scalar(sql, [.text("Ryokan Ōsaka"), .text("osaka")], on: db) == .integer(1))
        #expect(try scalar(sql, [.text("Rome"), .text("paris")], on: db) == .integer(0))
    }

    @Test func localizedStandardContainsIsFalseForAnEmptyNeedleAndNullForNil() throws {
        let db = try connection()
        let sql = "SELECT strata_localized_standard_contains(?, ?)"
        #expect(try scalar(sql, [.text("Rome"), .text("")], on: db) == .integer(0))
        #expect(try scalar(sql, [.text(""), .text("")], on: db) == .integer(0))
        #expect(try scalar(sql, [.null, .text("a")], on: db) == .null)
        #expect(try scalar(sql, [.text("a"), .null], on: db) == .null)
    }

    @Test func compareFunctionsReturnFoundationsOrder() throws {
        let db = try connection()
        let pairs = [("a", "B"), ("B", "a"), ("abc", "ABC"), ("file10", "file9"), ("é", "f"), ("", "a"), ("Zürich", "zurich")]
        for (a, b) in pairs {
            let results = try ["strata_case_insensitive_compare", "strata_localized_compare", "strata_localized_standard_compare"].map {
                try scalar("SELECT \($0)(?, ?)", [.text(a), .text(b)], on: db)
            }
            let expected: [SQLiteValue] = [a.caseInsensitiveCompare(b), a.localizedCompare(b), a.localizedStandardCompare(b)]
                .map { .integer(Int64($0.rawValue)) }
            #expect(results == expected, "\(a) vs \(b)")
        }
        #expect(try scalar("SELECT strata_case_insensitive_compare(?, ?)", [.text("abc"), .text("ABC")], on: db) == .integer(0))
        #expect(try scalar("SELECT strata_localized_standard_compare(?, ?)", [.text("file10"), .text("file9")], on: db) == .integer(1))
        #expect(try scalar("SELECT strata_localized_compare(NULL, ?)", [.text("a")], on: db) == .null)
    }

    @Test func characterCountCountsGraphemeClusters() throws {
        let db = try connection()
        for text in ["", "Rome", "Zürich", "cafe\u{301}", "👍🏽", "🇨🇭 flag"] {
            #expect(try scalar("SELECT strata_character_count(?)", [.text(text)], on: db) == .integer(Int64(text.count)), "\(text)")
        }
        #expect(try scalar("SELECT length(?)", [.text("👍🏽")], on: db) == .integer(2), "SQLite's own length counts code points")
        #expect(try scalar("SELECT strata_character_count(NULL)", on: db) == .null)
    }

    @Test(arguments: [FilterStringOrder.caseInsensitive, .localized, .localizedStandard])
    func collationsSortAsFoundationCompares(_ order: FilterStringOrder) throws {
        let db = try connection()
        let words = ["file10", "File9", "zebra", "Äpfel", "apple", "Zürich", "zurich", "", "éclair", "Eclair", "b", "B"]
        try db.execute("CREATE TABLE words (word TEXT)")
        for word in words {
            let insert = try db.prepare("INSERT INTO words VALUES (?)")
            try insert.bind([.text(word)])
            try insert.run()
        }
        let statement = try db.prepare("SELECT word FROM words ORDER BY word COLLATE \(SQLiteFunctions.Name.collation(order)), rowid")
        var sorted: [String] = []
        while try statement.step() {
            if case .text(let word) = statement.column(0) { sorted.append(word) }
        }
        func compare(_ a: String, _ b: String) -> ComparisonResult {
            switch order {
            case .caseInsensitive: a.caseInsensitiveCompare(b)
            case .localized: a.localizedCompare(b)
            case .localizedStandard: a.localizedStandardCompare(b)
            }
        }
        // Stable sort on insertion order, as `rowid` breaks ties in SQL.
        let expected = words.enumerated().sorted { lhs, rhs in
            let order = compare(lhs.element, rhs.element)
            return order == .orderedSame ? lhs.offset < rhs.offset : order == .orderedAscending
        }.map(\.element)
        #expect(sorted == expected)
    }

    @Test func registeringTwiceReplacesTheFunctions() throws {
        let db = try connection()
        try SQLiteFunctions.register(on: db)
        #expect(try scalar("SELECT strata_localized_standard_contains('Zürich', 'ZU')", on: db) == .integer(1))
    }
}
