/// Who may read and write the files and folders a store creates.
///
/// Stores hold an app's data, often personal, so by default only the owner may read it:
/// files `0600`, folders `0700`, whatever the process's umask. A configuration can widen
/// that, for example to let a group of service accounts read a store:
///
/// ```swift
/// var configuration = ModelConfiguration(url: storeURL)
/// configuration.filePermissions = StoreFilePermissions(fileMode: 0o640)  // folders 0o750
/// ```
///
/// Files that exist keep the permissions they have.
public struct StoreFilePermissions: Sendable, Hashable, CustomStringConvertible {
    /// The mode of new files: read and write bits only (`0o666` at most).
    public let fileMode: UInt16

    /// Permissions whose new files have `fileMode`; bits other than read and write
    /// (execute, set-user-ID, sticky) are dropped.
    public init(fileMode: UInt16) {
        self.fileMode = fileMode & 0o666
    }

    /// Readable and writable by the owner only: files `0600`, folders `0700`. The default.
    public static let ownerOnly = StoreFilePermissions(fileMode: 0o600)

    /// The mode of new folders: the file mode, with search permission wherever it grants
    /// reading (`0o750` for `0o640`).
    public var directoryMode: UInt16 { fileMode | ((fileMode & 0o444) >> 2) }

    /// The modes in octal, such as `files 0640, folders 0750`.
    public var description: String {
        "files 0\(String(fileMode, radix: 8)), folders 0\(String(directoryMode, radix: 8))"
    }
}
