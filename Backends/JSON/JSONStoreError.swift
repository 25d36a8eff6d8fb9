import Foundation

/// A failure of the JSON store, naming the file and where in it the problem is.
///
/// Match a case to decide what to do: `catch JSONStoreError.documentChangedOnDisk(let file)`.
/// Stored values are never printed. What every built-in store reports alike (a read-only
/// save, a missing model, an entity the store does not hold) is a core error instead; see
/// "Errors a store throws" in <doc:ImplementingADataStore>.
public enum JSONStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The document is not valid JSON; `offset` is the byte where json-c stopped, when known.
    case malformedDocument(file: String, offset: Int?, reason: String)

    /// The document is valid JSON but not a Strata JSON document of the expected shape;
    /// `path` locates the value, such as `entities.Trip[3].startDate`.
    case wrongShape(file: String, path: String, reason: String)

    /// The document was written by a newer version of the format than this store reads.
    case unsupportedFormatVersion(file: String, version: Int)

    /// The file changed on disk since the store loaded it (another process or an editor
    /// wrote it), so the store refuses to overwrite it; reopen the container to load it.
    case documentChangedOnDisk(file: String)

    /// A value cannot be written in the format, such as a date too far from the present.
    case unrepresentableValue(file: String, path: String, reason: String)

    /// A system call or json-c call failed; `errorNumber` is `errno` where there is one.
    case operationFailed(file: String, operation: String, errorNumber: Int32)

    /// The configuration's URL is not a file URL.
    case notAFileURL(url: String)

    /// The file, the position and the reason.
    public var description: String {
        switch self {
        case .malformedDocument(let file, let offset, let reason):
            let position = offset.map { " at byte \($0)" } ?? ""
            return "\(file) is not valid JSON\(position): \(reason)"
        case .wrongShape(let file, let path, let reason):
            return "\(file) is not a Strata JSON document at \(path): \(reason)"
        case .unsupportedFormatVersion(let file, let version):
            return "\(file) uses strata-json format version \(version); this store reads version \(JSONStoreFormat.version) and older"
        case .documentChangedOnDisk(let file):
            return "\(file) changed on disk since the store loaded it; the save was refused so those changes are not overwritten (reopen the container to load them)"
        case .unrepresentableValue(let file, let path, let reason):
            return "\(path) cannot be written to \(file): \(reason)"
        case .operationFailed(let file, let operation, let errorNumber):
            let reason = errorNumber == 0 ? "failed" : String(cString: strerror(errorNumber))
            return "\(operation) for \(file): \(reason)"
        case .notAFileURL(let url):
            return "\(url) is not a file URL; a JSON store needs a file"
        }
    }
}

/// Turns a C call's result into a Swift error: a negative result (json-c's and POSIX's
/// failure) throws ``JSONStoreError/operationFailed(file:operation:errorNumber:)`` with `errno`.
///
/// - Throws: ``JSONStoreError/operationFailed(file:operation:errorNumber:)``.
@discardableResult
func check<Result: BinaryInteger>(_ result: Result, file: String, _ operation: @autoclosure () -> String) throws -> Result {
    guard result < 0 else { return result }
    throw JSONStoreError.operationFailed(file: file, operation: operation(), errorNumber: errno)
}

/// Turns a C call that returns `NULL` on failure into a Swift error.
///
/// - Throws: ``JSONStoreError/operationFailed(file:operation:errorNumber:)`` when `pointer` is `nil`.
func check<Pointer>(_ pointer: Pointer?, file: String, _ operation: @autoclosure () -> String) throws -> Pointer {
    guard let pointer else {
        throw JSONStoreError.operationFailed(file: file, operation: operation(), errorNumber: errno)
    }
    return pointer
}
