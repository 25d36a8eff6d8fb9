import Foundation
import StrataCore

/// `SELECT`s compiled once per shape of request: the entity, the columns, the sort and the
/// filter with its constants taken out. A fetch repeated with other constants, such as a
/// lookup by name in a loop, binds them into the SQL compiled for the first one.
///
/// A shape is compiled twice, with two different sets of stand-ins for its constants, and
/// kept only when both texts are the same and every binding is, in both, either the
/// stand-in of one constant (that constant is bound there) or one and the same value (a
/// constant the shape itself holds). Whatever the compiler derives from a constant's value
/// shows up as a difference, and such a shape is compiled afresh for every fetch.
///
/// Only constants whose compiled form cannot depend on their value are taken out: strings,
/// dates, UUIDs, and integers and doubles other than zero. The others (`nil`, zero,
/// Booleans, identifiers, lists, ...) stay in the shape, so a different one is another shape.
final class SQLiteSelectCache: Sendable {
    /// A request's shape.
    struct Key: Hashable {
        var entity: String
        var columns: [String]
        /// The filter with each constant taken out replaced by its class's ``placeholder(for:)``.
        var filter: FilterExpression?
        var sort: [FilterSortKey]

        // The columns of one entity's requests are the whole row or a few named ones: their
        // count tells most shapes apart without hashing every name, and `==` checks them all.
        func hash(into hasher: inout Hasher) {
            hasher.combine(entity)
            hasher.combine(columns.count)
            hasher.combine(filter)
            hasher.combine(sort)
        }
    }

    /// Where one `?` of a kept shape gets its value.
    enum Binding {
        /// The constant taken out at this position of the filter.
        case constant(Int)
        /// A value the shape holds.
        case fixed(SQLiteValue)
    }

    /// A shape's compiled SQL, or `nil` when it must be compiled for every fetch.
    typealias Entry = (sql: String, bindings: [Binding])?

    /// Shapes kept at most; the cache empties when it is full (an app has a few dozen).
    static let capacity = 256

    /// The shapes kept, and the last one asked for: a fetch repeated in a loop finds it by
    /// one comparison instead of hashing the whole filter.
    private let entries = Locked<(all: [Key: Entry], last: Last?)>(([:], nil))

    /// The shape asked for last, in an object: reading it to compare retains one reference,
    /// where a key and entry held in place were copied part by part (about 500 instructions).
    private final class Last: Sendable {
        let key: Key
        let entry: Entry

        init(_ key: Key, _ entry: Entry) {
            self.key = key
            self.entry = entry
        }
    }

    /// The statement of `select`, from the cache when its shape was compiled before.
    ///
    /// `compile` compiles a request of the same entity, columns and sort, without limit or
    /// offset, for the filter it is given.
    /// - Throws: What `compile` throws for this filter.
    func select(
        entity: String, columns: [String], filter: FilterExpression?, sort: [FilterSortKey], storeIdentifier: String,
        compile: (FilterExpression?) throws -> SQLiteQuery
    ) throws -> SQLiteQuery {
        var constants: [PersistentValue] = []
        // A fetch repeated in a loop matches the last shape in place: no shape is built, hashed or freed.
        if let filter, let last = entries.withLock({ $0.last }), let shape = last.key.filter, last.key.entity == entity,
            last.key.columns == columns, last.key.sort == sort
        {
            if Self.matches(filter, shape: shape, constants: &constants), let (sql, recipe) = last.entry {
                return Self.query(sql, recipe, constants: constants, storeIdentifier: storeIdentifier)
            }
            constants.removeAll(keepingCapacity: true)
        }
        var cacheable = true
        let shape = filter?.replacingValues { value in
            guard let shaped = Self.shapeValue(of: value, constants: &constants) else {
                cacheable = false
                return value
            }
            return shaped
        }
        guard cacheable else { return try compile(filter) }
        let key = Key(entity: entity, columns: columns, filter: shape, sort: sort)
        let cached: Entry? = entries.withLock { entries in
            if let last = entries.last, last.key == key { return last.entry }
            guard let entry = entries.all[key] else { return nil }
            entries.last = Last(key, entry)
            return entry
        }
        let entry: Entry
        if let cached {
            entry = cached
        } else {
            entry = Self.entry(for: shape, constants: constants, compile: compile)
            entries.withLock { entries in
                if entries.all.count >= Self.capacity { entries.all.removeAll(keepingCapacity: true) }
                entries.all[key] = entry
                entries.last = Last(key, entry)
            }
        }
        guard let (sql, recipe) = entry else { return try compile(filter) }
        return Self.query(sql, recipe, constants: constants, storeIdentifier: storeIdentifier)
    }

