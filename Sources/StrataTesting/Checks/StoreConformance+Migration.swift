import Foundation
import StrataCore
import Testing

extension StoreConformance {
    static let migrationChecks: [Check] = [
        Check("a migration plan runs its stages in order, keeps renamed data and rolls back", migrationPlanRunsAndRollsBack),
        Check("a migration that fails leaves the data and its version as they were", failedMigrationChangesNothing),
        Check("an entity and a relationship renamed through originalName keep their data and links", entityRenameKeepsData),
    ]

    /// A container over the store `name` with one version of the trips schema.
    private static func tripsContainer(
        _ harness: ConformanceHarness, _ name: String, _ version: any VersionedSchema.Type, plan: (any SchemaMigrationPlan.Type)? = nil
    ) throws -> ModelContainer {
        let schema = Schema(versionedSchema: version)
        return try ModelContainer(for: schema, migrationPlan: plan, configurations: [try harness.makeConfiguration(schema, name)])
    }

    /// Saves two trips named Kyoto (the second a duplicate) and one to Oslo, with bucket
    /// lists; returns `false` when the store keeps nothing across containers, so there is
    /// nothing to migrate.
    private static func writeTripsVersion1(_ harness: ConformanceHarness, _ name: String) throws -> Bool {
        let day = Date(timeIntervalSinceReferenceDate: 780_000_000)
        let context = harness.context(try tripsContainer(harness, name, TripsSchemaV1.self))
        let kyoto = TripsSchemaV1.Trip(name: "Kyoto", destination: "Japan", startDate: day)
        kyoto.bucketList = [TripsSchemaV1.BucketListItem(title: "Fushimi Inari")]
        let again = TripsSchemaV1.Trip(name: "Kyoto", destination: "Japan again", startDate: day + 86_400)
        again.bucketList = [TripsSchemaV1.BucketListItem(title: "Duplicate item")]
        for trip in [kyoto, again, TripsSchemaV1.Trip(name: "Oslo", destination: "Norway", startDate: day + 2 * 86_400)] {
            context.insert(trip)
        }
        try context.save()
        let reopened = harness.context(try tripsContainer(harness, name, TripsSchemaV1.self))
        return try reopened.fetchCount(FetchDescriptor<TripsSchemaV1.Trip>()) == 3
    }

