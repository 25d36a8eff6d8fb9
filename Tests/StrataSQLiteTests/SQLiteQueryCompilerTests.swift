import Foundation
import Testing

@testable import StrataCore
@testable import StrataSQLite

private func property(_ path: String...) -> FilterExpression { .property(variable: 0, path: path) }
private func element(_ variable: Int, _ path: String...) -> FilterExpression { .property(variable: variable, path: path) }
private func string(_ text: String) -> FilterExpression { .value(.string(text)) }
private func eq(_ lhs: FilterExpression, _ rhs: FilterExpression) -> FilterExpression { .comparison(.equal, lhs, rhs) }
private func identifier(_ entity: String, _ key: Int64, store: String = "main") -> PersistentValue {
    .identifier(try! .identifier(for: store, entityName: entity, primaryKey: key))
}

/// A compiler over the trips schema of `CompilerTestModels.swift`.
private func tripsCompiler() -> SQLiteQueryCompiler {
    let schema = Schema([Trip.self, BucketListItem.self, LivingAccommodation.self, Traveler.self, Specimen.self])
    return SQLiteQueryCompiler(mapping: SQLiteSchemaMapping(schema: schema), storeIdentifier: "main")
}

/// The `WHERE` condition of `filter` on `entity`.
private func condition(_ filter: FilterExpression, _ entity: String = "Trip") throws -> SQLiteQuery {
    try tripsCompiler().whereClause(filter, entity: entity)
}

/// A schema with awkward names, and a relationship to an entity of another store.
private func oddSchema() -> Schema {
    Schema(
        Schema.Entity("Odd \"Table\"", properties: [
            Schema.Attribute(name: "order", valueType: Int.self),
            Schema.Attribute(name: "say \"hi\"", valueType: String?.self),
            Schema.Relationship(
                name: "contact", valueType: Any.self, destination: "Contact", isToOneRelationship: true, isOptional: true),
        ]))
}

@Suite struct SQLiteQueryCompilerTests {
    // MARK: Statements

