/// The class hierarchies of every schema a container opened in this process, for
/// translating `is` tests in predicates, which name a class but not a schema.
///
/// Whether a class inherits from another is a fact of the program, so one table serves
/// every container.
enum ModelHierarchies {
    private static let descendants = Locked<[String: Set<String>]>([:])

    /// Records the hierarchies of `schema`.
    static func register(_ schema: Schema) {
        let found = schema.entities.filter { !$0.subentities.isEmpty }
        guard !found.isEmpty else { return }
        descendants.withLock { table in
            for entity in found {
                table[entity.name, default: []].formUnion(schema.hierarchy(from: entity).dropFirst().map(\.name))
            }
        }
    }

    /// `entityName` and the names of the entities known to inherit from it, sorted.
    static func names(inheritingFrom entityName: String) -> [String] {
        // Every fetch plans through here, and most entities have no subclass: no sort then.
        guard let known = descendants.withLock({ $0[entityName] }), !known.isEmpty else { return [entityName] }
        return [entityName] + known.sorted()
    }

    /// Whether an entity is known to have subclasses; in an app without class hierarchies
    /// the answer takes no hash of the name.
    static func hasDescendants(_ entityName: String) -> Bool {
        descendants.withLock { !$0.isEmpty && $0[entityName]?.isEmpty == false }
    }
}
