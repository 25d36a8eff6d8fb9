import Foundation
import StrataCore

/// The SampleTrips schema through three versions, as an app evolves it.
enum TripsSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self, BucketListItem.self] }

    @Model final class Trip {
        var name: String
        var destination: String
        var startDate: Date
        @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
        var bucketList: [BucketListItem] = []

        init(name: String, destination: String, startDate: Date) {
            self.name = name
            self.destination = destination
            self.startDate = startDate
        }
    }

    @Model final class BucketListItem {
        var title: String
        var trip: Trip?

        init(title: String) { self.title = title }
    }
}

/// V2 renames `destination` to `place` and adds a defaulted `rating`.
enum TripsSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self, BucketListItem.self] }

    @Model final class Trip {
        var name: String
        @Attribute(originalName: "destination") var place: String
        var startDate: Date
        var rating: Int = 0
        @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
        var bucketList: [BucketListItem] = []

        init(name: String, place: String, startDate: Date) {
            self.name = name
            self.place = place
            self.startDate = startDate
        }
    }

    @Model final class BucketListItem {
        var title: String
        var trip: Trip?

        init(title: String) { self.title = title }
    }
}

/// V3 makes trip names unique and adds optional `notes`.
enum TripsSchemaV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self, BucketListItem.self] }

    @Model final class Trip {
        #Unique<Trip>([\.name])
        var name: String
        @Attribute(originalName: "destination") var place: String
        var startDate: Date
        var rating: Int = 0
        var notes: String?
        @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
        var bucketList: [BucketListItem] = []

        init(name: String, place: String, startDate: Date) {
            self.name = name
            self.place = place
            self.startDate = startDate
        }
    }

    @Model final class BucketListItem {
        var title: String
        var trip: Trip?

        init(title: String) { self.title = title }
    }
}

/// V1 → V2 → V3: a lightweight stage, then a custom one that removes duplicate names before
/// the unique constraint exists and fills `notes` after.
enum TripsMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsSchemaV1.self, TripsSchemaV2.self, TripsSchemaV3.self] }
    static var stages: [MigrationStage] { [v1ToV2, v2ToV3] }

    static let v1ToV2 = MigrationStage.lightweight(fromVersion: TripsSchemaV1.self, toVersion: TripsSchemaV2.self)
    static let v2ToV3 = MigrationStage.custom(
        fromVersion: TripsSchemaV2.self, toVersion: TripsSchemaV3.self,
        willMigrate: { context in
            let trips = try context.fetch(FetchDescriptor<TripsSchemaV2.Trip>(sortBy: [SortDescriptor(\.startDate)]))
            var seen = Set<String>()
            for trip in trips where !seen.insert(trip.name).inserted { context.delete(trip) }
            try context.save()
        },
        didMigrate: { context in
            for trip in try context.fetch(FetchDescriptor<TripsSchemaV3.Trip>()) { trip.notes = "checked in V3" }
            try context.save()
        })
}

/// V1 → V2 → V3 with no stage to remove duplicates: the new unique constraint cannot hold.
enum TripsPlanWithoutDeduplication: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { TripsMigrationPlan.schemas }
    static var stages: [MigrationStage] {
        [TripsMigrationPlan.v1ToV2, .lightweight(fromVersion: TripsSchemaV2.self, toVersion: TripsSchemaV3.self)]
    }
}

/// V1 → V2 whose `didMigrate` fails.
enum TripsPlanThatFails: SchemaMigrationPlan {
    struct Refused: Error {}
    static var schemas: [any VersionedSchema.Type] { [TripsSchemaV1.self, TripsSchemaV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: TripsSchemaV1.self, toVersion: TripsSchemaV2.self, willMigrate: nil, didMigrate: { context in
            for trip in try context.fetch(FetchDescriptor<TripsSchemaV2.Trip>()) { trip.rating = 5 }
            try context.save()
            throw Refused()
        })]
    }
}

/// V3 back to V1: the plan's order, not the version numbers, sets the direction.
enum TripsRollbackPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsSchemaV3.self, TripsSchemaV2.self, TripsSchemaV1.self] }
    static var stages: [MigrationStage] {
        [.lightweight(fromVersion: TripsSchemaV3.self, toVersion: TripsSchemaV2.self),
         .lightweight(fromVersion: TripsSchemaV2.self, toVersion: TripsSchemaV1.self)]
    }
}

/// A plan that knows only V2 and V3.
enum TripsPlanFromV2: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsSchemaV2.self, TripsSchemaV3.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: TripsSchemaV2.self, toVersion: TripsSchemaV3.self)] }
}

/// Places with tags, linked many-to-many through a join table.
enum PlacesSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Place.self, Tag.self] }

    @Model final class Place {
        var name: String
        var tags: [Tag] = []

        init(name: String) { self.name = name }
    }

    @Model final class Tag {
        var label: String

        init(label: String) { self.label = label }
    }
}

/// V2 renames the entity `Place` to `Spot` and its relationship `tags` to `labels`.
enum PlacesSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Spot.self, Tag.self] }

    @Model(originalName: "Place") final class Spot {
        var name: String
        @Relationship(originalName: "tags") var labels: [Tag] = []

        init(name: String) { self.name = name }
    }

    @Model final class Tag {
        var label: String

        init(label: String) { self.label = label }
    }
}

/// Places V1 → V2, a rename of an entity and of a to-many relationship.
enum PlacesMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [PlacesSchemaV1.self, PlacesSchemaV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: PlacesSchemaV1.self, toVersion: PlacesSchemaV2.self)] }
}

/// Places V2 back to V1.
enum PlacesRollbackPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [PlacesSchemaV2.self, PlacesSchemaV1.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: PlacesSchemaV2.self, toVersion: PlacesSchemaV1.self)] }
}
