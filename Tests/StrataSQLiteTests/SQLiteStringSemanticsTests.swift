import Foundation
import Strata
import Testing

@testable import StrataSQLite

/// A code list whose codes are unique and whose titles are indexed.
@Model final class Glyph {
    @Attribute(.unique) var code: String
    var title: String
    #Index<Glyph>([\.title])

    init(code: String, title: String) {
        self.code = code
        self.title = title
    }
}

/// SQLite compares strings as Swift does: under the `strata_canonical` collation, which its
/// string indexes use too, and which format-1 stores get when they are next opened for writing.
@Suite struct SQLiteStringSemanticsTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-strings-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func container(_ url: URL, allowsSave: Bool = true) throws -> ModelContainer {
        try ModelContainer(for: Glyph.self, configurations: ModelConfiguration(url: url, allowsSave: allowsSave))
    }

    func indexSQL(_ url: URL) throws -> [String] {
        let connection = try SQLiteConnection(path: url.path, readOnly: true)
        var rows: [String] = []
        let statement = try connection.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Glyph' AND sql IS NOT NULL ORDER BY name")
        while try statement.step() { if case .text(let sql) = statement.column(0) { rows.append(sql) } }
        return rows
    }

    /// Turns a store back into what format 1 wrote: string indexes by bytes.
    func downgradeToFormatOne(_ url: URL) throws {
        let connection = try SQLiteConnection(path: url.path)
        try connection.execute(#"""
            DROP INDEX "Glyph_unique_code"; CREATE UNIQUE INDEX "Glyph_unique_code" ON "Glyph" ("code");
            DROP INDEX "Glyph_index_title"; CREATE INDEX "Glyph_index_title" ON "Glyph" ("title");
            UPDATE "_strata_metadata" SET "value" = '1' WHERE "key" = 'format'
            """#)
    }

    @Test func stringIndexesUseTheCanonicalCollationAndServeEqualityLookups() throws {
        let url = directory.appendingPathComponent("new.store")
        let context = ModelContext(try container(url))
        context.insert(Glyph(code: "\u{E9}", title: "Caf\u{E9}"))
        try context.save()
        #expect(try indexSQL(url).allSatisfy { $0.contains("COLLATE strata_canonical") })
        let plan = context.explain(FetchDescriptor<Glyph>(predicate: #Predicate { $0.title == "Cafe\u{301}" }))
        #expect(plan.contains("USING INDEX Glyph_index_title"), "the lookup does not use the index:\n\(plan)")
        #expect(try context.fetch(FetchDescriptor<Glyph>(predicate: #Predicate { $0.title == "Cafe\u{301}" })).count == 1)
    }

    @Test func aFormatOneStoreGetsCanonicalIndexesWhenOpenedForWriting() throws {
        let url = directory.appendingPathComponent("old.store")
        do {
            let context = ModelContext(try container(url))
            context.insert(Glyph(code: "A\u{30A}", title: "ring"))
            try context.save()
        }
        try downgradeToFormatOne(url)

        // Read-only: nothing is written, and queries are exact without the index.
        do {
            let reader = ModelContext(try container(url, allowsSave: false))
            #expect(try reader.fetchCount(FetchDescriptor<Glyph>(predicate: #Predicate { $0.code == "\u{C5}" })) == 1)
        }
        #expect(try indexSQL(url).allSatisfy { !$0.contains("strata_canonical") })

        let context = ModelContext(try container(url))
        #expect(try indexSQL(url).allSatisfy { $0.contains("COLLATE strata_canonical") })
        #expect(try SQLiteConnection(path: url.path).scalarText(#"SELECT "value" FROM "_strata_metadata" WHERE "key" = 'format'"#) == "2")
        context.insert(Glyph(code: "\u{212B}", title: "sign"))
        try context.save()
        #expect(try ModelContext(try container(url)).fetch(FetchDescriptor<Glyph>()).map(\.title) == ["sign"])
    }

    @Test func aFormatOneStoreWhoseRowsBreakCanonicalUniquenessKeepsThemAll() throws {
        let url = directory.appendingPathComponent("duplicates.store")
        do {
            let context = ModelContext(try container(url))
            context.insert(Glyph(code: "\u{C5}", title: "composed"))
            try context.save()
        }
        try downgradeToFormatOne(url)
        // Another writer, comparing bytes, added a canonically equal code.
        try SQLiteConnection(path: url.path).execute(#"INSERT INTO "Glyph" ("_pk", "code", "title") VALUES (99, 'A' || char(778), 'decomposed')"#)

        let context = ModelContext(try container(url))
        #expect(try context.fetch(FetchDescriptor<Glyph>(sortBy: [SortDescriptor(\.title)])).map(\.title) == ["composed", "decomposed"])
        let unique = try indexSQL(url).first { $0.contains("Glyph_unique_code") }
        #expect(unique?.contains("strata_canonical") == false, "the unique index was rebuilt over rows that break it")
        #expect(try indexSQL(url).first { $0.contains("Glyph_index_title") }?.contains("strata_canonical") == true)
    }
}
