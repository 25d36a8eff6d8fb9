import Foundation
import Synchronization

/// The identity of one persistent model: the store that holds it, its entity and its key.
///
/// Models inserted into a context carry a temporary identifier until their first save;
/// the store then assigns a permanent one and the model's ``PersistentModel/persistentModelID``
/// changes. Identifiers are `Sendable`, so pass them between actors and fetch the model
/// again on the other side.
public struct PersistentIdentifier: Hashable, Identifiable, Comparable, Codable, Sendable,
    CustomStringConvertible
{
    /// The opaque, hashable identity of a ``PersistentIdentifier``.
    public struct ID: Hashable, Comparable, Codable, Sendable {
        /// The store and entity, one shared object per pair, so an identifier is 17 bytes
        /// (a 24-byte stride) rather than 56 and hashes and compares them by reference.
        /// Scopes live as long as the process (``Scope/named(storeIdentifier:entityName:)``
        /// keeps each), so the reference is not counted: copying or dropping an identifier
        /// with an integer key costs no atomic retain or release.
        @usableFromInline let scopeReference: Unmanaged<Scope>
        let primaryKey: PrimaryKey

        /// The store and entity.
        @usableFromInline var scope: Scope { scopeReference.takeUnretainedValue() }
        /// The scope's address, its identity, read without touching its reference count:
        /// comparing the scopes as objects retained and released both for every probe of a
        /// dictionary keyed by identifiers.
        @usableFromInline var scopeAddress: UnsafeMutableRawPointer { scopeReference.toOpaque() }

        var storeIdentifier: String? { scope.storeIdentifier }
        var entityName: String { scope.entityName }

        init(storeIdentifier: String?, entityName: String, primaryKey: PrimaryKey) {
            scopeReference = Unmanaged.passUnretained(Scope.named(storeIdentifier: storeIdentifier, entityName: entityName))
            self.primaryKey = primaryKey
        }

        init(scope: Scope, primaryKey: PrimaryKey) {
            self.scopeReference = Unmanaged.passUnretained(scope)
            self.primaryKey = primaryKey
        }

        init(scopeReference: Unmanaged<Scope>, primaryKey: PrimaryKey) {
            self.scopeReference = scopeReference
            self.primaryKey = primaryKey
        }

        /// Hashes the key and the scope's identity: no string is hashed, and dictionaries of
        /// identifiers (a prefetch's related rows) hash one for every row.
        ///
        /// An integer or temporary key is mixed with the scope's address into one word that
        /// the hasher takes in one round: hashing the key's case, the key and the address
        /// separately took three (about 70 instructions more per hash). Identifiers of one
        /// scope with different keys, or of one key in different scopes, still differ in it.
        public func hash(into hasher: inout Hasher) {
            if let word {
                hasher.combine(word)
            } else {
                hasher.combine(primaryKey)
                hasher.combine(UInt(bitPattern: scopeAddress))
            }
        }

        /// The hash a `Dictionary` or `Set` with `seed` files this identity under: for an
        /// integer or temporary key, the word ``hash(into:)`` combines, hashed in one call.
        ///
        /// Without it, the standard library's default made a `Hasher`, called ``hash(into:)``
        /// and finalized, about 330 instructions per hash; `Int`'s one-shot hash of the same
        /// word (the same SipHash, with the table's seed) is about 100. A prefetch files each
        /// related row under its identifier and then looks it up.
        public func _rawHashValue(seed: Int) -> Int {
            if let word { return Int(truncatingIfNeeded: word)._rawHashValue(seed: seed) }
            // Through a `Hasher`, not `hashValue`: that is this function with a seed of zero.
            var hasher = Hasher()
            hash(into: &hasher)
            return hasher.finalize()._rawHashValue(seed: seed)
        }

        /// The key and the scope's identity in one word, for an integer or temporary key;
        /// `nil` for a UUID or string key, which does not fit in one.
        private var word: UInt64? {
            let scope = UInt64(UInt(bitPattern: scopeAddress))
            return switch primaryKey {
            case .int(let key): UInt64(bitPattern: key) ^ (scope &* 0x9E37_79B9_7F4A_7C15)
            case .temporary(let key): key ^ ((scope &+ 1) &* 0x9E37_79B9_7F4A_7C15)
            case .uuid, .string: nil
            }
        }

        public static func == (lhs: ID, rhs: ID) -> Bool {
            lhs.scopeAddress == rhs.scopeAddress && lhs.primaryKey == rhs.primaryKey
        }

        private enum CodingKeys: String, CodingKey {
            case storeIdentifier, entityName, primaryKey
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                storeIdentifier: try container.decodeIfPresent(String.self, forKey: .storeIdentifier),
                entityName: try container.decode(String.self, forKey: .entityName),
                primaryKey: try container.decode(PrimaryKey.self, forKey: .primaryKey))
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(storeIdentifier, forKey: .storeIdentifier)
            try container.encode(entityName, forKey: .entityName)
            try container.encode(primaryKey, forKey: .primaryKey)
        }

        public static func < (lhs: ID, rhs: ID) -> Bool {
            if lhs.storeIdentifier != rhs.storeIdentifier {
                return (lhs.storeIdentifier ?? "") < (rhs.storeIdentifier ?? "")
            }
            if lhs.entityName != rhs.entityName { return lhs.entityName < rhs.entityName }
            return lhs.primaryKey < rhs.primaryKey
        }
    }

    /// The store and entity of identifiers, interned: the process holds one object per pair,
    /// kept for its lifetime (there is one pair per entity of each store opened).
    @usableFromInline final class Scope: Sendable {
        let storeIdentifier: String?
        @usableFromInline let entityName: String

        private init(storeIdentifier: String?, entityName: String) {
            self.storeIdentifier = storeIdentifier
            self.entityName = entityName
        }

        private struct Name: Hashable {
            let storeIdentifier: String?
            let entityName: String
        }

        private struct Table {
            var scopes: [Name: Scope] = [:]
            /// The last scope handed out: stores make identifiers row after row of one entity,
            /// with the same strings, which compare equal without reading their characters.
            var last: Scope?
        }

        private static let table = Locked(Table())

        /// The scope of `storeIdentifier` and `entityName`, made at the first request.
        static func named(storeIdentifier: String?, entityName: String) -> Scope {
            table.withLock { table in
                if let last = table.last, last.entityName == entityName, last.storeIdentifier == storeIdentifier { return last }
                let name = Name(storeIdentifier: storeIdentifier, entityName: entityName)
                let scope = table.scopes[name] ?? Scope(storeIdentifier: storeIdentifier, entityName: entityName)
                table.scopes[name] = scope
                table.last = scope
                return scope
            }
        }
    }

    /// A store's key for one model, in the few shapes stores use.
    ///
    /// The keys of every built-in store are integers, kept inline; a UUID or string key is
    /// boxed (`indirect`), so a key is 9 bytes and an identifier 17 rather than 25: small
    /// enough to sit inline in a ``PersistentValue``, whose decimal is 20 bytes.
    enum PrimaryKey: Hashable, Comparable, Codable, Sendable {
        case temporary(UInt64)
        case int(Int64)
        indirect case uuid(UUID)
        indirect case string(String)

        static func < (lhs: PrimaryKey, rhs: PrimaryKey) -> Bool {
            switch (lhs, rhs) {
            case (.temporary(let a), .temporary(let b)): a < b
            case (.int(let a), .int(let b)): a < b
            case (.uuid(let a), .uuid(let b)): a.uuidString < b.uuidString
            case (.string(let a), .string(let b)): a < b
            default: lhs.order < rhs.order
            }
        }

        private var order: Int {
            switch self {
            case .temporary: 0
            case .int: 1
            case .uuid: 2
            case .string: 3
            }
        }
    }

    /// The identity; equal identifiers have equal `id`s.
    public let id: ID

    /// The hash a `Dictionary` or `Set` with `seed` files this identifier under: its
    /// ``ID``'s (see `ID._rawHashValue(seed:)`), which the synthesized conformance would
    /// reach only through a `Hasher`.
    public func _rawHashValue(seed: Int) -> Int {
        id._rawHashValue(seed: seed)
    }

    /// The name of the model's entity in the schema.
    public var entityName: String { id.entityName }

    /// The identifier of the store that holds the model, or `nil` while it is temporary.
    public var storeIdentifier: String? { id.storeIdentifier }

    /// Whether this identifier was assigned on insert and not yet replaced by a store.
    public var isTemporary: Bool {
        if case .temporary = id.primaryKey { return true }
        return false
    }

    init(storeIdentifier: String?, entityName: String, primaryKey: PrimaryKey) {
        id = ID(storeIdentifier: storeIdentifier, entityName: entityName, primaryKey: primaryKey)
    }

    /// Creates a permanent identifier for a model a store holds under `primaryKey`.
    ///
    /// ```swift
    /// let id = try PersistentIdentifier.identifier(for: store.identifier, entityName: "Trip", primaryKey: rowID)
    /// ```
    /// - Throws: ``DataStoreError/unsupportedFeature`` when `storeIdentifier` or `entityName` is empty.
    public static func identifier<T: Codable & Hashable & Comparable & CustomStringConvertible>(
        for storeIdentifier: String, entityName: String, primaryKey: T
    ) throws -> PersistentIdentifier {
        guard !storeIdentifier.isEmpty, !entityName.isEmpty else {
            throw DataStoreError.unsupportedFeature
        }
        let key: PrimaryKey
        switch primaryKey {
        case let value as any BinaryInteger:
            if let exact = Int64(exactly: value) { key = .int(exact) } else { key = .string(primaryKey.description) }
        case let value as UUID: key = .uuid(value)
        case let value as String: key = .string(value)
        default: key = .string(primaryKey.description)
        }
        return PersistentIdentifier(storeIdentifier: storeIdentifier, entityName: entityName, primaryKey: key)
    }

    /// Creates a permanent identifier for a model a store holds under an integer key, without
    /// the generic overload's type checks.
    ///
    /// An integer literal, as in `primaryKey: 0`, picks this overload rather than the generic one.
    /// - Throws: ``DataStoreError/unsupportedFeature`` when `storeIdentifier` or `entityName` is empty.
    public static func identifier(for storeIdentifier: String, entityName: String, primaryKey: Int) throws -> PersistentIdentifier {
        try identifier(for: storeIdentifier, entityName: entityName, primaryKey: Int64(primaryKey))
    }

    /// Creates a permanent identifier for a model a store holds under an integer key, without
    /// the generic overload's type checks (stores call this once per fetched row).
    ///
    /// - Throws: ``DataStoreError/unsupportedFeature`` when `storeIdentifier` or `entityName` is empty.
    public static func identifier(for storeIdentifier: String, entityName: String, primaryKey: Int64) throws -> PersistentIdentifier {
        guard !storeIdentifier.isEmpty, !entityName.isEmpty else { throw DataStoreError.unsupportedFeature }
        return PersistentIdentifier(storeIdentifier: storeIdentifier, entityName: entityName, primaryKey: .int(primaryKey))
    }

    /// An identifier of the same store and entity under another integer key.
    ///
    /// A store that makes one identifier per row of an entity makes the first with
    /// ``identifier(for:entityName:primaryKey:)-(String,_,Int64)`` and the others from it,
    /// which skips looking up the store and entity for every row:
    ///
    /// ```swift
    /// let template = try PersistentIdentifier.identifier(for: store.identifier, entityName: "Trip", primaryKey: 0)
    /// let ids = keys.map { template.replacingPrimaryKey($0) }
    /// ```
    public func replacingPrimaryKey(_ primaryKey: Int64) -> PersistentIdentifier {
        PersistentIdentifier(id: ID(scopeReference: id.scopeReference, primaryKey: .int(primaryKey)))
    }

    /// The identifiers of `keys` in this identifier's store and entity, in order: what
    /// ``replacingPrimaryKey(_:)`` makes for each key, made straight into the array.
    public func replacingPrimaryKeys(_ keys: ClosedRange<Int64>) -> [PersistentIdentifier] {
        replacingPrimaryKeys(keys, count: keys.count)
    }

    /// The identifiers of `keys` in this identifier's store and entity, in order: what
    /// ``replacingPrimaryKey(_:)`` makes for each key, made straight into the array.
    public func replacingPrimaryKeys(_ keys: [Int64]) -> [PersistentIdentifier] {
        replacingPrimaryKeys(keys, count: keys.count)
    }

    private func replacingPrimaryKeys<Keys: Sequence<Int64>>(_ keys: Keys, count: Int) -> [PersistentIdentifier] {
        // With no capacity the initializer writes the count into the shared empty-array
        // storage, a write other threads' reads of it race with (the thread sanitizer says so).
        guard count > 0 else { return [] }
        let scope = id.scopeReference
        return [PersistentIdentifier](unsafeUninitializedCapacity: count) { buffer, initialized in
            for key in keys {
                (buffer.baseAddress! + initialized).initialize(to: PersistentIdentifier(id: ID(scopeReference: scope, primaryKey: .int(key))))
                initialized += 1
            }
        }
    }

    private init(id: ID) { self.id = id }

    /// The key the store gave this model, if it has the requested type.
    ///
    /// Stores use it to find their row or record again: `id.primaryKey(as: Int64.self)`.
    public func primaryKey<T>(as type: T.Type) -> T? {
        switch id.primaryKey {
        case .temporary: nil
        case .int(let value):
            if let exact = value as? T { exact } else { (T.self as? any BinaryInteger.Type).flatMap { $0.init(exactly: value) as? T } }
        case .uuid(let value): value as? T
        case .string(let value): value as? T
        }
    }

    /// The integer key the store gave this model, without the generic overload's casts.
    public func primaryKey(as type: Int64.Type) -> Int64? {
        if case .int(let value) = id.primaryKey { return value }
        return nil
    }

    /// The integer key of an identifier that the store `storeIdentifier` gave, otherwise
    /// `nil`: ``storeIdentifier`` compared and `primaryKey(as:)` read without making the
    /// optional string and its copy (about 120 instructions, for every row a save updates).
    package func primaryKey(as type: Int64.Type, inStore storeIdentifier: String) -> Int64? {
        guard case .int(let key) = id.primaryKey, id.scope.storeIdentifier == storeIdentifier else { return nil }
        return key
    }

    /// Whether `other` names a model of the same entity: the shared scope compared by
    /// address first, which reads neither name (copying ``entityName`` out of each, retained
    /// and released, cost about 150 instructions a row in a save's check for a run of rows).
    /// Inlinable: called, it copied both identifiers (about 70 instructions a row).
    @inlinable package func isOfSameEntity(as other: PersistentIdentifier) -> Bool {
        id.scopeAddress == other.id.scopeAddress || id.scope.entityName == other.id.scope.entityName
    }

    private static let temporaryCounter = Atomic<UInt64>(0)

    /// A new temporary identifier for a model of `entityName` that has just been created.
    static func temporary(entityName: String) -> PersistentIdentifier {
        temporary(in: Unmanaged.passUnretained(Scope.named(storeIdentifier: nil, entityName: entityName)))
    }

    /// A new temporary identifier in `scope`, which has no store.
    static func temporary(in scope: Unmanaged<Scope>) -> PersistentIdentifier {
        let next = temporaryCounter.wrappingAdd(1, ordering: .relaxed).newValue
        return PersistentIdentifier(id: ID(scopeReference: scope, primaryKey: .temporary(next)))
    }

    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        lhs.id < rhs.id
    }

    /// A URI-like form such as `strata://trips.store/Trip/42`, or `strata:///Trip/t7` while temporary.
    public var description: String {
        let key: String
        switch id.primaryKey {
        case .temporary(let value): key = "t\(value)"
        case .int(let value): key = String(value)
        case .uuid(let value): key = value.uuidString
        case .string(let value): key = value
        }
        return "strata://\(storeIdentifier ?? "")/\(entityName)/\(key)"
    }
}
