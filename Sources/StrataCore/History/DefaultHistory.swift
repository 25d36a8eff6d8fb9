import Foundation

/// The token of the built-in stores: for each store, the identifier of its last transaction.
///
/// Tokens compare store by store over the stores both name: one is less than another when it
/// is nowhere ahead and somewhere behind. Tokens are `Codable`, so an app can keep one and ask
/// later for what happened since (`#Predicate { $0.token > saved }`).
public struct DefaultHistoryToken: HistoryToken {
    /// The last transaction identifier of each store, by store identifier.
    public let tokenValue: [String: Int64]?

    /// A token at the given transaction of each store.
    public init(tokenValue: [String: Int64]) {
        self.tokenValue = tokenValue
    }

    /// The largest transaction identifier the token names.
    public var id: Int { Int(truncatingIfNeeded: tokenValue?.values.max() ?? 0) }

    public static func < (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        let left = lhs.tokenValue ?? [:]
        let right = rhs.tokenValue ?? [:]
        var behind = false
        for (store, value) in left {
            guard let other = right[store] else { continue }
            if value > other { return false }
            if value < other { behind = true }
        }
        return behind
    }
}

/// A transaction of a built-in store.
public struct DefaultHistoryTransaction: HistoryTransaction {
    /// The transaction's identifier within its store.
    public let id: Int64
    /// When the save happened.
    public let timestamp: Date
    /// The changes, in the order the save made them.
    public let changes: [HistoryChange]
    /// The transaction's place in the history.
    public let token: DefaultHistoryToken
    /// The transaction's identifier within its store.
    public var transactionIdentifier: Int64 { id }
    /// The store the save wrote to.
    public let storeIdentifier: String
    /// The saving process's bundle identifier, or its name where there is none.
    public let bundleIdentifier: String
    /// The saving process's identifier.
    public let processIdentifier: String
    /// The saving context's author.
    public let author: String?

    /// A transaction; for stores that provide their own history.
    public init(
        id: Int64, timestamp: Date, changes: [HistoryChange], storeIdentifier: String,
        bundleIdentifier: String, processIdentifier: String, author: String?
    ) {
        self.id = id
        self.timestamp = timestamp
        self.changes = changes
        self.token = DefaultHistoryToken(tokenValue: [storeIdentifier: id])
        self.storeIdentifier = storeIdentifier
        self.bundleIdentifier = bundleIdentifier
        self.processIdentifier = processIdentifier
        self.author = author
    }

    public static func == (lhs: DefaultHistoryTransaction, rhs: DefaultHistoryTransaction) -> Bool {
        lhs.id == rhs.id && lhs.storeIdentifier == rhs.storeIdentifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(storeIdentifier)
    }
}

/// An insert in a ``DefaultHistoryTransaction``.
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert {
    /// The change's position in its transaction.
    public let changeIdentifier: Int64
    /// The transaction the change belongs to.
    public let transactionIdentifier: Int64
    /// The inserted model.
    public let changedPersistentIdentifier: PersistentIdentifier

    /// An insert; for stores that provide their own history.
    public init(changeIdentifier: Int64, transactionIdentifier: Int64, changedPersistentIdentifier: PersistentIdentifier) {
        self.changeIdentifier = changeIdentifier
        self.transactionIdentifier = transactionIdentifier
        self.changedPersistentIdentifier = changedPersistentIdentifier
    }
}

/// An update in a ``DefaultHistoryTransaction``.
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, @unchecked Sendable {
    /// The change's position in its transaction.
    public let changeIdentifier: Int64
    /// The transaction the change belongs to.
    public let transactionIdentifier: Int64
    /// The updated model.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The properties the save changed.
    public let updatedAttributes: [any PartialKeyPath<Model> & Sendable]

    /// An update; for stores that provide their own history.
    public init(
        changeIdentifier: Int64, transactionIdentifier: Int64, changedPersistentIdentifier: PersistentIdentifier,
        updatedAttributes: [any PartialKeyPath<Model> & Sendable]
    ) {
        self.changeIdentifier = changeIdentifier
        self.transactionIdentifier = transactionIdentifier
        self.changedPersistentIdentifier = changedPersistentIdentifier
        self.updatedAttributes = updatedAttributes
    }
}

/// A delete in a ``DefaultHistoryTransaction``.
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete {
    /// The change's position in its transaction.
    public let changeIdentifier: Int64
    /// The transaction the change belongs to.
    public let transactionIdentifier: Int64
    /// The deleted model.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The values of the model's `.preserveValueOnDeletion` attributes.
    public let tombstone: HistoryTombstone<Model>

    /// A delete; for stores that provide their own history.
    public init(
        changeIdentifier: Int64, transactionIdentifier: Int64, changedPersistentIdentifier: PersistentIdentifier,
        tombstone: HistoryTombstone<Model>
    ) {
        self.changeIdentifier = changeIdentifier
        self.transactionIdentifier = transactionIdentifier
        self.changedPersistentIdentifier = changedPersistentIdentifier
        self.tombstone = tombstone
    }
}