    /// A kept shape's statement with `constants` bound as `recipe` says.
    private static func query(_ sql: String, _ recipe: [Binding], constants: [PersistentValue], storeIdentifier: String) -> SQLiteQuery {
        var bindings: [SQLiteValue] = []
        bindings.reserveCapacity(recipe.count)
        for binding in recipe {
            switch binding {
            case .constant(let index): bindings.append(SQLiteValueCodec.encode(constants[index], storeIdentifier: storeIdentifier))
            case .fixed(let value): bindings.append(value)
            }
        }
        return SQLiteQuery(sql: sql, bindings: bindings)
    }

    /// Whether `filter`, with its constants taken out as ``select(entity:columns:filter:sort:storeIdentifier:compile:)``
    /// takes them, is `shape`; the constants taken out are appended to `constants` in order.
    /// `false` for a filter with a NaN, which is never cached.
    static func matches(_ filter: FilterExpression, shape: FilterExpression, constants: inout [PersistentValue]) -> Bool {
        switch (filter, shape) {
        case (.value(let value), .value(let shaped)):
            guard let value = shapeValue(of: value, constants: &constants) else { return false }
            return value == shaped
        case (.list, .list), (.property, .property):
            return filter == shape
        case (.comparison(let op, let lhs, let rhs), .comparison(let shapedOp, let shapedLHS, let shapedRHS)):
            return op == shapedOp && matches(lhs, shape: shapedLHS, constants: &constants) && matches(rhs, shape: shapedRHS, constants: &constants)
        case (.and(let lhs, let rhs), .and(let shapedLHS, let shapedRHS)), (.or(let lhs, let rhs), .or(let shapedLHS, let shapedRHS)),
            (.coalesce(let lhs, let rhs), .coalesce(let shapedLHS, let shapedRHS)),
            (.contains(let lhs, let rhs), .contains(let shapedLHS, let shapedRHS)):
            return matches(lhs, shape: shapedLHS, constants: &constants) && matches(rhs, shape: shapedRHS, constants: &constants)
        case (.not(let operand), .not(let shaped)), (.negate(let operand), .negate(let shaped)), (.count(let operand), .count(let shaped)):
            return matches(operand, shape: shaped, constants: &constants)
        case (.arithmetic(let op, let lhs, let rhs), .arithmetic(let shapedOp, let shapedLHS, let shapedRHS)):
            return op == shapedOp && matches(lhs, shape: shapedLHS, constants: &constants) && matches(rhs, shape: shapedRHS, constants: &constants)
        case (.stringTest(let test, let lhs, let rhs), .stringTest(let shapedTest, let shapedLHS, let shapedRHS)):
            return test == shapedTest && matches(lhs, shape: shapedLHS, constants: &constants) && matches(rhs, shape: shapedRHS, constants: &constants)
        case (.stringOrder(let order, let lhs, let rhs), .stringOrder(let shapedOrder, let shapedLHS, let shapedRHS)):
            return order == shapedOrder && matches(lhs, shape: shapedLHS, constants: &constants) && matches(rhs, shape: shapedRHS, constants: &constants)
        case (.conditional(let test, let then, let otherwise), .conditional(let shapedTest, let shapedThen, let shapedOtherwise)):
            return matches(test, shape: shapedTest, constants: &constants) && matches(then, shape: shapedThen, constants: &constants)
                && matches(otherwise, shape: shapedOtherwise, constants: &constants)
        case (.rangeContains(let lower, let upper, let closed, let element), .rangeContains(let shapedLower, let shapedUpper, let shapedClosed, let shapedElement)):
            return closed == shapedClosed && matches(lower, shape: shapedLower, constants: &constants)
                && matches(upper, shape: shapedUpper, constants: &constants) && matches(element, shape: shapedElement, constants: &constants)
        case (.anySatisfy(let collection, let variable, let test), .anySatisfy(let shapedCollection, let shapedVariable, let shapedTest)),
            (.allSatisfy(let collection, let variable, let test), .allSatisfy(let shapedCollection, let shapedVariable, let shapedTest)),
            (.filter(let collection, let variable, let test), .filter(let shapedCollection, let shapedVariable, let shapedTest)):
            return variable == shapedVariable && matches(collection, shape: shapedCollection, constants: &constants)
                && matches(test, shape: shapedTest, constants: &constants)
        case (.aggregate(let aggregate, let operand), .aggregate(let shapedAggregate, let shaped)):
            return aggregate == shapedAggregate && matches(operand, shape: shaped, constants: &constants)
        default:
            return false
        }
    }

