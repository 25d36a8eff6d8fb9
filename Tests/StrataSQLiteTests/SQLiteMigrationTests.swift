import Foundation
import Strata
@testable import StrataSQLite
@testable import StrataTesting
import Testing

/// Migration on a SQLite file, beyond the shared conformance checks: a migration that fails,
/// and a store the app cannot place, leave every file byte for byte as it was.
@Suite struct SQLiteMigrationTests {
    let url: URL
    let day = Date(timeIntervalSinceReferenceDate: 780_000_000)

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-migration-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent("trips.store")
    }

    func open(_ versioned: any VersionedSchema.Type, plan: (any SchemaMigrationPlan.Type)? = nil) throws -> ModelContainer {
        try ModelContainer(
            for: Schema(versionedSchema: versioned), migrationPlan: plan, configurations: ModelConfiguration(url: url))
    }

    /// Two trips named Kyoto (the later one a duplicate) and one to Oslo, with bucket lists.
    func writeVersion1() throws {
        let context = ModelContext(try open(TripsSchemaV1.self))
        let kyoto = TripsSchemaV1.Trip(name: "Kyoto", destination: "Japan", startDate: day)
        kyoto.bucketList = [TripsSchemaV1.BucketListItem(title: "Fushimi Inari")]
        let again = TripsSchemaV1.Trip(name: "Kyoto", destination: "Japan again", startDate: day + 86_400)
        again.bucketList = [TripsSchemaV1.BucketListItem(title: "Duplicate item")]
        let oslo = TripsSchemaV1.Trip(name: "Oslo", destination: "Norway", startDate: day + 2 * 86_400)
        for trip in [kyoto, again, oslo] { context.insert(trip) }
        try context.save()
    }

    /// The file and its side files, byte for byte.
    func files() throws -> [String: Data] {
        let directory = url.deletingLastPathComponent()
        var contents: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            contents[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return contents
    }

    @Test func aNewUniqueConstraintOverDuplicatesFailsAndLeavesTheFileAlone() throws {
        try writeVersion1()
        let before = try files()
        #expect {
            _ = try open(TripsSchemaV3.self, plan: TripsPlanWithoutDeduplication.self)
        } throws: { error in
            guard let error = error as? SwiftDataError, error == .modelValidationFailure else { return false }
            return "\(error)".contains("unique constraint on Trip (name)")
        }
        #expect(try files() == before, "a failed migration changed the store's files")
        #expect(try ModelContext(try open(TripsSchemaV1.self)).fetchCount(FetchDescriptor<TripsSchemaV1.Trip>()) == 3)
    }

    @Test func aFailingStageRollsTheWholeMigrationBack() throws {
        try writeVersion1()
        let before = try files()
        #expect(throws: TripsPlanThatFails.Refused.self) {
            _ = try open(TripsSchemaV2.self, plan: TripsPlanThatFails.self)
        }
        #expect(try files() == before)
        let trips = try ModelContext(try open(TripsSchemaV1.self)).fetch(FetchDescriptor<TripsSchemaV1.Trip>())
        #expect(trips.count == 3)
    }

    @Test func aStoreTheAppCannotPlaceIsRefusedUntouched() throws {
        try writeVersion1()
        _ = try open(TripsSchemaV2.self, plan: TripsMigrationPlan.self)
        let before = try files()
        // Written by version 2; this app knows only version 1 and has no plan.
        #expect(throws: SwiftDataError.backwardMigration) { _ = try open(TripsSchemaV1.self) }
        #expect(try files() == before)

        try FileManager.default.removeItem(at: url)
        try writeVersion1()
        let version1 = try files()
        // A plan that does not know the recorded version 1.
        #expect(throws: SwiftDataError.unknownSchema) { _ = try open(TripsSchemaV3.self, plan: TripsPlanFromV2.self) }
        let after = try files()
        #expect(after == version1, "\(after.mapValues(\.count)) != \(version1.mapValues(\.count))")
    }

    @Test func lightweightChangesNeedNoPlan() throws {
        try writeVersion1()
        // Rename through originalName and a defaulted new attribute, without a plan.
        let context = ModelContext(try open(TripsSchemaV2.self))
        let trips = try context.fetch(FetchDescriptor<TripsSchemaV2.Trip>(sortBy: [SortDescriptor(\.startDate)]))
        #expect(trips.map(\.place) == ["Japan", "Japan again", "Norway"])
        #expect(trips.map(\.rating) == [0, 0, 0])
    }

    @Test func anEntityRenameRenamesItsTableAndJoinTable() throws {
        let first = ModelContext(try open(PlacesSchemaV1.self))
        let kyoto = PlacesSchemaV1.Place(name: "Kyoto")
        kyoto.tags = [PlacesSchemaV1.Tag(label: "temples")]
        first.insert(kyoto)
        try first.save()
        // The migrated file replaces the original and keeps the permissions its owner gave it.
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: url.path)

        let renamed = ModelContext(try open(PlacesSchemaV2.self, plan: PlacesMigrationPlan.self))
        #expect((try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue == 0o640)
        #expect(try renamed.fetch(FetchDescriptor<PlacesSchemaV2.Spot>()).first?.labels.map(\.label) == ["temples"])
        let connection = try SQLiteConnection(path: url.path)
        let tables = try connection.scalarText(
            "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite_%' ORDER BY name)")
        #expect(tables == "Spot,Spot_labels,Tag")
    }
}
