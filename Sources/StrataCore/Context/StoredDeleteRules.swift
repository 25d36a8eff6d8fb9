import Foundation

/// The delete rules of a delete by predicate, applied to stored models without loading them.
///
/// ``ModelContext/delete(model:where:includeSubclasses:)`` hands this the identifiers of the
/// stored matches. It reads their snapshots a chunk at a time and follows each relationship's
/// rule: `.cascade` adds the destinations to the delete (and reads theirs in turn), `.deny`
/// refuses while a destination survives, and `.nullify` with an inverse removes the deleted
/// models from the surviving destinations' inverse. Only identifiers are kept between chunks,
/// so memory grows with the number of models deleted, not with their size as models.
struct StoredDeleteRules {
    /// Every model to delete: the matches, then what `.cascade` reached, in the order found.
    private(set) var deleting: [PersistentIdentifier] = []
    private var deletingSet: Set<PersistentIdentifier> = []
    /// Destinations of `.deny` relationships, by the deleted model and relationship that hold them.
    private var denials: [(model: PersistentIdentifier, relationship: String, related: [PersistentIdentifier])] = []
    /// Destinations whose inverse relationship lists a deleted model, with that inverse's name.
    private var nullified: [(related: PersistentIdentifier, inverse: String, deleted: PersistentIdentifier)] = []

    /// Reads the snapshots of `matches`, and of every model a `.cascade` reaches from them.
    ///
    /// - Throws: The store's error when a lookup fails.
    init(matches: [PersistentIdentifier], in context: ModelContext) throws {
        for id in matches where deletingSet.insert(id).inserted { deleting.append(id) }
        var scanned = 0
        while scanned < deleting.count {
            let chunk = Array(deleting[scanned..<min(scanned + ModelContext.batchDeleteChunk, deleting.count)])
            scanned += chunk.count
            for snapshot in try context.lookupSnapshots(chunk) {
                try follow(snapshot, in: context)
            }
        }
    }

    private mutating func follow(_ snapshot: DefaultSnapshot, in context: ModelContext) throws {
        let id = snapshot.persistentIdentifier
        for relationship in try context.runtime(of: snapshot).relationships {
            let related = snapshot[relationship.name]?.relatedIdentifiers ?? []
            guard !related.isEmpty else { continue }
            switch relationship.deleteRule {
            case .cascade:
                for other in related where deletingSet.insert(other).inserted { deleting.append(other) }
            case .deny:
                denials.append((id, relationship.name, related))
            case .nullify:
                guard let inverseSlot = relationship.inverseSlot else { continue }
                let inverse = try context.runtime(for: relationship.destination).propertyNames[inverseSlot]
                for other in related { nullified.append((other, inverse, id)) }
            case .noAction:
                break
            }
        }
    }

    /// Throws when a `.deny` relationship of a deleted model holds a model that survives.
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` naming the model and relationship.
    func refuseDenied() throws {
        for denial in denials {
            let blocking = denial.related.filter { !deletingSet.contains($0) }
            guard !blocking.isEmpty else { continue }
            throw SwiftDataError.modelValidationFailure.with(
                details: "\(denial.model) cannot be deleted: its relationship \(denial.relationship) has the .deny rule and still holds \(blocking.count) \(blocking[0].entityName) model(s)")
        }
    }

    /// The surviving destinations of `.nullify` relationships, each with the values of the
    /// inverse properties that lose deleted models (only those properties).
    func nullifiedValues(in context: ModelContext) throws -> [DefaultSnapshot] {
        var removed: [PersistentIdentifier: [String: Set<PersistentIdentifier>]] = [:]
        for entry in nullified where !deletingSet.contains(entry.related) {
            removed[entry.related, default: [:]][entry.inverse, default: []].insert(entry.deleted)
        }
        var changes: [DefaultSnapshot] = []
        for chunk in Array(removed.keys).chunks(of: ModelContext.batchDeleteChunk) {
            for snapshot in try context.lookupSnapshots(Array(chunk)) {
                guard let lost = removed[snapshot.persistentIdentifier] else { continue }
                let names = lost.keys.sorted()
                let values = names.map { name in
                    Self.removing(lost[name]!, from: snapshot[name] ?? .null)
                }
                changes.append(DefaultSnapshot(persistentIdentifier: snapshot.persistentIdentifier, propertyNames: names, values: values))
            }
        }
        return changes
    }

    /// `value` without the identifiers in `removed`.
    private static func removing(_ removed: Set<PersistentIdentifier>, from value: PersistentValue) -> PersistentValue {
        switch value {
        case .identifier(let id) where removed.contains(id): .null
        case .identifiers(let ids): .identifiers(ids.filter { !removed.contains($0) })
        default: value
        }
    }
}

extension PersistentValue {
    /// The identifiers a relationship value holds.
    var relatedIdentifiers: [PersistentIdentifier] {
        switch self {
        case .identifier(let id): [id]
        case .identifiers(let ids): ids
        default: []
        }
    }
}