    /// What `value` is in a shape: its class's ``placeholder(for:)``, when it is taken out
    /// (then appended to `constants`), or itself; `nil` for a NaN, which makes a shape that is
    /// never found again (NaN != NaN) and so is not cached.
    @inline(__always)
    private static func shapeValue(of value: PersistentValue, constants: inout [PersistentValue]) -> PersistentValue? {
        if let placeholder = placeholder(for: value) {
            constants.append(value)
            return placeholder
        }
        if case .double(let number) = value, number.isNaN { return nil }
        if case .decimal(let number) = value, number.isNaN { return nil }
        return value
    }

    /// The number of shapes kept or refused; for tests.
    var count: Int { entries.withLock { $0.all.count } }

    /// Compiles `shape` with two sets of stand-ins and keeps it when the two agree as the type's comment says.
    static func entry(for shape: FilterExpression?, constants: [PersistentValue], compile: (FilterExpression?) throws -> SQLiteQuery) -> Entry {
        var standIns: [[SQLiteValue: Int]] = [[:], [:]]
        var compiled: [SQLiteQuery] = []
        for set in 0..<2 {
            var index = 0
            let filter = shape?.replacingValues { value in
                guard placeholder(for: value) != nil else { return value }
                defer { index += 1 }
                let standIn = standIn(for: constants[index], number: index, set: set)
                standIns[set][SQLiteValueCodec.encode(standIn, storeIdentifier: "")] = index
                return standIn
            }
            guard standIns[set].count == constants.count, let query = try? compile(filter) else { return nil }
            compiled.append(query)
        }
        let (first, second) = (compiled[0], compiled[1])
        guard first.sql == second.sql, first.bindings.count == second.bindings.count else { return nil }
        var recipe: [Binding] = []
        for (one, other) in zip(first.bindings, second.bindings) {
            switch (standIns[0][one], standIns[1][other]) {
            case (let index?, let same?) where index == same: recipe.append(.constant(index))
            case (nil, nil) where one == other: recipe.append(.fixed(one))
            default: return nil
            }
        }
        return (first.sql, recipe)
    }

    /// The one value a constant of `value`'s class becomes in a shape, or `nil` when the
    /// constant stays in the shape as it is.
    static func placeholder(for value: PersistentValue) -> PersistentValue? {
        switch value {
        case .string: .string("")
        case .int(let number) where number != 0: .int(1)
        case .double(let number) where number != 0 && !number.isNaN: .double(1)
        case .date: .date(Date(timeIntervalSinceReferenceDate: 0))
        case .uuid: .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        default: nil
        }
    }

    /// A value of `constant`'s class, different for every `number` and `set`, that no query
    /// holds by chance. The two sets differ in sign, length and ASCII-ness too, so that a
    /// compiled form derived from any of those differs between them.
    static func standIn(for constant: PersistentValue, number: Int, set: Int) -> PersistentValue {
        let first = set == 0
        switch constant {
        case .string: return .string(first ? "\u{1}\(number)" : "\u{1}stand-in für \(number), the second")
        case .int: return .int(first ? 0x5A5A_0000 + Int64(number) : -0x7A7A_7A7A_0000 - Int64(number))
        case .double: return .double(first ? 0x1p40 + Double(number) + 0.5 : -0x1p20 - Double(number))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: first ? -0x1p33 - Double(number) - 0.25 : 0x1p31 + Double(number)))
        default:
            let low = UInt8(truncatingIfNeeded: number), high = UInt8(truncatingIfNeeded: number >> 8)
            return .uuid(UUID(uuid: (first ? 0x5A : 0xE7, high, low, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, first ? 0 : 0xFF)))
        }
    }
}
