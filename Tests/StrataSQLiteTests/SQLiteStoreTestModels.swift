import Foundation
import StrataCore

// The seeds' SampleTrips models with Apple's cascade rules, for on-disk tests.
@Model final class DiskTrip {
    #Unique<DiskTrip>([\.name, \.startDate, \.endDate])
    #Index<DiskTrip>([\.name], [\.startDate], [\.endDate], [\.name, \.startDate, \.endDate])
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    @Relationship(deleteRule: .cascade, inverse: \DiskItem.trip) var bucketList: [DiskItem] = []
    @Relationship(deleteRule: .cascade, inverse: \DiskStay.trip) var livingAccommodation: DiskStay?
    init(name: String, destination: String, startDate: Date, endDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
    }
}

@Model final class DiskItem {
    var title: String
    var isInPlan: Bool
    var trip: DiskTrip?
    init(title: String, isInPlan: Bool) {
        self.title = title
        self.isInPlan = isInPlan
    }
}

@Model final class DiskStay {
    var placeName: String
    var trip: DiskTrip?
    init(placeName: String) { self.placeName = placeName }
}

/// One of each column representation.
@Model final class Sample {
    var flag: Bool
    var when: Date
    var uuid: UUID
    var amount: Decimal
    var link: URL?
    var tags: [String]
    @Attribute(.externalStorage) var photo: Data?
    init(flag: Bool, when: Date, uuid: UUID, amount: Decimal, tags: [String]) {
        self.flag = flag
        self.when = when
        self.uuid = uuid
        self.amount = amount
        self.tags = tags
    }
}

enum NotesV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self] }
    @Model final class Note {
        var text: String
        init(text: String) { self.text = text }
    }
}

enum NotesV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self] }
    @Model final class Note {
        var text: String
        var tag: String?
        var priority: Int = 3
        init(text: String) { self.text = text }
    }
}

/// A to-many relationship with no inverse, kept in a join table, and a large attribute kept
/// beside the store: what a delete by predicate must remove besides the rows.
@Model final class Album {
    var title: String
    @Attribute(.externalStorage) var cover: Data?
    @Relationship(deleteRule: .noAction) var pictures: [Picture] = []
    init(title: String) { self.title = title }
}

@Model final class Picture {
    var caption: String
    init(caption: String) { self.caption = caption }
}
