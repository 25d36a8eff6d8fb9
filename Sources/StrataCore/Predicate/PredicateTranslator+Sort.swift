import Foundation

extension PredicateTranslator {
    /// Translates sort descriptors into sort keys, one per descriptor, in order.
    ///
    /// A descriptor translates when its key path is a stored attribute of `T` whose stored
    /// form orders as its Swift values do (not `UInt`/`UInt64`, enums or `Codable` structs),
    /// and its string comparator is lexical (or, on Darwin, `.localized`/`.localizedStandard`).
    /// - Throws: `SwiftDataError.unsupportedSortDescriptor` naming the descriptor.
    static func translate<T: PersistentModel>(_ sortBy: [SortDescriptor<T>]) throws -> [FilterSortKey] {
        try sortBy.map { try sortKey(for: $0) }
    }

    private static func sortKey<T: PersistentModel>(for descriptor: SortDescriptor<T>) throws -> FilterSortKey {
        let layout = ModelLayout.of(T.self)
        func failure(_ reason: String) -> SwiftDataError {
            let keyPath = descriptor.keyPath.map { "\($0)" } ?? "no key path"
            return SwiftDataError.unsupportedSortDescriptor.with(details: "SortDescriptor<\(layout.entityName)>(\(keyPath)): \(reason)")
        }
        guard let keyPath = descriptor.keyPath else { throw failure("only descriptors made from a key path can be translated") }
        guard let slot = layout.slotsByKeyPath[keyPath] else {
            throw failure("the key path is not a persisted property of \(layout.entityName)")
        }
        let valueType = type(of: keyPath).valueType
        if case .attribute = ValueShape(of: valueType).role {} else {
            throw failure("\(layout.propertyNames[slot]) is a relationship")
        }
        if let problem = orderingProblem(of: valueType) { throw failure(problem) }
        return FilterSortKey(
            path: [layout.propertyNames[slot]],
            ascending: descriptor.order == .forward,
            stringOrder: try stringOrder(of: descriptor.stringComparator, failure: failure))
    }

    private static func stringOrder(
        of comparator: String.StandardComparator?, failure: (String) -> SwiftDataError
    ) throws -> FilterStringOrder? {
        guard var comparator else { return nil }
        comparator.order = .forward
        if comparator == .lexical { return nil }
        #if canImport(Darwin)
        if comparator == .localizedStandard { return .localizedStandard }
        if comparator == .localized { return .localized }
        #endif
        throw failure("the string comparator \(comparator) is not supported")
    }
}
