import Foundation
import Testing

@testable import StrataCore
@testable import StrataSQLite

// Runs filters and sorts both as compiled SQL over an in-memory database and through
// FilterEvaluator over the same rows as snapshots, and requires identical results.

// MARK: The world

/// The test graph as snapshots with permanent identifiers, and a database holding the same rows.
struct CompilerWorld {
    static let store = "compiler-tests"
    static let base = Date(timeIntervalSinceReferenceDate: 700_000_000.125)
    static let day: TimeInterval = 86_400

    let mapping: SQLiteSchemaMapping
    let compiler: SQLiteQueryCompiler
    let connection: SQLiteConnection
    let snapshots: [PersistentIdentifier: DefaultSnapshot]
    /// Snapshots per entity, in `_pk` order.
    let snapshotsByEntity: [String: [DefaultSnapshot]]

    /// The identifier the world gives the `number`th model (from 1) of `entity`.
    static func id(_ entity: String, _ number: Int64) -> PersistentIdentifier {
        try! PersistentIdentifier.identifier(for: store, entityName: entity, primaryKey: number)
    }

    init() throws {
        let schema = Schema([Trip.self, BucketListItem.self, LivingAccommodation.self, Traveler.self, Specimen.self])
        mapping = SQLiteSchemaMapping(schema: schema)
        compiler = SQLiteQueryCompiler(mapping: mapping, storeIdentifier: Self.store)
        connection = try SQLiteConnection(path: ":memory:")
        try SQLiteFunctions.register(on: connection)
        for statement in SQLiteSchemaWriter.createStatements(mapping) { try connection.execute(statement) }

        let models = Self.makeModels()
        var related: [PersistentIdentifier: any BackingData] = [:]
        var captured: [DefaultSnapshot] = []
        var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
        var counts: [String: Int64] = [:]
        for model in models {
            let snapshot = DefaultSnapshot(from: model.anyBackingData, relatedBackingDatas: &related)
            let entity = snapshot.persistentIdentifier.entityName
            counts[entity, default: 0] += 1
            remapped[snapshot.persistentIdentifier] = Self.id(entity, counts[entity]!)
            captured.append(snapshot)
        }
        var snapshots: [PersistentIdentifier: DefaultSnapshot] = [:]
        var byEntity: [String: [DefaultSnapshot]] = [:]
        for snapshot in captured {
            let permanent = snapshot.copy(persistentIdentifier: remapped[snapshot.persistentIdentifier]!, remappedIdentifiers: remapped)
            snapshots[permanent.persistentIdentifier] = permanent
            byEntity[permanent.persistentIdentifier.entityName, default: []].append(permanent)
            try Self.insert(permanent, mapping: mapping, connection: connection)
        }
        self.snapshots = snapshots
        self.snapshotsByEntity = byEntity
    }

