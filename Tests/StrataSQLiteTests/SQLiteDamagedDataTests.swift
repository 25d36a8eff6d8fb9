import Foundation
import Strata
@testable import StrataCore
import Testing

@testable import StrataSQLite

enum GaugeKind: String, Codable {
    case analog, digital
}

struct GaugeSetting: Codable, Hashable {
    var low: Int
    var high: Int
}

/// An enum with associated values: stored as JSON, and with no zero to stand in for it.
enum GaugeMode: Codable, Hashable {
    case off
    case on(level: Int)
}

/// One property of each type whose stored kind alone does not say it reads back.
@Model final class Gauge {
    var label: String
    var level: Int8
    var port: UInt16?
    var kind: GaugeKind
    var setting: GaugeSetting
    var reading: Double
    var mode: GaugeMode
    init(label: String) {
        self.label = label
        level = 1
        port = 80
        kind = .analog
        setting = GaugeSetting(low: 0, high: 10)
        reading = 0.5
        mode = .on(level: 2)
    }
}

/// A model with a to-one, whose column holds the destination's key.
@Model final class Dial {
    var name: String
    var gauge: Gauge?
    init(name: String, gauge: Gauge?) {
        self.name = name
        self.gauge = gauge
    }
}

/// Checks that `fetch` fails with `modelValidationFailure` whose details name `property`
/// (as `Entity.property`), the `problem` and the damaged `row`.
private func expectDamagedRow<M>(
    _ row: PersistentIdentifier, property: String, problem: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ fetch: () throws -> [M]
) {
    do {
        let models = try fetch()
        Issue.record("the fetch returned \(models.count) models over a damaged row", sourceLocation: sourceLocation)
    } catch let error as SwiftDataError {
        #expect(error == .modelValidationFailure, sourceLocation: sourceLocation)
        #expect(error.details.contains(property), "\(error.details)", sourceLocation: sourceLocation)
        #expect(error.details.contains(problem), "\(error.details)", sourceLocation: sourceLocation)
        #expect(error.details.contains("\(row)"), "\(error.details)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected SwiftDataError.modelValidationFailure, got \(error)", sourceLocation: sourceLocation)
    }
}

