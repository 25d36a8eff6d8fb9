import Foundation

/// A store that keeps the history of its saves: one transaction per save.
///
/// ``ModelContext/fetchHistory(_:)`` and ``ModelContext/deleteHistory(_:)`` reach every store
/// of the container that provides history of the descriptor's transaction type.
public protocol HistoryProviding<HistoryType> {
    /// The type of the store's transactions.
    associatedtype HistoryType: HistoryTransaction

    /// The type of the store's transactions, as a value.
    static var historyType: HistoryType.Type { get }

    /// The transactions matching `descriptor`, oldest first unless it sorts otherwise.
    ///
    /// - Throws: ``SwiftDataError/historyTokenExpired`` when the descriptor asks for changes
    ///   after a token older than what was deleted; the store's error otherwise.
    func fetchHistory(_ descriptor: HistoryDescriptor<HistoryType>) throws -> [HistoryType]

    /// Deletes the transactions matching `descriptor`.
    ///
    /// - Throws: The store's error.
    func deleteHistory(_ descriptor: HistoryDescriptor<HistoryType>) throws
}

extension HistoryProviding {
    /// `HistoryType.self`.
    public static var historyType: HistoryType.Type { HistoryType.self }
}

/// The changes one save made to one store.
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    /// The type of the transaction's token.
    associatedtype TokenType: HistoryToken
    /// The type of the transaction's identifier.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable

    /// When the save happened.
    var timestamp: Date { get }
    /// The inserts, updates and deletes, in the order the save made them.
    var changes: [HistoryChange] { get }
    /// A token that marks this transaction's place in the history.
    var token: TokenType { get }
    /// The transaction's identifier within its store.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The store the save wrote to.
    var storeIdentifier: String { get }
    /// The saving context's ``ModelContext/author``.
    var author: String? { get }
}

/// A place in the history that an app keeps to ask later what happened since.
public protocol HistoryToken: Comparable, Codable, Hashable, Identifiable, Sendable {
    /// The type of the token's value.
    associatedtype TokenType: Codable, Hashable, Sendable
    /// The token's value.
    var tokenValue: TokenType? { get }
}

/// One change of a transaction.
public enum HistoryChange: Sendable {
    /// A model was inserted.
    case insert(any HistoryInsert)
    /// A model was updated.
    case update(any HistoryUpdate)
    /// A model was deleted.
    case delete(any HistoryDelete)

    /// The model the change is about.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let change): change.changedPersistentIdentifier
        case .update(let change): change.changedPersistentIdentifier
        case .delete(let change): change.changedPersistentIdentifier
        }
    }
}

/// The insert of a model, in a history transaction.
public protocol HistoryInsert<Model>: Sendable {
    /// The model type.
    associatedtype Model: PersistentModel
    /// The type of the transaction identifier.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The type of the change identifier.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The change's identifier within its transaction.
    var changeIdentifier: ChangeIdentifier { get }
    /// The transaction the change belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The inserted model.
    var changedPersistentIdentifier: PersistentIdentifier { get }
}

/// The update of a model, in a history transaction: which attributes changed, not their values.
public protocol HistoryUpdate<Model>: Sendable {
    /// The model type.
    associatedtype Model: PersistentModel
    /// The type of the transaction identifier.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The type of the change identifier.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The change's identifier within its transaction.
    var changeIdentifier: ChangeIdentifier { get }
    /// The transaction the change belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The updated model.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The properties the save changed.
    var updatedAttributes: [any PartialKeyPath<Model> & Sendable] { get }
}

/// The delete of a model, in a history transaction, with the values it preserved.
public protocol HistoryDelete<Model>: Sendable {
    /// The model type.
    associatedtype Model: PersistentModel
    /// The type of the transaction identifier.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The type of the change identifier.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The change's identifier within its transaction.
    var changeIdentifier: ChangeIdentifier { get }
    /// The transaction the change belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The deleted model.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The values of the model's `.preserveValueOnDeletion` attributes.
    var tombstone: HistoryTombstone<Model> { get }
}

/// What a deleted model left behind: the values of exactly its attributes marked
/// `@Attribute(.preserveValueOnDeletion)`.
///
/// Unlike SwiftData's, it has a public initialiser, so a third-party store can provide history.
public struct HistoryTombstone<Model: PersistentModel>: Sequence, @unchecked Sendable {
    /// The preserved values by key path, in the model's property order.
    private let values: [(keyPath: PartialKeyPath<Model>, value: any Sendable)]

    /// A tombstone holding `values`.
    public init(_ values: [(keyPath: PartialKeyPath<Model>, value: any Sendable)]) {
        self.values = values
    }

    /// The preserved value of `keyPath`, or `nil` when the attribute was not preserved.
    public subscript(keyPath: PartialKeyPath<Model>) -> (any Sendable)? {
        values.first { $0.keyPath == keyPath }?.value
    }

    /// The preserved values, in the model's property order.
    public func makeIterator() -> IndexingIterator<[Any]> {
        values.map { $0.value as Any }.makeIterator()
    }
}

/// A fetch or delete of history: which transactions, in which order, how many.
public struct HistoryDescriptor<TransactionType: HistoryTransaction>: @unchecked Sendable {
    /// The transactions to select; `nil` selects all.
    public var predicate: Predicate<TransactionType>?
    /// The order of the transactions; empty means oldest first.
    public var sortBy: [SortDescriptor<TransactionType>]
    /// The most transactions to return; 0 means no limit.
    public var fetchLimit: UInt64

    /// A descriptor selecting the transactions `predicate` matches, oldest first.
    public init(predicate: Predicate<TransactionType>? = nil) {
        self.init(predicate: predicate, sortBy: [])
    }

    /// A descriptor selecting the transactions `predicate` matches, in the order of `sortBy`.
    public init(predicate: Predicate<TransactionType>? = nil, sortBy: [SortDescriptor<TransactionType>]) {
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchLimit = 0
    }
}