    /// Writes a snapshot's row (and the join-table rows its side owns) as the mapping describes.
    static func insert(_ snapshot: DefaultSnapshot, mapping: SQLiteSchemaMapping, connection: SQLiteConnection) throws {
        let table = try #require(mapping.tables[snapshot.persistentIdentifier.entityName])
        let key = try #require(snapshot.persistentIdentifier.primaryKey(as: Int64.self))
        let names = [SQLiteSchemaMapping.primaryKey] + table.columns.map(\.name)
        let insert = try connection.prepare(
            "INSERT INTO \(SQLIdentifier.quote(table.tableName)) (\(names.map(SQLIdentifier.quote).joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))")
        try insert.bind([.integer(key)] + table.columns.map { SQLiteValueCodec.encode(snapshot[$0.name] ?? .null, storeIdentifier: store) })
        try insert.run()
        for (name, property) in zip(table.propertyNames, table.properties) {
            guard case .joinTable(let joinName, let owner, let member, _) = property,
                mapping.joinTables.first(where: { $0.name == joinName })?.sourceColumn == owner,
                case .identifiers(let members)? = snapshot[name]
            else { continue }
            for id in members {
                let row = try connection.prepare(
                    "INSERT INTO \(SQLIdentifier.quote(joinName)) (\(SQLIdentifier.quote(owner)), \(SQLIdentifier.quote(member))) VALUES (?, ?)")
                try row.bind([.integer(key), .integer(try #require(id.primaryKey(as: Int64.self)))])
                try row.run()
            }
        }
    }

    /// The `_pk`s SQL selects.
    func sqlKeys(
        _ entity: String, _ filter: FilterExpression?, sort: [FilterSortKey] = [], limit: Int? = nil, offset: Int? = nil
    ) throws -> [Int64] {
        let query = try compiler.identifiers(entity: entity, filter: filter, sort: sort, limit: limit, offset: offset)
        let statement = try connection.prepare(query.sql)
        try statement.bind(query.bindings)
        var keys: [Int64] = []
        while try statement.step() { keys.append(statement.int64(0)) }
        return keys
    }

    /// The `_pk`s FilterEvaluator selects, sorted by `sort` then `_pk`, then offset and limited.
    func evaluatorKeys(
        _ entity: String, _ filter: FilterExpression?, sort: [FilterSortKey] = [], limit: Int? = nil, offset: Int? = nil
    ) throws -> [Int64] {
        let snapshots = self.snapshots
        let evaluator = FilterEvaluator { snapshots[$0] }
        var rows = try (snapshotsByEntity[entity] ?? []).filter { snapshot in
            guard let filter else { return true }
            return try evaluator.matches(snapshot, filter)
        }
        func key(_ snapshot: DefaultSnapshot) -> Int64 { snapshot.persistentIdentifier.primaryKey(as: Int64.self)! }
        try rows.sort { a, b in
            if try evaluator.areInIncreasingOrder(a, b, by: sort) { return true }
            if try evaluator.areInIncreasingOrder(b, a, by: sort) { return false }
            return key(a) < key(b)
        }
        var keys = rows.map(key)
        if let offset { keys = Array(keys.dropFirst(offset)) }
        if let limit { keys = Array(keys.prefix(limit)) }
        return keys
    }

    /// The count SQL gives.
    func sqlCount(_ entity: String, _ filter: FilterExpression?, limit: Int? = nil, offset: Int? = nil) throws -> Int64 {
        let query = try compiler.count(entity: entity, filter: filter, limit: limit, offset: offset)
        let statement = try connection.prepare(query.sql)
        try statement.bind(query.bindings)
        _ = try statement.step()
        return statement.int64(0)
    }

    // MARK: Models

    private static func makeModels() -> [any PersistentModel] {
        func trip(_ name: String, _ destination: String, _ start: Double, _ end: Double) -> Trip {
            Trip(name: name, destination: destination, startDate: base + start * day, endDate: base + end * day)
        }
        let paris = trip("Paris", "France", -4, 6)
        let zurich = trip("Zürich", "Schweiz", -40, -30)
        let rome = trip("Rome", "Italy", -1, 1)
        let weekend = trip("paris weekend", "FRANCE", 20, 22)
        let tokyo = trip("Tokyo", "Japan", 0, 14)
        let empty = trip("", "", 0, 0)
        let trips = [paris, zurich, rome, weekend, tokyo, empty]

        func item(_ title: String, _ details: String, _ reserved: Bool, _ planned: Bool, _ trip: Trip?) -> BucketListItem {
            let item = BucketListItem(title: title, details: details, hasReservation: reserved, isInPlan: planned)
            item.trip = trip
            trip?.bucketList.append(item)
            return item
        }
        let items = [
            item("Louvre Museum", "Art", true, true, paris),
            item("Eiffel Tower", "", false, false, paris),
            item("Colosseum", "Ancient", false, true, rome),
            item("Vatican Museums", "", true, true, rome),
            item("Musée d'Orsay", "café", false, false, weekend),
            item("Senso-ji", "", true, true, tokyo),
            item("Stray idea", "", false, false, nil),
            item("", "empty title", true, false, tokyo),
        ]

        func stay(_ place: String, _ address: String, _ reserved: Bool, _ trip: Trip?) -> LivingAccommodation {
            let stay = LivingAccommodation(address: address, placeName: place, hasReservation: reserved)
            stay.trip = trip
            trip?.livingAccommodation = stay
            return stay
        }
        let stays = [
            stay("Hotel Zürich", "Bahnhofstrasse 1", true, paris),
            stay("Airbnb", "Via Roma", false, rome),
            stay("Ryokan Ōsaka", "", true, tokyo),
            stay("Orphan Inn", "", false, nil),
        ]

        func traveler(_ name: String, _ nickname: String?, _ trips: [Trip]) -> Traveler {
            let traveler = Traveler(name: name, nickname: nickname)
            traveler.trips = trips
            for trip in trips { trip.travelers.append(traveler) }
            return traveler
        }
        let travelers = [
            traveler("Ann", "annie", [paris, rome]),
            traveler("Bob", nil, [paris, weekend]),
            traveler("Cy", "", [weekend, tokyo]),
            traveler("Dee", nil, []),
        ]

        let plain = Specimen(label: "plain")
        let second = Specimen(label: "second")
        second.int = 7
        second.double = 0.5
        second.bool = true
        second.date = base - day
        second.data = Data([9])
        second.uuid = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
        second.url = URL(string: "https://example.com/a?b=c")!
        second.decimal = 1
        second.rank = .silver
        second.tags = ["beach", "old town"]
        second.scores = [5, 3]
        second.flags = [true]
        second.ratings = ["food": 5, "view": 3]
        second.address = SpecimenAddress(street: "Main", postcode: "1")
        second.optionalInt = 3
        second.optionalDouble = 1.5
        second.optionalString = "abc"
        second.optionalDate = base
        second.optionalUUID = UUID(uuidString: "00000000-0000-0000-0000-000000000002")!
        second.optionalDecimal = Decimal(string: "2.5")!
        second.optionalTags = ["x"]
        let third = Specimen(label: "third")
        third.int = -7
        third.double = -4
        third.date = base + day
        third.data = Data([1, 2])
        third.uuid = UUID(uuidString: "FFFFFFFF-0000-0000-0000-000000000001")!
        third.decimal = Decimal(string: "-0.5")!
        third.rank = .gold
        third.tags = ["old town", "beach", "zoo"]
        third.scores = [-1]
        third.flags = [false, false]
        third.ratings = ["food": 1]
        third.address = SpecimenAddress(street: "Side", postcode: "2")
        third.optionalInt = 12
        third.optionalString = ""
        third.optionalDate = base + 2 * day
        third.optionalTags = []
        let fourth = Specimen(label: "👍🏽 thumbs")
        fourth.int = 42
        fourth.double = 100
        fourth.bool = true
        fourth.date = base
        fourth.decimal = Decimal(string: "12345.6789")!
        fourth.tags = ["Lake"]
        fourth.scores = [1, 2, 3, 4]
        fourth.optionalInt = 0
        fourth.optionalString = "xyz"
        fourth.optionalDecimal = 0
        let fifth = Specimen(label: "Zürich")
        fifth.int = 2
        fifth.double = 2
        fifth.decimal = Decimal(string: "12345.6788")!
        fifth.rank = .silver
        fifth.tags = ["zoo"]
        fifth.optionalDouble = -0.25
        fifth.optionalString = "zürich"
        fifth.optionalTags = ["x", "y"]
        fifth.optionalDate = base - 3 * day
        // Values SQLite's REAL cannot hold, stored as text and a blob.
        let notANumber = Specimen(label: "nan")
        notANumber.double = .nan
        notANumber.optionalDouble = .nan
        let negativeZero = Specimen(label: "negative zero")
        negativeZero.double = -0.0
        negativeZero.optionalDouble = -0.0
        let specimens = [plain, second, third, fourth, fifth, notANumber, negativeZero]

        return trips + items + stays + travelers + specimens
    }
}

// MARK: Building filters

private func property(_ path: String...) -> FilterExpression { .property(variable: 0, path: path) }
private func element(_ variable: Int, _ path: String...) -> FilterExpression { .property(variable: variable, path: path) }
private func string(_ text: String) -> FilterExpression { .value(.string(text)) }
private func int(_ number: Int64) -> FilterExpression { .value(.int(number)) }
private func double(_ number: Double) -> FilterExpression { .value(.double(number)) }
private func decimal(_ text: String) -> FilterExpression { .value(.decimal(Decimal(string: text)!)) }
private func date(days: Double) -> FilterExpression { .value(.date(CompilerWorld.base + days * CompilerWorld.day)) }
private func bool(_ flag: Bool) -> FilterExpression { .value(.bool(flag)) }
private let null = FilterExpression.value(.null)
private func id(_ entity: String, _ number: Int64) -> FilterExpression { .value(.identifier(CompilerWorld.id(entity, number))) }
private func eq(_ lhs: FilterExpression, _ rhs: FilterExpression) -> FilterExpression { .comparison(.equal, lhs, rhs) }
private func ne(_ lhs: FilterExpression, _ rhs: FilterExpression) -> FilterExpression { .comparison(.notEqual, lhs, rhs) }
private func lt(_ lhs: FilterExpression, _ rhs: FilterExpression) -> FilterExpression { .comparison(.less, lhs, rhs) }
private func le(_ lhs: FilterExpression, _ rhs: FilterExpression) -> FilterExpression { .comparison(.lessOrEqual, lhs, rhs) }
private func gt(_ lhs: FilterExpression, _ rhs: FilterExpression) -> FilterExpression { .comparison(.greater, lhs, rhs) }
private func ge(_ lhs: FilterExpression, _ rhs: FilterExpression) -> FilterExpression { .comparison(.greaterOrEqual, lhs, rhs) }

/// One filter to run both ways.
struct CrossCheckCase: Sendable, CustomTestStringConvertible {
    let entity: String
    let name: String
    let filter: FilterExpression
    var testDescription: String { "\(entity): \(name)" }

    init(_ entity: String, _ name: String, _ filter: FilterExpression) {
        self.entity = entity
        self.name = name
        self.filter = filter
    }
}

private let trip = "Trip", item = "BucketListItem", stay = "LivingAccommodation", traveler = "Traveler", specimen = "Specimen"

let crossCheckFilters: [CrossCheckCase] = [
    // Equality, nil and logic.
    .init(trip, "name == Paris", eq(property("name"), string("Paris"))),
    .init(trip, "name != Paris", ne(property("name"), string("Paris"))),
    .init(trip, "name == empty", eq(property("name"), string(""))),
    .init(traveler, "nickname == nil", eq(property("nickname"), null)),
    .init(traveler, "nickname != nil", ne(property("nickname"), null)),
    .init(traveler, "nickname != annie keeps nil", ne(property("nickname"), string("annie"))),
    .init(traveler, "nil == nickname", eq(null, property("nickname"))),
    .init(specimen, "optionalInt > 3 drops nil", gt(property("optionalInt"), int(3))),
    .init(specimen, "!(optionalInt > 3) drops nil too", .not(gt(property("optionalInt"), int(3)))),
    .init(specimen, "optionalInt < 3 || bool", .or(lt(property("optionalInt"), int(3)), property("bool"))),
    .init(specimen, "!(optionalInt < 3 && bool)", .not(.and(lt(property("optionalInt"), int(3)), property("bool")))),
    .init(specimen, "!(optionalInt < 3 || !bool)", .not(.or(lt(property("optionalInt"), int(3)), .not(property("bool"))))),
    .init(specimen, "bool", property("bool")),
    .init(specimen, "bool == false", eq(property("bool"), bool(false))),
    .init(specimen, "(int > 0) == (double > 0)", eq(gt(property("int"), int(0)), gt(property("double"), double(0)))),
    .init(specimen, "optionalInt == optionalDecimal (nil == nil holds)", eq(property("optionalInt"), property("optionalDecimal"))),
    .init(specimen, "constant true", bool(true)),

    // Kinds.
    .init(specimen, "date < constant", lt(property("date"), date(days: 0))),
    .init(specimen, "date == constant with fraction", eq(property("date"), date(days: 0))),
    .init(specimen, "optionalDate >= constant", ge(property("optionalDate"), date(days: 0))),
    .init(specimen, "uuid == constant", eq(property("uuid"), .value(.uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!)))),
    .init(specimen, "uuid > constant orders like bytes", gt(property("uuid"), .value(.uuid(UUID(uuidString: "0000000A-0000-0000-0000-000000000000")!)))),
    .init(specimen, "optionalUUID == nil", eq(property("optionalUUID"), null)),
    .init(specimen, "data == constant", eq(property("data"), .value(.data(Data([1, 2]))))),
    .init(specimen, "url == constant", eq(property("url"), .value(.url(URL(string: "https://example.com/a?b=c")!)))),
    .init(specimen, "decimal > 1", gt(property("decimal"), decimal("1"))),
    .init(specimen, "decimal == 12345.6789", eq(property("decimal"), decimal("12345.6789"))),
    .init(specimen, "decimal < int", lt(property("decimal"), int(0))),
    .init(specimen, "optionalDecimal == nil", eq(property("optionalDecimal"), null)),
    .init(specimen, "optionalDecimal >= double", ge(property("optionalDecimal"), double(0))),
    .init(specimen, "rank raw value == 2", eq(property("rank"), int(2))),
    .init(specimen, "address == codable constant", eq(property("address"), .value(.codable(try! CodableAttributeCoding.encode(SpecimenAddress(street: "Main", postcode: "1")))))),
    .init(specimen, "double == integral constant", eq(property("double"), int(2))),
    .init(specimen, "double == -0.0", eq(property("double"), double(-0.0))),
    .init(specimen, "int > 2.5 compares across kinds", gt(property("int"), double(2.5))),
    .init(specimen, "optionalDouble < 0", lt(property("optionalDouble"), double(0))),
    .init(specimen, "bool == 1", eq(property("bool"), int(1))),
    .init(specimen, "!int reads an integer as a condition", .not(property("int"))),

    // Arithmetic and conditionals.
    .init(specimen, "int * 2 + 1 > 5", gt(.arithmetic(.add, .arithmetic(.multiply, property("int"), int(2)), int(1)), int(5))),
    .init(specimen, "int / 2 == -3 truncates", eq(.arithmetic(.divide, property("int"), int(2)), int(-3))),
    .init(specimen, "int % 3 == -1 keeps the sign", eq(.arithmetic(.remainder, property("int"), int(3)), int(-1))),
    .init(specimen, "double / 4 < 0.2", lt(.arithmetic(.divide, property("double"), double(4)), double(0.2))),
    .init(specimen, "double != 1 holds for NaN", .comparison(.notEqual, property("double"), double(1))),
    .init(specimen, "double > -1 fails for NaN", gt(property("double"), double(-1))),
    .init(specimen, "double <= 0 holds for -0.0", .comparison(.lessOrEqual, property("double"), double(0))),
    .init(specimen, "double == 0 holds for -0.0", eq(property("double"), double(0))),
    .init(specimen, "!(double < 1) holds for NaN", .not(lt(property("double"), double(1)))),
    .init(specimen, "-double < 1", lt(.negate(property("double")), double(1))),
    .init(specimen, "double * 2 >= 0", ge(.arithmetic(.multiply, property("double"), double(2)), double(0))),
    .init(specimen, "(optionalDouble ?? 1) > 0 keeps NaN", gt(.coalesce(property("optionalDouble"), double(1)), double(0))),
    .init(specimen, "(optionalDouble ?? double) != 3", .comparison(.notEqual, .coalesce(property("optionalDouble"), property("double")), double(3))),
    .init(specimen, "(0...1).contains(double)", .rangeContains(lower: double(0), upper: double(1), closed: true, element: property("double"))),
    .init(specimen, "optionalDouble == nil", eq(property("optionalDouble"), .value(.null))),
    .init(specimen, "double == optionalDouble", eq(property("double"), property("optionalDouble"))),
    .init(specimen, "int - optionalInt > 0", gt(.arithmetic(.subtract, property("int"), property("optionalInt")), int(0))),
    .init(specimen, "-int > 0", gt(.negate(property("int")), int(0))),
    .init(specimen, "(optionalInt == nil ? 5 : optionalInt) > 2", gt(.conditional(eq(property("optionalInt"), null), then: int(5), else: property("optionalInt")), int(2))),
    .init(specimen, "(optionalInt > 2 ? bool : !bool)", .conditional(gt(property("optionalInt"), int(2)), then: property("bool"), else: .not(property("bool")))),
    .init(specimen, "(optionalInt ?? 100) > 50", gt(.coalesce(property("optionalInt"), int(100)), int(50))),
    .init(specimen, "(optionalString ?? label) == plain", eq(.coalesce(property("optionalString"), property("label")), string("plain"))),

    // Strings.
    .init(trip, "name contains ar", .stringTest(.contains, property("name"), string("ar"))),
    .init(trip, "name contains empty", .stringTest(.contains, property("name"), string(""))),
    .init(trip, "name starts with Pa", .stringTest(.startsWith, property("name"), string("Pa"))),
    .init(trip, "name starts with empty", .stringTest(.startsWith, property("name"), string(""))),
    .init(trip, "name starts with a longer string", .stringTest(.startsWith, property("name"), string("Paris weekend trip"))),
    .init(trip, "name localizedStandardContains zur", .stringTest(.localizedStandardContains, property("name"), string("zur"))),
    .init(trip, "name localizedStandardContains PARIS", .stringTest(.localizedStandardContains, property("name"), string("PARIS"))),
    .init(trip, "name localizedStandardContains empty", .stringTest(.localizedStandardContains, property("name"), string(""))),
    .init(item, "details localizedStandardContains cafe", .stringTest(.localizedStandardContains, property("details"), string("cafe"))),
    .init(specimen, "optionalString contains b drops nil", .stringTest(.contains, property("optionalString"), string("b"))),
    .init(specimen, "!(optionalString starts with x)", .not(.stringTest(.startsWith, property("optionalString"), string("x")))),
    .init(trip, "caseInsensitiveCompare(name, paris) == same", eq(.stringOrder(.caseInsensitive, property("name"), string("paris")), int(0))),
    .init(trip, "localizedStandardCompare(name, rome) < 0", lt(.stringOrder(.localizedStandard, property("name"), string("rome")), int(0))),
    .init(trip, "localizedCompare(destination, france) == same", eq(.stringOrder(.localized, property("destination"), string("france")), int(0))),
    .init(specimen, "label.count == 8 counts characters, not code points", eq(.count(property("label")), int(8))),
    .init(specimen, "optionalString.count == 0", eq(.count(property("optionalString")), int(0))),
    .init(trip, "name.isEmpty", eq(.count(property("name")), int(0))),

    // To-one relationships.
    .init(trip, "livingAccommodation.placeName == Airbnb", eq(property("livingAccommodation", "placeName"), string("Airbnb"))),
    .init(trip, "livingAccommodation.placeName == nil", eq(property("livingAccommodation", "placeName"), null)),
    .init(trip, "livingAccommodation.hasReservation", property("livingAccommodation", "hasReservation")),
    .init(trip, "!livingAccommodation.hasReservation", .not(property("livingAccommodation", "hasReservation"))),
    .init(trip, "livingAccommodation == nil", eq(property("livingAccommodation"), null)),
    .init(trip, "livingAccommodation != nil", ne(property("livingAccommodation"), null)),
    .init(trip, "livingAccommodation == Airbnb's id", eq(property("livingAccommodation"), id(stay, 2))),
    .init(trip, "livingAccommodation != Airbnb's id", ne(property("livingAccommodation"), id(stay, 2))),
    .init(trip, "livingAccommodation == an item's id", eq(property("livingAccommodation"), id(item, 2))),
    .init(trip, "livingAccommodation == another store's id", eq(property("livingAccommodation"), .value(.identifier(try! .identifier(for: "elsewhere", entityName: stay, primaryKey: Int64(2)))))),
    .init(trip, "persistentModelID == Rome", eq(property(), id(trip, 3))),
    .init(trip, "persistentModelID != Rome", ne(property(), id(trip, 3))),
    .init(item, "trip.name == Paris", eq(property("trip", "name"), string("Paris"))),
    .init(item, "trip.livingAccommodation.hasReservation == true", eq(property("trip", "livingAccommodation", "hasReservation"), bool(true))),
    .init(item, "trip.livingAccommodation.placeName != Airbnb", ne(property("trip", "livingAccommodation", "placeName"), string("Airbnb"))),
    .init(stay, "trip.startDate <= constant", le(property("trip", "startDate"), date(days: -1))),

    // Constant lists.
    .init(trip, "[Paris, Rome, nope].contains(name)", .contains(collection: .list([.string("Paris"), .string("Rome"), .string("nope")]), element: property("name"))),
    .init(trip, "![Paris, Rome].contains(name)", .not(.contains(collection: .list([.string("Paris"), .string("Rome")]), element: property("name")))),
    .init(trip, "[].contains(name)", .contains(collection: .list([]), element: property("name"))),
    .init(trip, "![].contains(name)", .not(.contains(collection: .list([]), element: property("name")))),
    .init(traveler, "[annie, nil].contains(nickname)", .contains(collection: .list([.string("annie"), .null]), element: property("nickname"))),
    .init(traveler, "![annie].contains(nickname)", .not(.contains(collection: .list([.string("annie")]), element: property("nickname")))),
    .init(traveler, "[nil].contains(nickname)", .contains(collection: .list([.null]), element: property("nickname"))),
    .init(trip, "[ids].contains(persistentModelID)", .contains(collection: .list([.identifier(CompilerWorld.id(trip, 1)), .identifier(CompilerWorld.id(stay, 3)), .identifier(CompilerWorld.id(trip, 5))]), element: property())),
    .init(trip, "[ids].contains(livingAccommodation)", .contains(collection: .list([.identifier(CompilerWorld.id(stay, 1)), .null]), element: property("livingAccommodation"))),
    .init(specimen, "[decimals].contains(decimal)", .contains(collection: .list([.decimal(1), .decimal(Decimal(string: "-0.5")!)]), element: property("decimal"))),
    .init(trip, "a long list contains name", .contains(collection: .list((0..<200).map { .string("name \($0)") } + [.string("Tokyo")]), element: property("name"))),
    .init(specimen, "a long list contains int", .contains(collection: .list((0..<200).map { .int($0 * 3) }), element: property("int"))),
    .init(specimen, "a long list of dates contains date", .contains(collection: .list((-100..<100).map { .date(CompilerWorld.base + Double($0) * CompilerWorld.day) }), element: property("date"))),
    .init(specimen, "list.contains { $1 > optionalInt }", .anySatisfy(.list([.int(1), .int(5)]), variable: 1, test: gt(element(1), property("optionalInt")))),
    .init(specimen, "list.filter { $1 < int }.count == 1", eq(.count(.filter(.list([.int(1), .int(5), .int(10)]), variable: 1, test: lt(element(1), property("int")))), int(1))),
    .init(specimen, "list.max() < int", lt(.aggregate(.max, .list([.int(1), .int(5)])), property("int"))),

    // To-many relationships.
    .init(trip, "bucketList.contains { isInPlan }", .anySatisfy(property("bucketList"), variable: 1, test: element(1, "isInPlan"))),
    .init(trip, "bucketList.allSatisfy { hasReservation }", .allSatisfy(property("bucketList"), variable: 1, test: element(1, "hasReservation"))),
    .init(trip, "!bucketList.allSatisfy { isInPlan }", .not(.allSatisfy(property("bucketList"), variable: 1, test: element(1, "isInPlan")))),
    .init(trip, "bucketList.filter { isInPlan }.count >= 1", ge(.count(.filter(property("bucketList"), variable: 1, test: element(1, "isInPlan"))), int(1))),
    .init(trip, "bucketList.isEmpty", eq(.count(property("bucketList")), int(0))),
    .init(trip, "bucketList.count == 2", eq(.count(property("bucketList")), int(2))),
    .init(trip, "bucketList.contains(item 6)", .contains(collection: property("bucketList"), element: id(item, 6))),
    .init(trip, "bucketList.contains(a stay's id)", .contains(collection: property("bucketList"), element: id(stay, 1))),
    .init(trip, "bucketList.contains { title contains trip's name }", .anySatisfy(property("bucketList"), variable: 1, test: .stringTest(.contains, element(1, "details"), property("destination")))),
    .init(trip, "bucketList.contains { trip.livingAccommodation == nil }", .anySatisfy(property("bucketList"), variable: 1, test: eq(element(1, "trip", "livingAccommodation"), null))),
    .init(trip, "bucketList.filter { isInPlan }.contains { hasReservation }", .anySatisfy(.filter(property("bucketList"), variable: 1, test: element(1, "isInPlan")), variable: 2, test: element(2, "hasReservation"))),
    .init(trip, "bucketList.filter { isInPlan }.allSatisfy { hasReservation }", .allSatisfy(.filter(property("bucketList"), variable: 1, test: element(1, "isInPlan")), variable: 2, test: element(2, "hasReservation"))),
    .init(trip, "travelers.contains { name == Ann }", .anySatisfy(property("travelers"), variable: 1, test: eq(element(1, "name"), string("Ann")))),
    .init(trip, "travelers.allSatisfy { nickname != nil }", .allSatisfy(property("travelers"), variable: 1, test: ne(element(1, "nickname"), null))),
    .init(trip, "travelers.allSatisfy { nickname.count > 0 } (nil fails)", .allSatisfy(property("travelers"), variable: 1, test: gt(.count(element(1, "nickname")), int(0)))),
    .init(trip, "travelers.contains(Bob)", .contains(collection: property("travelers"), element: id(traveler, 2))),
    .init(trip, "travelers.count == 2", eq(.count(property("travelers")), int(2))),
    .init(traveler, "trips.contains { destination == France }", .anySatisfy(property("trips"), variable: 1, test: eq(element(1, "destination"), string("France")))),
    .init(traveler, "trips.contains { bucketList.contains { !isInPlan } }", .anySatisfy(property("trips"), variable: 1, test: .anySatisfy(element(1, "bucketList"), variable: 2, test: .not(element(2, "isInPlan"))))),
    .init(item, "trip.bucketList.count > 1", gt(.count(property("trip", "bucketList")), int(1))),
    .init(item, "!trip.bucketList.allSatisfy { isInPlan }", .not(.allSatisfy(property("trip", "bucketList"), variable: 1, test: element(1, "isInPlan")))),
    .init(item, "trip.travelers.contains { nickname != details }", .anySatisfy(property("trip", "travelers"), variable: 1, test: ne(element(1, "nickname"), property("details")))),
    .init(stay, "!trip.travelers.contains(Ann)", .not(.contains(collection: property("trip", "travelers"), element: id(traveler, 1)))),

    // Stored arrays.
    .init(specimen, "tags.contains(beach)", .contains(collection: property("tags"), element: string("beach"))),
    .init(specimen, "!tags.contains(beach)", .not(.contains(collection: property("tags"), element: string("beach")))),
    .init(specimen, "optionalTags.contains(x) drops nil", .contains(collection: property("optionalTags"), element: string("x"))),
    .init(specimen, "!optionalTags.contains(x) drops nil too", .not(.contains(collection: property("optionalTags"), element: string("x")))),
    .init(specimen, "scores.contains(5)", .contains(collection: property("scores"), element: int(5))),
    .init(specimen, "flags.contains(true)", .contains(collection: property("flags"), element: bool(true))),
    .init(specimen, "tags.contains(optionalString)", .contains(collection: property("tags"), element: property("optionalString"))),
    .init(specimen, "tags.contains { $1.count > 5 }", .anySatisfy(property("tags"), variable: 1, test: gt(.count(element(1)), int(5)))),
    .init(specimen, "optionalTags.allSatisfy { $1.count == 1 }", .allSatisfy(property("optionalTags"), variable: 1, test: eq(.count(element(1)), int(1)))),
    .init(specimen, "tags.contains { starts with b }", .anySatisfy(property("tags"), variable: 1, test: .stringTest(.startsWith, element(1), string("b")))),
    .init(specimen, "optionalTags.allSatisfy { $1 == x }", .allSatisfy(property("optionalTags"), variable: 1, test: eq(element(1), string("x")))),
    .init(specimen, "!optionalTags.allSatisfy { $1 == x }", .not(.allSatisfy(property("optionalTags"), variable: 1, test: eq(element(1), string("x"))))),
    .init(specimen, "tags.count == 2", eq(.count(property("tags")), int(2))),
    .init(specimen, "optionalTags.count == 0", eq(.count(property("optionalTags")), int(0))),
    .init(specimen, "optionalTags.isEmpty is not true for nil", .not(eq(.count(property("optionalTags")), int(0)))),
    .init(specimen, "scores.filter { $1 > 2 }.count == 2", eq(.count(.filter(property("scores"), variable: 1, test: gt(element(1), int(2)))), int(2))),
    .init(specimen, "scores.max() > 4", gt(.aggregate(.max, property("scores")), int(4))),
    .init(specimen, "scores.min() == nil", eq(.aggregate(.min, property("scores")), null)),
    .init(specimen, "tags.min() == beach", eq(.aggregate(.min, property("tags")), string("beach"))),
    .init(specimen, "scores.filter { $1 > 0 }.min() == 1", eq(.aggregate(.min, .filter(property("scores"), variable: 1, test: gt(element(1), int(0)))), int(1))),
    .init(specimen, "ratings.count == 2 counts a dictionary's members", eq(.count(property("ratings")), int(2))),
    .init(specimen, "ratings.isEmpty", eq(.count(property("ratings")), int(0))),
    .init(specimen, "scores.contains { $1 > int }", .anySatisfy(property("scores"), variable: 1, test: gt(element(1), property("int")))),

    // Ranges.
    .init(trip, "(start...end).contains(base)", .rangeContains(lower: property("startDate"), upper: property("endDate"), closed: true, element: date(days: 0))),
    .init(trip, "(start..<end).contains(base)", .rangeContains(lower: property("startDate"), upper: property("endDate"), closed: false, element: date(days: 0))),
    .init(specimen, "(0..<10).contains(int)", .rangeContains(lower: int(0), upper: int(10), closed: false, element: property("int"))),
    .init(specimen, "(0...7).contains(int)", .rangeContains(lower: int(0), upper: int(7), closed: true, element: property("int"))),
    .init(specimen, "(date...date+2).contains(optionalDate) drops nil", .rangeContains(lower: property("date"), upper: date(days: 2), closed: true, element: property("optionalDate"))),
    .init(specimen, "!(optionalInt...20).contains(int) drops nil", .not(.rangeContains(lower: property("optionalInt"), upper: int(20), closed: true, element: property("int")))),
]

@Suite struct SQLiteCompilerCrossCheckTests {
    @Test(arguments: crossCheckFilters)
    func filterSelectsWhatTheEvaluatorSelects(_ check: CrossCheckCase) throws {
        let world = try CompilerWorld()
        let sql = try world.sqlKeys(check.entity, check.filter)
        let expected = try world.evaluatorKeys(check.entity, check.filter)
        #expect(sql == expected, "\(check.filter)")
    }

    @Test func filtersCoverMatchingAndNonMatchingRows() throws {
        // Each filter family must both select and reject rows somewhere, or the checks above prove little.
        let world = try CompilerWorld()
        var selectedSomething = 0, rejectedSomething = 0
        for check in crossCheckFilters {
            let keys = try world.evaluatorKeys(check.entity, check.filter)
            if !keys.isEmpty { selectedSomething += 1 }
            if keys.count < world.snapshotsByEntity[check.entity, default: []].count { rejectedSomething += 1 }
        }
        #expect(selectedSomething >= crossCheckFilters.count * 3 / 4)
        #expect(rejectedSomething >= crossCheckFilters.count * 3 / 4)
    }

    static let sorts: [(String, [FilterSortKey])] = [
        (trip, [FilterSortKey(path: ["name"], ascending: true, stringOrder: nil)]),
        (trip, [FilterSortKey(path: ["name"], ascending: false, stringOrder: nil)]),
        (trip, [FilterSortKey(path: ["name"], ascending: true, stringOrder: .localizedStandard)]),
        (trip, [FilterSortKey(path: ["name"], ascending: false, stringOrder: .caseInsensitive)]),
        (trip, [FilterSortKey(path: ["destination"], ascending: true, stringOrder: .localized), FilterSortKey(path: ["name"], ascending: false, stringOrder: nil)]),
        (trip, [FilterSortKey(path: ["livingAccommodation", "placeName"], ascending: true, stringOrder: nil)]),
        (trip, [FilterSortKey(path: ["livingAccommodation", "placeName"], ascending: false, stringOrder: nil)]),
        (trip, [FilterSortKey(path: ["livingAccommodation"], ascending: false, stringOrder: nil)]),
        (trip, [FilterSortKey(path: ["startDate"], ascending: false, stringOrder: nil)]),
        (item, [FilterSortKey(path: ["trip", "name"], ascending: true, stringOrder: nil), FilterSortKey(path: ["title"], ascending: true, stringOrder: nil)]),
        (item, [FilterSortKey(path: ["isInPlan"], ascending: true, stringOrder: nil), FilterSortKey(path: ["hasReservation"], ascending: false, stringOrder: nil)]),
        (traveler, [FilterSortKey(path: ["nickname"], ascending: true, stringOrder: .localizedStandard)]),
        (traveler, [FilterSortKey(path: ["nickname"], ascending: false, stringOrder: nil)]),
        (specimen, [FilterSortKey(path: ["optionalInt"], ascending: true, stringOrder: nil)]),
        (specimen, [FilterSortKey(path: ["optionalInt"], ascending: false, stringOrder: nil)]),
        (specimen, [FilterSortKey(path: ["decimal"], ascending: true, stringOrder: nil)]),
        (specimen, [FilterSortKey(path: ["optionalDecimal"], ascending: false, stringOrder: nil)]),
        (specimen, [FilterSortKey(path: ["uuid"], ascending: true, stringOrder: nil)]),
        (specimen, [FilterSortKey(path: ["double"], ascending: false, stringOrder: nil)]),
        (specimen, [FilterSortKey(path: ["optionalDate"], ascending: true, stringOrder: nil)]),
        (specimen, [FilterSortKey(path: ["bool"], ascending: true, stringOrder: nil), FilterSortKey(path: ["label"], ascending: true, stringOrder: .localizedStandard)]),
        (specimen, [FilterSortKey(path: ["optionalString"], ascending: true, stringOrder: .caseInsensitive)]),
    ]

    @Test func sortsOrderAsTheEvaluatorOrders() throws {
        let world = try CompilerWorld()
        for (entity, keys) in Self.sorts {
            let sql = try world.sqlKeys(entity, nil, sort: keys)
            let expected = try world.evaluatorKeys(entity, nil, sort: keys)
            #expect(sql == expected, "\(entity) by \(keys.map { $0.path.joined(separator: ".") })")
        }
    }

    @Test func unsortedFetchesComeBackInKeyOrder() throws {
        let world = try CompilerWorld()
        #expect(try world.sqlKeys(trip, nil) == [1, 2, 3, 4, 5, 6])
    }

    @Test func limitAndOffsetApplyAfterFilterAndSort() throws {
        let world = try CompilerWorld()
        let filter = ne(property("name"), string("Rome"))
        let sort = [FilterSortKey(path: ["name"], ascending: true, stringOrder: .localizedStandard)]
        for (limit, offset) in [(2, nil), (nil, 1), (2, 1), (0, 0), (10, 4), (3, 10)] as [(Int?, Int?)] {
            let sql = try world.sqlKeys(trip, filter, sort: sort, limit: limit, offset: offset)
            let expected = try world.evaluatorKeys(trip, filter, sort: sort, limit: limit, offset: offset)
            #expect(sql == expected, "limit \(String(describing: limit)) offset \(String(describing: offset))")
            #expect(try world.sqlCount(trip, filter, limit: limit, offset: offset) == Int64(expected.count))
        }
    }

    @Test func countEqualsTheEvaluatorsCount() throws {
        let world = try CompilerWorld()
        let checks: [(String, FilterExpression?)] = [
            (trip, nil),
            (traveler, ne(property("nickname"), string("annie"))),
            (trip, .allSatisfy(property("bucketList"), variable: 1, test: element(1, "hasReservation"))),
        ]
        for (entity, filter) in checks {
            #expect(try world.sqlCount(entity, filter) == Int64(try world.evaluatorKeys(entity, filter).count))
        }
    }

    @Test func deleteRemovesExactlyTheMatchingRows() throws {
        let world = try CompilerWorld()
        let filter = FilterExpression.anySatisfy(property("bucketList"), variable: 1, test: element(1, "isInPlan"))
        let doomed = try world.evaluatorKeys(trip, filter)
        #expect(!doomed.isEmpty)
        let query = try world.compiler.delete(entity: trip, filter: filter)
        let statement = try world.connection.prepare(query.sql)
        try statement.bind(query.bindings)
        try statement.run()
        #expect(try world.sqlKeys(trip, nil) == [1, 2, 3, 4, 5, 6].filter { !doomed.contains($0) })
    }
}
