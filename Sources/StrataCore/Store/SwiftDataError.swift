/// An error from Strata's core, with SwiftData's error codes and the details that explain it.
///
/// Match errors by code as with SwiftData: `catch SwiftDataError.unsupportedPredicate`.
/// Two errors are equal when their codes are; ``details`` names the entity, property,
/// file or expression involved (never bound values).
public struct SwiftDataError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The error code, one per kind of failure.
    public struct Code: RawRepresentable, Hashable, Sendable {
        /// The code's name.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
    }

    /// What went wrong, by kind.
    public let code: Code
    /// The entity, property, file or expression involved, for people reading the error.
    public let details: String

    /// Creates an error of `code`, explained by `details`.
    public init(_ code: Code, details: String = "") {
        self.code = code
        self.details = details
    }

    /// The same error with the given details.
    public func with(details: String) -> SwiftDataError { SwiftDataError(code, details: details) }

    public static func == (lhs: SwiftDataError, rhs: SwiftDataError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// Matches an error against a SwiftData error code in a `catch` pattern.
    public static func ~= (pattern: SwiftDataError, error: any Error) -> Bool {
        (error as? SwiftDataError)?.code == pattern.code
    }

    public var description: String {
        details.isEmpty ? "SwiftDataError.\(code.rawValue)" : "SwiftDataError.\(code.rawValue): \(details)"
    }

    /// A fetch with a batch size asked to include pending changes.
    public static let includePendingChangesWithBatchSize = SwiftDataError(Code(rawValue: "includePendingChangesWithBatchSize"))
    /// A predicate uses something no store and no in-memory evaluation can run.
    public static let unsupportedPredicate = SwiftDataError(Code(rawValue: "unsupportedPredicate"))
    /// A key path does not name a persisted property.
    public static let unsupportedKeyPath = SwiftDataError(Code(rawValue: "unsupportedKeyPath"))
    /// Pending changes cannot be sorted when only identifiers are fetched.
    public static let sortingPendingChangesWithIdentifiers = SwiftDataError(Code(rawValue: "sortingPendingChangesWithIdentifiers"))
    /// A sort descriptor cannot be applied.
    public static let unsupportedSortDescriptor = SwiftDataError(Code(rawValue: "unsupportedSortDescriptor"))
    /// Two configurations of one container are the same.
    public static let duplicateConfiguration = SwiftDataError(Code(rawValue: "duplicateConfiguration"))
    /// A configuration's file name is too long.
    public static let configurationFileNameTooLong = SwiftDataError(Code(rawValue: "configurationFileNameTooLong"))
    /// A configuration's file name contains characters a file name cannot hold.
    public static let configurationFileNameContainsInvalidCharacters = SwiftDataError(Code(rawValue: "configurationFileNameContainsInvalidCharacters"))
    /// A configuration names a model that the container's schema does not contain.
    public static let configurationSchemaNotFoundInContainerSchema = SwiftDataError(Code(rawValue: "configurationSchemaNotFoundInContainerSchema"))
    /// A store could not be loaded for the container.
    public static let loadIssueModelContainer = SwiftDataError(Code(rawValue: "loadIssueModelContainer"))
    /// A model or schema breaks a rule: a missing inverse, a duplicate entity, a bad constraint.
    public static let modelValidationFailure = SwiftDataError(Code(rawValue: "modelValidationFailure"))
    /// The model is not in a context.
    public static let missingModelContext = SwiftDataError(Code(rawValue: "missingModelContext"))
    /// The store was written by a newer schema version than the app's.
    public static let backwardMigration = SwiftDataError(Code(rawValue: "backwardMigration"))
    /// The store's schema matches no version the app knows.
    public static let unknownSchema = SwiftDataError(Code(rawValue: "unknownSchema"))
    /// A history token refers to history that was deleted.
    public static let historyTokenExpired = SwiftDataError(Code(rawValue: "historyTokenExpired"))
    /// A history fetch request is malformed.
    public static let invalidTransactionFetchRequest = SwiftDataError(Code(rawValue: "invalidTransactionFetchRequest"))
}