/// Rows another writer left in a shape the model cannot read: each fails the fetch with a
/// typed error naming the entity, the property and the row, and the other rows stay readable.
@Suite struct SQLiteDamagedDataTests {
    let url: URL

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-damaged-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent("gauges.store")
    }

    /// A store holding gauges "a", "b" and "c", with `sql` then run on "b" by another connection.
    func damagedStore(setting assignment: String) throws -> (ModelContainer, PersistentIdentifier) {
        let container = try ModelContainer(for: Gauge.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        for label in ["a", "b", "c"] { context.insert(Gauge(label: label)) }
        try context.save()
        let damaged = try #require(try context.fetch(FetchDescriptor<Gauge>(predicate: #Predicate { $0.label == "b" })).first)
        let connection = try SQLiteConnection(path: url.path)
        try connection.execute(#"UPDATE "Gauge" SET "# + assignment + #" WHERE "label" = 'b'"#)
        return (container, damaged.persistentModelID)
    }

    static let damage: [(assignment: String, property: String, problem: String)] = [
        (#""level" = 300"#, "level", "outside the range of Int8 (-128...127)"),
        (#""level" = -129"#, "level", "outside the range of Int8 (-128...127)"),
        (#""port" = 65536"#, "port", "outside the range of UInt16"),
        (#""port" = -1"#, "port", "outside the range of UInt16"),
        (#""kind" = 'hybrid'"#, "kind", "holds hybrid, which no case of GaugeKind has"),
        (#""setting" = '{"low":1}'"#, "setting", "does not decode as GaugeSetting"),
        (#""setting" = '{"low":"one","high":2}'"#, "setting", "does not decode as GaugeSetting"),
        (#""setting" = 'not json'"#, "setting", "does not decode as GaugeSetting"),
        (#""label" = NULL"#, "label", "holds nil"),
        (#""level" = 'high'"#, "level", "holds a TEXT value that is not a int"),
        (#""reading" = x'00ff'"#, "reading", "holds a BLOB, but is double"),
        (#""kind" = 7"#, "kind", "holds 7, which no case of GaugeKind has"),
        (#""mode" = '{"dimmed":{}}'"#, "mode", "does not decode as GaugeMode"),
    ]

    @Test(arguments: damage)
    func aValueThatNoLongerFitsTheModelFailsTheFetchNamingTheRow(_ damage: (assignment: String, property: String, problem: String)) throws {
        let (container, row) = try damagedStore(setting: damage.assignment)
        let context = ModelContext(container)
        expectDamagedRow(row, property: "Gauge.\(damage.property)", problem: damage.problem) { try context.fetch(FetchDescriptor<Gauge>()) }

        // The rest of the store reads on: by predicate, by identifier, and by property.
        let others = try context.fetch(FetchDescriptor<Gauge>(predicate: #Predicate { $0.label != "b" }, sortBy: [SortDescriptor(\.label)]))
        #expect(others.map(\.label) == ["a", "c"])
        #expect(others.map(\.level) == [1, 1])
        #expect(try context.fetchIdentifiers(FetchDescriptor<Gauge>()).contains(row))
        #expect(try context.fetchCount(FetchDescriptor<Gauge>()) == 3)
        // A property with no stand-in (`mode`) is loaded by every fetch: see below.
        if !["label", "mode"].contains(damage.property) {
            var labels = FetchDescriptor<Gauge>(sortBy: [SortDescriptor(\.label)])
            labels.propertiesToFetch = [\.label]
            #expect(try ModelContext(container).fetch(labels).map(\.label) == ["a", "b", "c"])
        }
    }

    /// A to-one's column holds the destination's key (an INTEGER) or NULL; anything else
    /// fails the fetch naming the row, and NULL reads as no destination.
    @Test(arguments: [
        (#"2.5"#, "holds a REAL"), (#"'junk'"#, "holds a TEXT value that is not a identifier"), (#"x'01'"#, "holds a BLOB"),
    ])
    func aToOneColumnHoldingSomethingElseThanAKeyFailsTheFetchNamingTheRow(_ damage: (value: String, problem: String)) throws {
        let container = try ModelContainer(for: Dial.self, Gauge.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let gauge = Gauge(label: "a")
        for name in ["left", "right", "none"] { context.insert(Dial(name: name, gauge: name == "none" ? nil : gauge)) }
        try context.save()
        let right = try #require(try context.fetch(FetchDescriptor<Dial>(predicate: #Predicate { $0.name == "right" })).first)
        try SQLiteConnection(path: url.path).execute(#"UPDATE "Dial" SET "gauge" = "# + damage.value + #" WHERE "name" = 'right'"#)

        let reader = ModelContext(container)
        expectDamagedRow(right.persistentModelID, property: "Dial.gauge", problem: damage.problem) { try reader.fetch(FetchDescriptor<Dial>()) }
        let others = try reader.fetch(FetchDescriptor<Dial>(predicate: #Predicate { $0.name != "right" }, sortBy: [SortDescriptor(\.name)]))
        #expect(others.map(\.name) == ["left", "none"])
        #expect(others.map { $0.gauge?.label } == ["a", nil])
    }

    /// A property left out by `propertiesToFetch` loads when read; if its stored value is
    /// damaged, the read gives a stand-in rather than trap, and the stored value stays.
    /// A type without a stand-in is loaded by every fetch, so its damage fails the fetch.
    @Test func aDamagedValueWithoutAStandInFailsEvenAFetchThatLeavesItOut() throws {
        let (container, row) = try damagedStore(setting: #""mode" = '{"dimmed":{}}'"#)
        var labels = FetchDescriptor<Gauge>(predicate: #Predicate { $0.persistentModelID == row })
        labels.propertiesToFetch = [\.label]
        #expect(throws: SwiftDataError.modelValidationFailure) { try ModelContext(container).fetch(labels) }
        var others = FetchDescriptor<Gauge>(predicate: #Predicate { $0.persistentModelID != row }, sortBy: [SortDescriptor(\.label)])
        others.propertiesToFetch = [\.label]
        #expect(try ModelContext(container).fetch(others).map(\.label) == ["a", "c"])
    }

    @Test(arguments: damage.filter { !["label", "mode"].contains($0.property) })
    func aDamagedValueLeftUnfetchedReadsAsAStandInAndStaysStored(_ damage: (assignment: String, property: String, problem: String)) throws {
        let (container, row) = try damagedStore(setting: damage.assignment)
        var labels = FetchDescriptor<Gauge>(predicate: #Predicate { $0.persistentModelID == row })
        labels.propertiesToFetch = [\.label]
        let context = ModelContext(container)
        let gauge = try #require(try context.fetch(labels).first)
        switch damage.property {
        case "level": #expect(gauge.level == 0)
        case "port": #expect(gauge.port == nil)
        case "kind": #expect(gauge.kind == .analog)
        case "setting": #expect(gauge.setting == GaugeSetting(low: 0, high: 0))
        case "reading": #expect(gauge.reading == 0)
        default: Issue.record("no expectation for \(damage.property)")
        }
        // Another property still saves, and the damaged column is left as it was.
        gauge.label = "b2"
        try context.save()
        let stored = try SQLiteConnection(path: url.path).scalarText(#"SELECT quote("\#(damage.property)") FROM "Gauge" WHERE "label" = 'b2'"#)
        let untouched = try SQLiteConnection(path: url.path).scalarText(#"SELECT quote("\#(damage.property)") FROM "Gauge" WHERE "label" = 'a'"#)
        #expect(stored != untouched, "the stand-in was written over the damaged value")
    }

    /// A value that failed to load read as a stand-in; writing over it would replace a stored
    /// value nobody saw, so the save refuses and the stored value stays.
    @Test func aSaveRefusesToOverwriteAValueThatFailedToLoad() throws {
        let (container, row) = try damagedStore(setting: #""level" = 300"#)
        var labels = FetchDescriptor<Gauge>(predicate: #Predicate { $0.persistentModelID == row })
        labels.propertiesToFetch = [\.label]
        let context = ModelContext(container)
        let gauge = try #require(try context.fetch(labels).first)
        #expect(gauge.level == 0)  // the stand-in
        gauge.level = 5
        do {
            try context.save()
            Issue.record("the save wrote over a value that failed to load")
        } catch let error as SwiftDataError {
            #expect(error == .modelValidationFailure)
            #expect(error.details.contains("level"), "\(error.details)")
            #expect(error.details.contains("failed to load"), "\(error.details)")
        }
        let stored = try SQLiteConnection(path: url.path).scalarText(#"SELECT quote("level") FROM "Gauge" WHERE "label" = 'b'"#)
        #expect(stored == "300")
    }

    @Test func aDamagedRowCanBeRepairedThroughAnotherProperty() throws {
        let (container, row) = try damagedStore(setting: #""kind" = 'hybrid'"#)
        // Deleting the row by identifier needs no value of it.
        let context = ModelContext(container)
        try context.delete(model: Gauge.self, where: #Predicate { $0.persistentModelID == row })
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Gauge>()).map(\.label).sorted() == ["a", "c"])
    }
}

/// Colours, kept as a class the way transformable values usually are.
final class Palette {
    let colors: [String]
    init(colors: [String]) { self.colors = colors }
}

/// Stores a palette as comma-separated UTF-8; data starting with "!" does not turn back.
final class PaletteTransformer: ValueTransformer, @unchecked Sendable {
    static let name = NSValueTransformerName("StrataSQLiteTests.Palette")

    override class func transformedValueClass() -> AnyClass { NSData.self }

    override func transformedValue(_ value: Any?) -> Any? {
        (value as? Palette).map { Data($0.colors.joined(separator: ",").utf8) }
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data, let text = String(data: data, encoding: .utf8), !text.hasPrefix("!") else { return nil }
        return Palette(colors: text.split(separator: ",").map(String.init))
    }
}

@Model final class Swatch {
    var name: String
    @Attribute(.transformable(by: "StrataSQLiteTests.Palette")) var palette: Palette
    init(name: String, palette: Palette) {
        self.name = name
        self.palette = palette
    }
}

/// Its transformer is never registered.
@Model final class Sketch {
    var name: String
    @Attribute(.transformable(by: "StrataSQLiteTests.NeverRegistered")) var palette: Palette
    init(name: String, palette: Palette) {
        self.name = name
        self.palette = palette
    }
}

@Suite struct SQLiteTransformableTests {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-transformable-\(UUID()).store")

    init() {
        ValueTransformer.setValueTransformer(PaletteTransformer(), forName: PaletteTransformer.name)
    }

    @Test func aTransformableValueRoundTrips() throws {
        let container = try ModelContainer(for: Swatch.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.insert(Swatch(name: "sea", palette: Palette(colors: ["teal", "navy"])))
        try context.save()
        let fetched = try ModelContext(container).fetch(FetchDescriptor<Swatch>())
        #expect(fetched.map(\.palette.colors) == [["teal", "navy"]])
    }

    @Test func aSaveWithAnUnregisteredTransformerThrowsAndWritesNothing() throws {
        let container = try ModelContainer(for: Swatch.self, Sketch.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.insert(Swatch(name: "sea", palette: Palette(colors: ["teal"])))
        context.insert(Sketch(name: "draft", palette: Palette(colors: ["grey"])))
        #expect {
            try context.save()
        } throws: { error in
            guard let error = error as? SwiftDataError, error == .modelValidationFailure else { return false }
            return error.details.contains("Sketch.palette") && error.details.contains("StrataSQLiteTests.NeverRegistered")
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Swatch>()) == 0, "part of a refused save was written")
    }

    @Test func dataTheTransformerCannotTurnBackFailsTheFetch() throws {
        let container = try ModelContainer(for: Swatch.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.insert(Swatch(name: "sea", palette: Palette(colors: ["teal"])))
        context.insert(Swatch(name: "sand", palette: Palette(colors: ["beige"])))
        try context.save()
        try SQLiteConnection(path: url.path).execute(#"UPDATE "Swatch" SET "palette" = x'21' WHERE "name" = 'sea'"#)
        #expect {
            try ModelContext(container).fetch(FetchDescriptor<Swatch>())
        } throws: { error in
            guard let error = error as? SwiftDataError, error == .modelValidationFailure else { return false }
            return error.details.contains("Swatch.palette") && error.details.contains("does not turn back")
        }
        let sand = try ModelContext(container).fetch(FetchDescriptor<Swatch>(predicate: #Predicate { $0.name == "sand" }))
        #expect(sand.map(\.palette.colors) == [["beige"]])
    }
}
