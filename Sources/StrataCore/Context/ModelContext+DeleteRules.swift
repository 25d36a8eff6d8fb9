import Foundation

// Delete rules, applied by the core so that every store gets them.
extension ModelContext {
    /// Extends the pending deletes by `.cascade`, refuses by `.deny`, and applies `.nullify`.
    func applyDeleteRules() throws {
        var plan = deleted.models
        var planned = Set(plan.map { ObjectIdentifier($0) })
        var denials: [(any PersistentModel, EntityRuntime.RelationshipSlot, [any PersistentModel])] = []
        var nullify: [(any PersistentModel, EntityRuntime.RelationshipSlot, [any PersistentModel])] = []
        var index = 0
        while index < plan.count {
            let model = plan[index]
            index += 1
            guard let data = managedAny(model) else { continue }
            let runtime = try runtime(for: data.entityName)
            for relationship in runtime.relationships {
                let related = try relatedModels(in: data[slot: relationship.slot])
                guard !related.isEmpty else { continue }
                switch relationship.deleteRule {
                case .cascade:
                    for other in related where planned.insert(ObjectIdentifier(other)).inserted { plan.append(other) }
                case .deny:
                    denials.append((model, relationship, related))
                case .nullify:
                    nullify.append((model, relationship, related))
                case .noAction:
                    break
                }
            }
        }
        for (model, relationship, related) in denials {
            let blocking = related.filter { !planned.contains(ObjectIdentifier($0)) }
            guard !blocking.isEmpty else { continue }
            throw SwiftDataError.modelValidationFailure.with(
                details: "\(Schema.entityName(for: type(of: model))) \(model.persistentModelID) cannot be deleted: its relationship \(relationship.name) has the .deny rule and still holds \(blocking.count) \(relationship.destination) model(s)")
        }
        for model in plan.dropFirst(deleted.count) {
            guard let data = managedAny(model) else { continue }
            data.isDeleted = true
            deleted.insert(model, data)
        }
        for (model, relationship, related) in nullify {
            let survivors = related.filter { !planned.contains(ObjectIdentifier($0)) }
            guard !survivors.isEmpty else { continue }
            maintainInverse(of: model, relationship, removed: survivors, added: [])
        }
    }
}