    @Test func keyListsAreJSONArraysOfEveryKeyInOrder() throws {
        #expect(SQLiteQueryCompiler.jsonArray(of: []) == "[]")
        #expect(SQLiteQueryCompiler.jsonArray(of: [0]) == "[0]")
        // Each number of digits, both signs, and the ends of the range.
        var keys: [Int64] = [.max, .min, -1, 9, 10, 99, 100]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            keys += [power - 1, power, -power, -(power - 1)]
        }
        let list = SQLiteQueryCompiler.jsonArray(of: keys)
        #expect(list == "[" + keys.map(String.init).joined(separator: ",") + "]")
        let decoded = try JSONDecoder().decode([Int64].self, from: Data(list.utf8))
        #expect(decoded == keys)
    }

    @Test func identifiersAreQuotedWithInnerQuotesDoubled() {
        #expect(SQLIdentifier.quote("Trip") == "\"Trip\"")
        #expect(SQLIdentifier.quote("say \"hi\"") == "\"say \"\"hi\"\"\"")
        // A quote that a combining mark joins into one Character is still doubled.
        #expect(SQLIdentifier.quote("a\"\u{301}b") == "\"a\"\"\u{301}b\"")
    }

    @Test func selectFiltersSortsAndEndsWithThePrimaryKey() throws {
        let query = try tripsCompiler().select(
            entity: "Trip", columns: ["t0.\"_pk\"", "t0.\"name\""], filter: eq(property("name"), string("Paris")),
            sort: [FilterSortKey(path: ["name"], ascending: true, stringOrder: .localizedStandard),
                   FilterSortKey(path: ["startDate"], ascending: false, stringOrder: nil)],
            limit: 10, offset: 20)
        #expect(query.sql == #"SELECT t0."_pk", t0."name" FROM "Trip" AS t0 WHERE t0."name" COLLATE strata_canonical = ? ORDER BY t0."name" COLLATE strata_localized_standard ASC, t0."startDate" DESC, t0."_pk" LIMIT ? OFFSET ?"#)
        #expect(query.bindings == [.text("Paris"), .integer(10), .integer(20)])
    }

    @Test func identifiersWithoutFilterOrSortAreInKeyOrder() throws {
        let query = try tripsCompiler().identifiers(entity: "Trip", filter: nil, sort: [], limit: nil, offset: nil)
        #expect(query.sql == #"SELECT t0."_pk" FROM "Trip" AS t0 ORDER BY t0."_pk""#)
        #expect(query.bindings.isEmpty)
    }

    @Test func offsetWithoutLimitUsesLimitMinusOne() throws {
        let compiler = tripsCompiler()
        let offsetOnly = try compiler.identifiers(entity: "Trip", filter: nil, sort: [], limit: nil, offset: 3)
        #expect(offsetOnly.sql.hasSuffix(#"ORDER BY t0."_pk" LIMIT -1 OFFSET ?"#))
        #expect(offsetOnly.bindings == [.integer(3)])
        let limitOnly = try compiler.identifiers(entity: "Trip", filter: nil, sort: [], limit: 5, offset: nil)
        #expect(limitOnly.sql.hasSuffix(#"ORDER BY t0."_pk" LIMIT ?"#))
        #expect(limitOnly.bindings == [.integer(5)])
    }

    @Test func countCountsRowsOrTheLimitedPage() throws {
        let compiler = tripsCompiler()
        let all = try compiler.count(entity: "Trip", filter: eq(property("name"), string("Rome")), limit: nil, offset: nil)
        #expect(all.sql == #"SELECT COUNT(*) FROM "Trip" AS t0 WHERE t0."name" COLLATE strata_canonical = ?"#)
        let page = try compiler.count(entity: "Trip", filter: eq(property("name"), string("Rome")), limit: 2, offset: 1)
        #expect(page.sql == #"SELECT COUNT(*) FROM (SELECT t0."_pk" FROM "Trip" AS t0 WHERE t0."name" COLLATE strata_canonical = ? LIMIT ? OFFSET ?)"#)
        #expect(page.bindings == [.text("Rome"), .integer(2), .integer(1)])
    }

    @Test func deleteSelectsKeysWithTheFilter() throws {
        let compiler = tripsCompiler()
        let filtered = try compiler.delete(entity: "Trip", filter: eq(property("name"), string("Rome")))
        #expect(filtered.sql == #"DELETE FROM "Trip" WHERE "_pk" IN (SELECT t0."_pk" FROM "Trip" AS t0 WHERE t0."name" COLLATE strata_canonical = ?)"#)
        #expect(filtered.bindings == [.text("Rome")])
        #expect(try compiler.delete(entity: "Trip", filter: nil).sql == #"DELETE FROM "Trip""#)
    }

    // MARK: Comparisons

    @Test func equalityWithNilIsNullSafe() throws {
        #expect(try condition(eq(property("nickname"), .value(.null)), "Traveler").sql == #"t0."nickname" IS NULL"#)
        let notAnnie = try condition(.comparison(.notEqual, property("nickname"), string("annie")), "Traveler")
        #expect(notAnnie.sql == #"t0."nickname" COLLATE strata_canonical IS NOT ?"#)
        #expect(notAnnie.bindings == [.text("annie")])
    }

    @Test func orderingComparisonsArePlain() throws {
        let query = try condition(.comparison(.greaterOrEqual, property("optionalInt"), .value(.int(3))), "Specimen")
        #expect(query.sql == #"t0."optionalInt" >= ?"#)
        #expect(query.bindings == [.integer(3)])
    }

    @Test func decimalsCompareAsReal() throws {
        let query = try condition(.comparison(.greater, property("decimal"), .value(.decimal(Decimal(string: "1.5")!))), "Specimen")
        #expect(query.sql == #"CAST(t0."decimal" AS REAL) > CAST(? AS REAL)"#)
        #expect(query.bindings == [.text("1.5")])
    }

    @Test func booleansBindAsIntegers() throws {
        let query = try condition(.and(property("isInPlan"), eq(property("hasReservation"), .value(.bool(false)))), "BucketListItem")
        #expect(query.sql == #"t0."isInPlan" AND (t0."hasReservation" = ?)"#)
        #expect(query.bindings == [.integer(0)])
    }

    @Test func identifiersBindAsPrimaryKeys() throws {
        let query = try condition(eq(property("livingAccommodation"), .value(identifier("LivingAccommodation", 7))))
        #expect(query.sql == #"t0."livingAccommodation" IS ?"#)
        #expect(query.bindings == [.integer(7)])
        let own = try condition(eq(property(), .value(identifier("Trip", 3))))
        #expect(own.sql == #"t0."_pk" = ?"#)
        #expect(own.bindings == [.integer(3)])
    }

    @Test func identifiersOfAnotherEntityOrStoreNeverMatch() throws {
        #expect(try condition(eq(property("livingAccommodation"), .value(identifier("Trip", 7)))).sql == "0")
        #expect(try condition(eq(property(), .value(identifier("Trip", 7, store: "other")))).sql == "0")
        #expect(try condition(.comparison(.notEqual, property(), .value(identifier("Trip", 7, store: "other")))).sql == "1")
    }

    @Test func rangeTestsGuardNilOperands() throws {
        let constant = try condition(
            .rangeContains(lower: .value(.int(0)), upper: .value(.int(10)), closed: false, element: property("int")), "Specimen")
        #expect(constant.sql == #"t0."int" >= ? AND t0."int" < ?"#)
        let optional = try condition(
            .rangeContains(lower: .value(.int(0)), upper: .value(.int(10)), closed: true, element: property("optionalInt")), "Specimen")
        #expect(optional.sql == #"CASE WHEN t0."optionalInt" IS NULL THEN NULL ELSE t0."optionalInt" >= ? AND t0."optionalInt" <= ? END"#)
    }

    // MARK: Paths and collections

    @Test func toOneHopsAreCorrelatedSubqueries() throws {
        let query = try condition(eq(property("trip", "livingAccommodation", "placeName"), string("Airbnb")), "BucketListItem")
        #expect(query.sql == #"(SELECT t2."placeName" FROM "LivingAccommodation" AS t2 WHERE t2."_pk" = (SELECT t1."livingAccommodation" FROM "Trip" AS t1 WHERE t1."_pk" = t0."trip")) COLLATE strata_canonical IS ?"#)
    }

    @Test func anyAndAllSatisfyBecomeExistsSubqueries() throws {
        let any = try condition(.anySatisfy(property("bucketList"), variable: 1, test: element(1, "isInPlan")))
        #expect(any.sql == #"EXISTS (SELECT 1 FROM "BucketListItem" AS t1 WHERE t1."trip" = t0."_pk" AND t1."isInPlan")"#)
        let all = try condition(.allSatisfy(property("bucketList"), variable: 1, test: element(1, "hasReservation")))
        #expect(all.sql == #"NOT EXISTS (SELECT 1 FROM "BucketListItem" AS t1 WHERE t1."trip" = t0."_pk" AND NOT COALESCE(t1."hasReservation", 0))"#)
    }

    @Test func manyToManyGoesThroughTheJoinTable() throws {
        let query = try condition(.contains(collection: property("travelers"), element: .value(identifier("Traveler", 2))))
        #expect(query.sql == #"EXISTS (SELECT 1 FROM "Traveler_trips" AS t1 JOIN "Traveler" AS t2 ON t2."_pk" = t1."source" WHERE t1."target" = t0."_pk" AND t2."_pk" = ?)"#)
        #expect(query.bindings == [.integer(2)])
    }

    @Test func filteredCountIsACountSubquery() throws {
        let query = try condition(.comparison(
            .greater, .count(.filter(property("bucketList"), variable: 1, test: element(1, "isInPlan"))), .value(.int(1))))
        #expect(query.sql == #"(SELECT COUNT(*) FROM "BucketListItem" AS t1 WHERE t1."trip" = t0."_pk" AND t1."isInPlan") > ?"#)
    }

    @Test func toManyThroughAnOptionalToOneIsNilWhenItIs() throws {
        let query = try condition(.comparison(.greater, .count(property("trip", "bucketList")), .value(.int(1))), "BucketListItem")
        #expect(query.sql == #"CASE WHEN t0."trip" IS NULL THEN NULL ELSE (SELECT COUNT(*) FROM "BucketListItem" AS t1 WHERE t1."trip" = t0."trip") END > ?"#)
    }

    @Test func shortListsBindEachValue() throws {
        let query = try condition(.contains(collection: .list([.string("Paris"), .string("Rome")]), element: property("name")))
        #expect(query.sql == #"t0."name" COLLATE strata_canonical IN (?, ?)"#)
        #expect(query.bindings == [.text("Paris"), .text("Rome")])
        let optional = try condition(.contains(collection: .list([.string("annie")]), element: property("nickname")), "Traveler")
        #expect(optional.sql == #"COALESCE(t0."nickname" COLLATE strata_canonical IN (?), 0)"#)
        let withNil = try condition(.contains(collection: .list([.string("annie"), .null]), element: property("nickname")), "Traveler")
        #expect(withNil.sql == #"t0."nickname" IS NULL OR t0."nickname" COLLATE strata_canonical IN (?)"#)
        #expect(try condition(.contains(collection: .list([]), element: property("name"))).sql == "0")
    }

    @Test func longListsBindOneJSONArray() throws {
        let names = (0..<100).map { PersistentValue.string("name \"\($0)\"") }
        let query = try condition(.contains(collection: .list(names), element: property("name")))
        #expect(query.sql == #"t0."name" COLLATE strata_canonical IN (SELECT "value" FROM json_each(?))"#)
        let json = try #require(query.bindings.first.flatMap { if case .text(let text) = $0 { text } else { nil } })
        #expect(try JSONDecoder().decode([String].self, from: Data(json.utf8)) == (0..<100).map { "name \"\($0)\"" })
    }

    @Test func storedArraysAreSearchedWithJSONEach() throws {
        let tags = try condition(.contains(collection: property("tags"), element: string("beach")), "Specimen")
        #expect(tags.sql == #"EXISTS (SELECT 1 FROM json_each(t0."tags") AS t1 WHERE t1."value" IS ? COLLATE strata_canonical)"#)
        let optional = try condition(.contains(collection: property("optionalTags"), element: string("x")), "Specimen")
        #expect(optional.sql == #"CASE WHEN t0."optionalTags" IS NULL THEN NULL ELSE EXISTS (SELECT 1 FROM json_each(t0."optionalTags") AS t1 WHERE t1."value" IS ? COLLATE strata_canonical) END"#)
        let largest = try condition(.comparison(.greater, .aggregate(.max, property("scores")), .value(.int(4))), "Specimen")
        #expect(largest.sql == #"(SELECT MAX(t1."value") FROM json_each(t0."scores") AS t1) > ?"#)
    }

    // MARK: Strings

    @Test func stringTestsUseTheRegisteredFunctions() throws {
        #expect(try condition(.stringTest(.contains, property("name"), string("ar"))).sql == #"strata_contains(t0."name", ?)"#)
        let prefix = try condition(.stringTest(.startsWith, property("name"), string("Pa")))
        #expect(prefix.sql == #"strata_starts_with(t0."name", ?)"#)
        #expect(prefix.bindings == [.text("Pa")])
        #expect(try condition(.stringTest(.localizedStandardContains, property("name"), string("zur"))).sql
            == #"strata_localized_standard_contains(t0."name", ?)"#)
        #expect(try condition(eq(.stringOrder(.caseInsensitive, property("name"), string("x")), .value(.int(0)))).sql
            == #"strata_case_insensitive_compare(t0."name", ?) = ?"#)
        #expect(try condition(eq(.count(property("name")), .value(.int(0)))).sql == #"strata_character_count(t0."name") = ?"#)
    }

    // MARK: Safety

    @Test func constantsNeverAppearInTheSQLText() throws {
        let hostile = #"x'; DROP TABLE "Trip"; --"#
        let filter = FilterExpression.or(
            .and(eq(property("name"), string(hostile)), .stringTest(.contains, property("destination"), string("424242"))),
            .or(.or(.contains(collection: .list([.string("zz-list-value")]), element: property("name")),
                .comparison(.equal, .count(property("bucketList")), .value(.int(987_654)))),
                .comparison(.less, property("startDate"), .value(.date(Date(timeIntervalSinceReferenceDate: 123_456_789))))))
        let query = try tripsCompiler().select(
            entity: "Trip", columns: ["t0.\"_pk\""], filter: filter, sort: [], limit: 31_337, offset: 4_242)
        for fragment in ["DROP", "424242", "zz-list-value", "987654", "123456789", "31337", "4242", "'"] {
            #expect(!query.sql.contains(fragment), "\(fragment) leaked into the SQL")
        }
        #expect(query.bindings.contains(.text(hostile)))
        #expect(query.sql.filter { $0 == "?" }.count == query.bindings.count)
    }

    @Test func oddIdentifiersAreQuotedAndRun() throws {
        let mapping = SQLiteSchemaMapping(schema: oddSchema())
        let compiler = SQLiteQueryCompiler(mapping: mapping, storeIdentifier: "main")
        let query = try compiler.identifiers(
            entity: "Odd \"Table\"", filter: eq(property("order"), .value(.int(1))),
            sort: [FilterSortKey(path: ["say \"hi\""], ascending: false, stringOrder: nil)], limit: nil, offset: nil)
        #expect(query.sql == #"SELECT t0."_pk" FROM "Odd ""Table""" AS t0 WHERE t0."order" = ? ORDER BY t0."say ""hi""" COLLATE strata_canonical DESC, t0."_pk""#)

        let connection = try SQLiteConnection(path: ":memory:")
        for statement in SQLiteSchemaWriter.createStatements(mapping) { try connection.execute(statement) }
        try connection.execute(#"INSERT INTO "Odd ""Table""" ("_pk", "order", "say ""hi""") VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, 'c')"#)
        let statement = try connection.prepare(query.sql)
        try statement.bind(query.bindings)
        var keys: [Int64] = []
        while try statement.step() { keys.append(statement.int64(0)) }
        #expect(keys == [2, 1])
    }

    @Test func crossStoreRelationshipsCompareAsIdentifierJSON() throws {
        let compiler = SQLiteQueryCompiler(mapping: SQLiteSchemaMapping(schema: oddSchema()), storeIdentifier: "main")
        let contact = identifier("Contact", 5, store: "contacts")
        let query = try compiler.whereClause(eq(property("contact"), .value(contact)), entity: "Odd \"Table\"")
        #expect(query.sql == #"t0."contact" IS ?"#)
        #expect(query.bindings == [SQLiteValueCodec.encode(contact, storeIdentifier: "main")])
        #expect(throws: DataStoreError.preferInMemoryFilter) {
            try compiler.whereClause(eq(property("contact", "name"), string("Ann")), entity: "Odd \"Table\"")
        }
        #expect(throws: DataStoreError.preferInMemoryFilter) {
            try compiler.whereClause(.comparison(.less, property("contact"), .value(contact)), entity: "Odd \"Table\"")
        }
        #expect(throws: DataStoreError.preferInMemorySort) {
            try compiler.orderBy([FilterSortKey(path: ["contact"], ascending: true, stringOrder: nil)], entity: "Odd \"Table\"")
        }
    }

    // MARK: Fallbacks

    static let inMemoryFilters: [(String, FilterExpression)] = [
        ("NaN cannot be bound", eq(property("double"), .value(.double(.nan)))),
        ("floating-point remainder", eq(.arithmetic(.remainder, property("double"), .value(.double(2))), .value(.double(0)))),
        ("a string as a condition", property("label")),
        ("a date searched in a stored array", .contains(collection: property("tags"), element: .value(.date(.now)))),
        ("a decimal searched in a stored array", .contains(collection: property("tags"), element: .value(.decimal(1)))),
        ("a stored value ordered", .comparison(.less, property("address"), property("address"))),
        ("Booleans ordered", .comparison(.less, property("bool"), .value(.bool(true)))),
        ("an unknown property", eq(property("nope"), .value(.int(1)))),
        ("a path through an attribute", eq(property("label", "count"), .value(.int(1)))),
        ("a collection compared", eq(property("tags"), .list([.string("a")]))),
        ("an unbound variable", eq(element(3), .value(.int(1)))),
        ("a string compared with a number", eq(property("label"), .value(.int(1)))),
    ]

    @Test func whatSQLCannotExpressFallsBackToMemory() throws {
        let compiler = tripsCompiler()
        for (reason, filter) in Self.inMemoryFilters {
            #expect(throws: DataStoreError.preferInMemoryFilter, "\(reason)") {
                try compiler.identifiers(entity: "Specimen", filter: filter, sort: [], limit: nil, offset: nil)
            }
            #expect(compiler.fallbackReason(entity: "Specimen", filter: filter, sort: []) != nil, "\(reason)")
        }
    }

    @Test func unorderableSortKeysFallBackToMemory() throws {
        let compiler = tripsCompiler()
        for path in [["tags"], ["address"], ["data"], ["url"], ["nope"]] {
            #expect(throws: DataStoreError.preferInMemorySort, "\(path)") {
                try compiler.identifiers(
                    entity: "Specimen", filter: nil, sort: [FilterSortKey(path: path, ascending: true, stringOrder: nil)], limit: nil, offset: nil)
            }
        }
        #expect(throws: DataStoreError.preferInMemorySort) {
            try compiler.orderBy([FilterSortKey(path: ["bucketList"], ascending: true, stringOrder: nil)], entity: "Trip")
        }
    }

    @Test func fallbackReasonNamesTheProblem() throws {
        let compiler = tripsCompiler()
        let reason = compiler.fallbackReason(entity: "Specimen", filter: eq(property("double"), .value(.double(.nan))), sort: [])
        #expect(reason?.contains("NaN") == true)
        #expect(compiler.fallbackReason(entity: "Specimen", filter: eq(property("int"), .value(.int(1))), sort: []) == nil)
        let sortReason = compiler.fallbackReason(
            entity: "Trip", filter: nil, sort: [FilterSortKey(path: ["bucketList"], ascending: true, stringOrder: nil)])
        #expect(sortReason?.contains("bucketList") == true)
    }

    @Test func unknownEntityIsAnUnsupportedFeature() {
        #expect(throws: DataStoreError.unsupportedFeature) {
            try tripsCompiler().identifiers(entity: "Nope", filter: nil, sort: [], limit: nil, offset: nil)
        }
    }
}
