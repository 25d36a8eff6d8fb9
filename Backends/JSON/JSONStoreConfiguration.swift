import Foundation
import StrataCore

/// A store that keeps its models in one human-readable JSON document.
///
/// Swap it in for another configuration and nothing else in the app changes; one container
/// can hold it beside others (trips in SQLite, people in a JSON file):
/// ```swift
/// let people = JSONStoreConfiguration(schema: Schema([Person.self]), url: folder.appending(path: "people.json"))
/// let container = try ModelContainer(for: Trip.self, Person.self, configurations: trips, people)
/// ```
/// The file format is described in the StrataCore catalog's "JSON store format" article.
public struct JSONStoreConfiguration: DataStoreConfiguration, Sendable, HistoryRetaining {
    /// The store this configuration opens.
    public typealias Store = JSONStore

    /// The configuration's name, unique within a container; the file's name without its extension by default.
    public var name: String
    /// The models this store holds; `nil` for every model of the container.
    public var schema: Schema?
    /// The document's file URL. The file is created on the first save.
    public var url: URL
    /// Whether saves may write the document; with `false` the store only reads and every save throws.
    public var allowsSave: Bool
    /// How much history the document keeps: ``HistoryRetention/unlimited`` unless set. The
    /// history is rewritten with every save, so a document saved often should keep a window.
    public var historyRetention: HistoryRetention = .unlimited
    /// Who may read the document and the folders Strata creates for it:
    /// ``StoreFilePermissions/ownerOnly`` unless set. A document that exists keeps its own.
    public var filePermissions: StoreFilePermissions = .ownerOnly

    /// Creates a configuration for the document at `url`.
    public init(name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true) {
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schema = schema
        self.url = url
        self.allowsSave = allowsSave
    }

    /// Creates a configuration holding `schema`'s models in the document at `url`.
    public init(schema: Schema, url: URL) {
        self.init(name: nil, schema: schema, url: url, allowsSave: true)
    }

    /// Checks that the URL names a file.
    ///
    /// - Throws: ``JSONStoreError/notAFileURL(url:)`` when `url` is not a file URL or names a folder.
    public func validate() throws {
        guard url.isFileURL, !url.hasDirectoryPath else { throw JSONStoreError.notAFileURL(url: url.absoluteString) }
    }

    public static func == (lhs: JSONStoreConfiguration, rhs: JSONStoreConfiguration) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.allowsSave == rhs.allowsSave
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
        hasher.combine(allowsSave)
    }
}
