// SampleTrips: the Trips app of Apple's SwiftData sessions as a command-line program.
//
// It shows what Strata does today: the schema `@Model` derives from the models, a trip
// graph held by detached models, Observation firing on edits, and the seeds' search
// predicate evaluated on Linux. Storage arrives with the containers and stores.
import Foundation
import Strata

let schema = Schema([Trip.self])
print("Schema \(schema.version): \(schema.entities.map(\.name).joined(separator: ", "))")
for entity in schema.entities {
    print("  \(entity.name)")
    for property in entity.storedProperties {
        if let attribute = property as? Schema.Attribute {
            let options = attribute.options.isEmpty ? "" : " \(attribute.options.map(\.description))"
            print("    \(attribute.name): \(attribute.persistentValueKind)\(attribute.isOptional ? "?" : "")\(options)")
        } else if let relationship = property as? Schema.Relationship {
            let arity = relationship.isToOneRelationship ? "to-one" : "to-many"
            print("    \(relationship.name): \(arity) \(relationship.destination), \(relationship.deleteRule), inverse \(relationship.inverseName ?? "none")")
        }
    }
    if !entity.uniquenessConstraints.isEmpty { print("    unique: \(entity.uniquenessConstraints)") }
    if !entity.indices.isEmpty { print("    indices: \(entity.indices)") }
}
do {
    try schema.validate()
    print("Schema is valid.")
} catch {
    print("Schema problem: \(error)")
}

let trips = Trip.makeSampleTrips()
print("\nSample trips:")
for trip in trips {
    let unplanned = trip.bucketList.filter { !$0.isInPlan }.count
    print("  \(trip.name) in \(trip.destination): \(trip.bucketList.count) bucket-list items (\(unplanned) unplanned), staying at \(trip.livingAccommodation?.placeName ?? "nowhere yet")")
}

let zurich = trips[0]
let tripName = zurich.name
withObservationTracking {
    _ = zurich.destination
} onChange: {
    print("\nObserved a change to the destination of \(tripName).")
}
zurich.destination = "Zürich, Switzerland"
print("Destination is now \(zurich.destination).")

let searchText = "zur"
let search = #Predicate<Trip> {
    searchText.isEmpty ? true : $0.name.localizedStandardContains(searchText) || $0.destination.localizedStandardContains(searchText)
}
let matches = try trips.filter { try search.evaluate($0) }
print("\nTrips matching \"\(searchText)\": \(matches.map(\.name))")