    static func migrationPlanRunsAndRollsBack(_ harness: ConformanceHarness) throws {
        let name = ConformanceHarness.uniqueName(for: harness.check)
        guard try writeTripsVersion1(harness, name) else { return }

        let migrated = harness.context(try tripsContainer(harness, name, TripsSchemaV3.self, plan: TripsMigrationPlan.self))
        let trips = try migrated.fetch(FetchDescriptor<TripsSchemaV3.Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Kyoto", "Oslo"], "willMigrate did not remove the duplicate")
        #expect(trips.map(\.place) == ["Japan", "Norway"], "the attribute renamed through originalName lost its data")
        #expect(trips.map(\.rating) == [0, 0], "the new attribute did not get its default value")
        #expect(trips.map(\.notes) == ["checked in V3", "checked in V3"], "didMigrate did not run, or its changes were not saved")
        #expect(trips.first?.bucketList.map(\.title) == ["Fushimi Inari"])
        #expect(try migrated.fetchCount(FetchDescriptor<TripsSchemaV3.BucketListItem>()) == 1, "the duplicate's items were not cascaded")

        // The new constraint holds: another Oslo updates the stored one.
        migrated.insert(TripsSchemaV3.Trip(name: "Oslo", place: "Norway, in winter", startDate: .now))
        try migrated.save()
        #expect(try migrated.fetchCount(FetchDescriptor<TripsSchemaV3.Trip>()) == 2)

        // Opening again with the plan finds nothing to do.
        let again = harness.context(try tripsContainer(harness, name, TripsSchemaV3.self, plan: TripsMigrationPlan.self))
        let stored = try again.fetch(FetchDescriptor<TripsSchemaV3.Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(stored.map(\.place) == ["Japan", "Norway, in winter"])
        #expect(stored.map(\.notes) == ["checked in V3", nil], "the upsert's values did not replace the stored ones")

        // A rollback plan lists the versions newest first; its order sets the direction.
        let rolledBack = harness.context(try tripsContainer(harness, name, TripsSchemaV1.self, plan: TripsRollbackPlan.self))
        let old = try rolledBack.fetch(FetchDescriptor<TripsSchemaV1.Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(old.map(\.destination) == ["Japan", "Norway, in winter"], "the rollback did not undo the rename with the data")
        #expect(old.first?.bucketList.map(\.title) == ["Fushimi Inari"])
        // The store is a version 1 store again: it opens without a plan.
        let plain = harness.context(try tripsContainer(harness, name, TripsSchemaV1.self))
        #expect(try plain.fetchCount(FetchDescriptor<TripsSchemaV1.Trip>()) == 2)
    }

    static func failedMigrationChangesNothing(_ harness: ConformanceHarness) throws {
        let name = ConformanceHarness.uniqueName(for: harness.check)
        guard try writeTripsVersion1(harness, name) else { return }
        #expect(throws: TripsPlanThatFails.Refused.self, "the stage's error did not reach the app") {
            _ = try tripsContainer(harness, name, TripsSchemaV2.self, plan: TripsPlanThatFails.self)
        }
        #expect(throws: SwiftDataError.modelValidationFailure, "a new unique constraint over duplicates was accepted") {
            _ = try tripsContainer(harness, name, TripsSchemaV3.self, plan: TripsPlanWithoutDeduplication.self)
        }
        // Still version 1, with every trip: it opens without a plan, and holds three.
        let context = harness.context(try tripsContainer(harness, name, TripsSchemaV1.self))
        let trips = try context.fetch(FetchDescriptor<TripsSchemaV1.Trip>(sortBy: [SortDescriptor(\.startDate)]))
        #expect(trips.map(\.destination) == ["Japan", "Japan again", "Norway"])
    }

    static func entityRenameKeepsData(_ harness: ConformanceHarness) throws {
        let name = ConformanceHarness.uniqueName(for: harness.check)
        let first = harness.context(try tripsContainer(harness, name, PlacesSchemaV1.self))
        let kyoto = PlacesSchemaV1.Place(name: "Kyoto")
        let oslo = PlacesSchemaV1.Place(name: "Oslo")
        let temples = PlacesSchemaV1.Tag(label: "temples")
        let fjords = PlacesSchemaV1.Tag(label: "fjords")
        kyoto.tags = [temples]
        oslo.tags = [fjords, temples]
        for place in [kyoto, oslo] { first.insert(place) }
        try first.save()
        let reopened = harness.context(try tripsContainer(harness, name, PlacesSchemaV1.self))
        guard try reopened.fetchCount(FetchDescriptor<PlacesSchemaV1.Place>()) == 2 else { return }  // keeps nothing

        let renamed = harness.context(try tripsContainer(harness, name, PlacesSchemaV2.self, plan: PlacesMigrationPlan.self))
        let spots = try renamed.fetch(FetchDescriptor<PlacesSchemaV2.Spot>(sortBy: [SortDescriptor(\.name)]))
        #expect(spots.map(\.name) == ["Kyoto", "Oslo"], "the renamed entity lost its records")
        #expect(spots.map { $0.labels.map(\.label).sorted() } == [["temples"], ["fjords", "temples"]], "the renamed relationship lost its links")
        try #require(spots.count == 2, "the renamed entity must hold both records for the rest of the check")
        spots[0].labels.append(try #require(try renamed.fetch(FetchDescriptor<PlacesSchemaV2.Tag>()).first { $0.label == "fjords" }))
        try renamed.save()

        let back = harness.context(try tripsContainer(harness, name, PlacesSchemaV1.self, plan: PlacesRollbackPlan.self))
        let places = try back.fetch(FetchDescriptor<PlacesSchemaV1.Place>(sortBy: [SortDescriptor(\.name)]))
        #expect(places.map(\.name) == ["Kyoto", "Oslo"], "the rollback lost the records")
        #expect(places.map { $0.tags.map(\.label).sorted() } == [["fjords", "temples"], ["fjords", "temples"]], "the rollback lost the links")
    }
}
