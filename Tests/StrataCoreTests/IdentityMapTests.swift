import Foundation
import Testing

@testable import StrataCore

/// The identity map holds one model per identifier, whether its key indexes the dense array
/// or the dictionary, and keeps it there as keys arrive out of order, far out or negative.
@Suite struct IdentityMapTests {
    static func id(_ key: Int64, entity: String = "Trip") throws -> PersistentIdentifier {
        try PersistentIdentifier.identifier(for: "identity-map-tests", entityName: entity, primaryKey: key)
    }

    static func trip(_ name: String) -> Trip {
        Trip(name: name, destination: "", startDate: Date(timeIntervalSinceReferenceDate: 0), endDate: Date(timeIntervalSinceReferenceDate: 0))
    }

    @Test func everyKeyFindsItsModelWhereverItIsKept() throws {
        var map = IdentityMap()
        // Far out first (the dictionary), then dense keys that grow the array past it.
        let keys: [Int64] = [1_000, -5, 3, 1, 2] + (4...1_200).filter { $0 != 1_000 } + [Int64.max, 9_000_000_000]
        var models: [Int64: Trip] = [:]
        for key in keys {
            let model = Self.trip("\(key)")
            models[key] = model
            #expect(map.registerIfAbsent(model, as: try Self.id(key)) == nil)
        }
        #expect(map.count == keys.count)
        for key in keys { #expect(map[try Self.id(key)] === models[key], "key \(key)") }
        #expect(map[try Self.id(1_201)] == nil)
        #expect(map[try Self.id(0)] == nil)
        #expect(map[try Self.id(3, entity: "Other")] == nil)

        // A second model for a key keeps the first.
        #expect(map.registerIfAbsent(Self.trip("again"), as: try Self.id(1_000)) === models[1_000])
        #expect((map[try Self.id(1_000)] as? Trip)?.name == "1000")

        #expect(map.remove(try Self.id(-5)) === models[-5])
        #expect(map.remove(try Self.id(600)) === models[600])
        #expect(map.remove(try Self.id(600)) == nil)
        #expect(map.count == keys.count - 2)
        var seen = Set<String>()
        map.forEachModel(ofEntitiesWhere: { $0 == "Trip" }) { seen.insert(($0 as! Trip).name) }
        #expect(seen.count == keys.count - 2 && !seen.contains("600") && seen.contains("1000"))

        map.filter { ($0 as! Trip).name.count < 4 }
        #expect(map.count == 998)  // "1" through "999", without "600"
    }

    @Test func keysInAnyOrderFindTheirModels() throws {
        var random = SystemRandomNumberGenerator()
        for order in [Array(Int64(1)...3_000), Array((Int64(1)...3_000).reversed()), Array(Int64(1)...3_000).shuffled(using: &random)] {
            var map = IdentityMap()
            var models: [Int64: Trip] = [:]
            for key in order {
                let model = Self.trip("\(key)")
                models[key] = model
                map.register(model, as: try Self.id(key))
            }
            #expect(map.count == order.count)
            for key in order { #expect(map[try Self.id(key)] === models[key], "key \(key)") }
            for key in order where key % 3 == 0 { #expect(map.remove(try Self.id(key)) === models[key]) }
            #expect(map.count == 2_000)
            #expect(map[try Self.id(3)] == nil)
            #expect(map[try Self.id(4)] === models[4])
        }
    }

    /// A class hierarchy's models share one table (their identifiers name the root entity):
    /// each comes back as its own class, whichever class the table saw first.
    @Test func modelsOfAHierarchyComeBackAsTheirOwnClasses() throws {
        let start = Date(timeIntervalSinceReferenceDate: 0)
        for firstIsSubclass in [false, true] {
            var map = IdentityMap()
            var models: [Int64: Journey] = [:]
            for key in Int64(1)...30 {
                let model: Journey = switch (key % 3, firstIsSubclass) {
                case (1, false), (0, true): Journey(name: "\(key)", start: start)
                case (2, _): LeisureJourney(name: "\(key)", start: start, reason: "sea")
                default: BusinessJourney(name: "\(key)", start: start)
                }
                models[key] = model
                #expect(map.registerIfAbsent(model, as: try Self.id(key, entity: "Journey")) == nil)
            }
            for key in Int64(1)...30 {
                let found = try #require(map[try Self.id(key, entity: "Journey")])
                #expect(found === models[key])
                #expect(type(of: found) == type(of: models[key]!), "key \(key) came back as \(type(of: found))")
                #expect((found as? LeisureJourney != nil) == (models[key] is LeisureJourney))
            }
            var classes: [String: Int] = [:]
            map.forEachModel(ofEntitiesWhere: { _ in true }) { classes["\(type(of: $0))", default: 0] += 1 }
            #expect(classes == ["Journey": 10, "LeisureJourney": 10, "BusinessJourney": 10])
            #expect(type(of: try #require(map.remove(try Self.id(2, entity: "Journey")))) == LeisureJourney.self)
        }
    }
    /// Registering models together (a save's inserts) finds each under its identifier as
    /// registering them one by one does: a run of one entity's integer keys, keys of two
    /// entities, and keys that are not integers.
    @Test func modelsRegisteredTogetherAreFoundOneByOne() throws {
        let runs: [[PersistentIdentifier]] = [
            try (1...300).map { try Self.id(Int64($0)) },
            try (1...40).map { try Self.id(Int64($0), entity: $0 % 2 == 0 ? "Trip" : "Other") },
            try (1...40).map { try PersistentIdentifier.identifier(for: "identity-map-tests", entityName: "Trip", primaryKey: "key \($0)") },
            try [Self.id(7), PersistentIdentifier.identifier(for: "identity-map-tests", entityName: "Trip", primaryKey: "seven")],
        ]
        for ids in runs {
            var map = IdentityMap()
            let models = ids.indices.map { Self.trip("\($0)") }
            let members = try models.map { ModelSet.Member(model: $0, data: try #require($0.managedData)) }
            members.withUnsafeBufferPointer { members in
                ids.withUnsafeBufferPointer { ids in map.register(members, as: ids) }
            }
            #expect(map.count == ids.count)
            for (id, model) in zip(ids, models) { #expect(map[id] === model, "\(id)") }
            #expect(map[try Self.id(Int64(ids.count + 1), entity: "Absent")] == nil)
        }
    }

    /// A fetch's models registered together when it ends (``IdentityMap/registerRun(_:key:from:through:adding:scope:type:)``)
    /// are found as registering them one by one finds them: keys in order and out of it,
    /// below the table's first key and too far out for its array, positions skipped, and a
    /// key registered before, whose model stays and is handed back.
    @Test func aRunRegisteredTogetherIsFoundOneByOne() throws {
        let skipped = Int64.min
        let runs: [[Int64]] = [
            Array(1...500), Array((1...500).reversed()), [40, 41, 5, 3, 1_000_000, -7, 42, skipped, 43],
        ]
        for keys in runs {
            var map = IdentityMap()
            let earlier = Self.trip("earlier")
            map.register(earlier, as: try Self.id(41))
            let models: [AnyObject] = keys.map { Self.trip("\($0)") }
            let waiting = keys.filter { $0 != skipped }
            let scope = try Self.id(1).id.scopeReference
            let repeated = models.withUnsafeBufferPointer { models in
                map.registerRun(
                    models, key: { keys[$0] == skipped ? nil : keys[$0] }, from: waiting.min()!, through: waiting.max()!,
                    adding: waiting.count, scope: scope, type: Trip.self)
            }
            for (position, key) in keys.enumerated() where key != skipped {
                let expected = key == 41 ? earlier : models[position]
                #expect(map[try Self.id(key)] === expected, "key \(key)")
            }
            #expect(map.count == waiting.count + (waiting.contains(41) ? 0 : 1))
            #expect(repeated.map(\.position) == keys.indices.filter { keys[$0] == 41 })
            #expect(repeated.allSatisfy { $0.registered === earlier })
        }
    }
}
