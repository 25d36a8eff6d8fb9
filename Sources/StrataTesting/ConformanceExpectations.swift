import Foundation
import StrataCore
import Testing

/// A model the checks find by its `name`.
protocol NamedModel: PersistentModel {
    var name: String { get }
}

extension Author: NamedModel {}
extension Book: NamedModel {}
extension Portrait: NamedModel {}
extension Label: NamedModel {}
extension Colleague: NamedModel {}
extension Keeper: NamedModel {}
extension Animal: NamedModel {}
extension Plaything: NamedModel {}
extension Loan: NamedModel {}
extension Vehicle: NamedModel {}
extension Locker: NamedModel {}
extension Keepsake: NamedModel {}
extension Course: NamedModel {}
extension Seat: NamedModel {}
extension Gadget: NamedModel {}

extension ModelContext {
    /// Every model of `type`, by name; records an issue when two share a name.
    func all<T: NamedModel>(
        _ type: T.Type, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: T] {
        let models = try fetch(FetchDescriptor<T>())
        var byName: [String: T] = [:]
        for model in models {
            if byName.updateValue(model, forKey: model.name) != nil {
                Issue.record("two \(T.self) models are named \"\(model.name)\"", sourceLocation: sourceLocation)
            }
        }
        return byName
    }

    /// The names of every model of `type`, sorted.
    func names<T: NamedModel>(_ type: T.Type) throws -> [String] {
        try fetch(FetchDescriptor<T>()).map(\.name).sorted()
    }

    /// The one model of `type` named `name`.
    ///
    /// - Throws: An `ExpectationFailedError` (recording an issue) when there is not exactly one.
    func one<T: NamedModel>(
        _ type: T.Type, named name: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> T {
        let matches = try fetch(FetchDescriptor<T>()).filter { $0.name == name }
        try #require(matches.count == 1, "expected one \(T.self) named \"\(name)\"", sourceLocation: sourceLocation)
        return matches[0]
    }
}

/// Names of models, sorted, for order-independent comparisons that print well.
func sortedNames<S: Sequence>(_ models: S) -> [String] where S.Element: NamedModel {
    models.map(\.name).sorted()
}

/// Runs predicates against saved models and compares fetch, count and identifiers with the expected names.
struct PredicateProbe<T: NamedModel> {
    let context: ModelContext
    /// The identifier of every saved model of `T`, by name.
    let identifiers: [String: PersistentIdentifier]

    /// A probe for the models of `T` saved in `container`, read through a fresh context.
    init(_ type: T.Type, in container: ModelContainer) throws {
        context = ModelContext(container)
        identifiers = try context.fetch(FetchDescriptor<T>()).reduce(into: [:]) { $0[$1.name] = $1.persistentModelID }
    }

    /// Expects `predicate` to select exactly the models named `expected`, through `fetch`,
    /// `fetchCount` and `fetchIdentifiers`.
    ///
    /// With `allowingUnsupported`, a ``SwiftDataError`` from the fetch is also accepted.
    func expect(
        _ predicate: Predicate<T>, _ expected: Set<String>, allowingUnsupported: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let descriptor = FetchDescriptor<T>(predicate: predicate)
        let wantedIDs = Set(expected.compactMap { identifiers[$0] })
        do {
            let models = try context.fetch(descriptor)
            let names = models.map(\.name)
            #expect(names.sorted() == expected.sorted(), "fetch selected the wrong models", sourceLocation: sourceLocation)
            #expect(Set(names).count == names.count, "fetch returned a model twice: \(names)", sourceLocation: sourceLocation)
        } catch is SwiftDataError where allowingUnsupported {
            return
        } catch {
            Issue.record(error, "fetch failed", sourceLocation: sourceLocation)
        }
        do {
            let count = try context.fetchCount(descriptor)
            #expect(count == expected.count, "fetchCount disagrees with the expected models", sourceLocation: sourceLocation)
        } catch is SwiftDataError where allowingUnsupported {
        } catch {
            Issue.record(error, "fetchCount failed", sourceLocation: sourceLocation)
        }
        do {
            let ids = try context.fetchIdentifiers(descriptor)
            #expect(Set(ids) == wantedIDs, "fetchIdentifiers selected the wrong models", sourceLocation: sourceLocation)
            #expect(ids.count == wantedIDs.count, "fetchIdentifiers returned an identifier twice", sourceLocation: sourceLocation)
        } catch is SwiftDataError where allowingUnsupported {
        } catch {
            Issue.record(error, "fetchIdentifiers failed", sourceLocation: sourceLocation)
        }
    }

    /// Expects `descriptor` to return the models named `expected`, in that order, from
    /// `fetch` and `fetchIdentifiers`, and their number from `fetchCount`.
    func expectOrder(
        _ descriptor: FetchDescriptor<T>, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let names = try context.fetch(descriptor).map(\.name)
            #expect(names == expected, "fetch returned the wrong models or order", sourceLocation: sourceLocation)
            let ids = try context.fetchIdentifiers(descriptor)
            #expect(ids == expected.compactMap { identifiers[$0] }, "fetchIdentifiers returned the wrong models or order", sourceLocation: sourceLocation)
            let count = try context.fetchCount(descriptor)
            #expect(count == expected.count, "fetchCount disagrees with fetch", sourceLocation: sourceLocation)
        } catch {
            Issue.record(error, "the fetch failed", sourceLocation: sourceLocation)
        }
    }

    /// Expects `descriptor` to return models in groups: each group's models before the next
    /// group's, in any order within a group (for ties the sort does not break).
    func expectGroups(
        _ descriptor: FetchDescriptor<T>, _ groups: [Set<String>], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let names = try context.fetch(descriptor).map(\.name)
            var position = 0
            var seen: [Set<String>] = []
            for group in groups {
                let end = min(position + group.count, names.count)
                seen.append(Set(names[position..<end]))
                position = end
            }
            #expect(seen == groups && names.count == groups.reduce(0) { $0 + $1.count },
                "fetch returned \(names); expected the groups \(groups.map { $0.sorted() }) in order", sourceLocation: sourceLocation)
        } catch {
            Issue.record(error, "the fetch failed", sourceLocation: sourceLocation)
        }
    }
}
