/// A failure of the JSON store, naming the file and where in it the problem is.
public enum JSONStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The document is not valid JSON; `offset` is the byte where json-c stopped, when known.
    case malformedDocument(file: String, offset: Int?, reason: String)

    /// The file, the position and the reason.
    public var description: String {
        switch self {
        case .malformedDocument(let file, let offset, let reason):
            let position = offset.map { " at byte \($0)" } ?? ""
            return "\(file) is not valid JSON\(position): \(reason)"
        }
    }
}
