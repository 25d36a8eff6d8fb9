// SampleTrips: the Trips app of Apple's SwiftData sessions as a command-line program.
//
// It runs the sessions' flow through a ModelContainer on the default SQLite store: insert
// the trip graph, save, query with the sessions' predicates, upsert on the #Unique
// constraint, cascade-delete, enumerate in batches, roll back, then reopen the file and
// read what was saved.
import Foundation
import Strata

let schema = Schema([Trip.self])
print("Schema \(schema.version): \(schema.entities.map(\.name).joined(separator: ", "))")
for entity in schema.entities {
    let relationships = entity.storedProperties.compactMap { $0 as? Schema.Relationship }
        .map { "\($0.name) -> \($0.destination) (\($0.deleteRule), inverse \($0.inverseName ?? "none"))" }
    print("  \(entity.name): \(entity.attributes.count) attributes; \(relationships.joined(separator: "; "))")
    if !entity.uniquenessConstraints.isEmpty { print("    unique: \(entity.uniquenessConstraints)") }
    if !entity.indices.isEmpty { print("    indices: \(entity.indices)") }
}

let container = try ModelContainer(for: Trip.self)
try container.erase()
let storeFile = container.configurations.first?.url.path ?? "?"
print("\nStore: \(storeFile) (emptied for a fresh run)")
let context = ModelContext(container)

// Insert the graph: inserting each trip inserts its bucket list and accommodation.
let now = Date.now
for trip in Trip.makeSampleTrips(now: now) { context.insert(trip) }
try context.save()
print("\nSaved \(try context.fetchCount(FetchDescriptor<Trip>())) trips, \(try context.fetchCount(FetchDescriptor<BucketListItem>())) bucket-list items.")

// The session's search predicates.
let searchText = "zur"
let search = #Predicate<Trip> {
    searchText.isEmpty ? true : $0.name.localizedStandardContains(searchText) || $0.destination.localizedStandardContains(searchText)
}
print("Trips matching \"\(searchText)\": \(try context.fetch(FetchDescriptor(predicate: search)).map(\.name))")

let hotel = "Hotel Seerose"
let atHotel = #Predicate<Trip> { $0.livingAccommodation?.placeName == hotel }
print("Trips staying at \(hotel): \(try context.fetch(FetchDescriptor(predicate: atHotel)).map(\.name))")

let today = now
let ongoingWithUnplanned = #Predicate<Trip> { trip in
    trip.startDate <= today && today < trip.endDate && trip.bucketList.contains { !$0.isInPlan }
}
print("Ongoing trips with unplanned items: \(try context.fetch(FetchDescriptor(predicate: ongoingWithUnplanned)).map(\.name))")

// #Unique: inserting the same name and dates updates the stored trip.
let kyoto = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Kyoto" })).first!
context.insert(Trip(name: kyoto.name, destination: "Kyoto, Japan", startDate: kyoto.startDate, endDate: kyoto.endDate))
try context.save()
print("\nAfter inserting a duplicate of \"\(kyoto.name)\": \(try context.fetchCount(FetchDescriptor<Trip>())) trips; destination is now \(kyoto.destination).")

// Cascade: deleting a trip deletes its bucket list and accommodation.
context.delete(kyoto)
try context.save()
print("After deleting it: \(try context.fetchCount(FetchDescriptor<Trip>())) trip(s), \(try context.fetchCount(FetchDescriptor<BucketListItem>())) bucket-list items, \(try context.fetchCount(FetchDescriptor<LivingAccommodation>())) accommodation(s).")

// Enumerate in batches.
var titles: [String] = []
try context.enumerate(FetchDescriptor<BucketListItem>(sortBy: [SortDescriptor(\.title)]), batchSize: 1) { titles.append($0.title) }
print("\nBucket list, one batch at a time: \(titles)")

// Rollback.
let zurich = try context.fetch(FetchDescriptor<Trip>()).first!
zurich.destination = "Somewhere else"
context.insert(Trip(name: "Unsaved", destination: "Nowhere"))
context.rollback()
print("After rollback: \(zurich.name) is in \(zurich.destination); \(try context.fetchCount(FetchDescriptor<Trip>())) trip(s).")

print("\nHow the search runs:\n\(context.explain(FetchDescriptor(predicate: search, sortBy: [SortDescriptor(\.name)])))")

// Reopen the file in a new container: what was saved is there.
let reopened = try ModelContainer(for: Trip.self)
// The context is kept while its models are read: a model holds its context weakly, and
// relationships it has not loaded read as empty once the context is gone.
let reader = ModelContext(reopened)
let trips = try reader.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
print("\nReopened \(storeFile): \(trips.map { "\($0.name) (\($0.bucketList.count) items, staying at \($0.livingAccommodation?.placeName ?? "nowhere"))" })")
