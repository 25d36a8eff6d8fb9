import Foundation
import StrataCore

/// The configuration of the default store: a SQLite database in a file, or in memory.
///
/// With no arguments it names `default.store` in the app's data directory
/// (`$XDG_DATA_HOME/<executable>/` or `~/.local/share/<executable>/` on Linux, Application
/// Support on macOS), created when first opened.
/// ```swift
/// let configuration = ModelConfiguration(schema: Schema([Trip.self]), url: fileURL)
/// let container = try ModelContainer(for: Trip.self, configurations: configuration)
/// ```
public struct ModelConfiguration: DataStoreConfiguration, Identifiable, CustomDebugStringConvertible, Sendable, HistoryRetaining {
    /// The store this configuration opens.
    public typealias Store = DefaultStore

    /// Where the app group container is: accepted for SwiftData compatibility; Linux has no app groups.
    public enum GroupContainer: Hashable, Sendable {
        /// Use the app's group container when it has one.
        case automatic
        /// Use none.
        case none
        /// Use the named group container.
        case identifier(String)
    }

    /// Which CloudKit database to sync with: accepted for compatibility; Strata does not sync.
    public enum CloudKitDatabase: Hashable, Sendable {
        /// Sync when the app is set up for it.
        case automatic
        /// Do not sync.
        case none
        /// Sync with the named private database.
        case `private`(String)
    }

    /// The configuration's name, unique within a container.
    public var name: String
    /// The models this configuration holds; `nil` for every model of the container.
    public var schema: Schema?
    /// The database file; `/dev/null` when the store lives in memory.
    public let url: URL
    /// Whether saving is allowed; `false` opens the file read-only.
    public let allowsSave: Bool
    /// Whether the database lives in memory only.
    public let isStoredInMemoryOnly: Bool
    /// The group container setting (recorded only).
    public let groupContainer: GroupContainer
    /// The CloudKit setting (recorded only).
    public let cloudKitDatabase: CloudKitDatabase
    /// How much history the store keeps: ``HistoryRetention/unlimited`` unless set, as in
    /// SwiftData. Not part of the configuration's identity.
    public var historyRetention: HistoryRetention = .unlimited
    /// Who may read the database, its `-wal` and `-shm` files, external storage and the
    /// folders Strata creates for them: ``StoreFilePermissions/ownerOnly`` unless set. Not part
    /// of the configuration's identity.
    public var filePermissions: StoreFilePermissions = .ownerOnly

    /// The group container's identifier, if one was named.
    public var groupAppContainerIdentifier: String? {
        if case .identifier(let identifier) = groupContainer { return identifier }
        return nil
    }

    /// The CloudKit container's identifier, if one was named.
    public var cloudKitContainerIdentifier: String? {
        if case .private(let identifier) = cloudKitDatabase { return identifier }
        return nil
    }

    /// The configuration's identity: its URL.
    public var id: URL { url }

    /// A configuration for the default file, or for memory.
    public init(isStoredInMemoryOnly: Bool = false) {
        self.init(nil, schema: nil, isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// A configuration holding the given model types.
    public init(for forTypes: any PersistentModel.Type..., isStoredInMemoryOnly: Bool = false) {
        self.init(nil, schema: Schema(forTypes), isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// A configuration for the file `<name>.store` in the app's data directory, or for memory.
    public init(
        _ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true,
        groupContainer: GroupContainer = .automatic, cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        let name = name ?? "default"
        self.name = name
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.groupContainer = groupContainer
        self.cloudKitDatabase = cloudKitDatabase
        self.url = isStoredInMemoryOnly
            ? URL(fileURLWithPath: "/dev/null")
            : StoreLocation.defaultDirectory().appendingPathComponent("\(name).store")
    }

    /// A configuration for the database file at `url`.
    public init(
        _ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true,
        cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schema = schema
        self.url = url
        self.allowsSave = allowsSave
        self.isStoredInMemoryOnly = false
        self.groupContainer = .none
        self.cloudKitDatabase = cloudKitDatabase
    }

    /// Checks that the file name is usable.
    ///
    /// - Throws: ``SwiftDataError/configurationFileNameTooLong`` or
    ///   ``SwiftDataError/configurationFileNameContainsInvalidCharacters`` naming the file.
    public func validate() throws {
        guard !isStoredInMemoryOnly else { return }
        let file = url.lastPathComponent
        if file.utf8.count > 255 {
            throw SwiftDataError.configurationFileNameTooLong.with(details: "\(file) is longer than 255 bytes")
        }
        if file.isEmpty || file.contains("\0") || file == "." || file == ".." {
            throw SwiftDataError.configurationFileNameContainsInvalidCharacters.with(details: "\"\(file)\" is not a usable file name")
        }
    }

    public static func == (lhs: ModelConfiguration, rhs: ModelConfiguration) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.isStoredInMemoryOnly == rhs.isStoredInMemoryOnly
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
    }

    /// The name, location and options.
    public var debugDescription: String {
        let location = isStoredInMemoryOnly ? "in memory" : url.path
        return "ModelConfiguration(\(name), \(location)\(allowsSave ? "" : ", read-only"))"
    }
}

/// Where stores live by default.
enum StoreLocation {
    /// The app's data directory for stores, per executable name.
    static func defaultDirectory() -> URL {
        let executable = ProcessInfo.processInfo.processName.isEmpty ? "Strata" : ProcessInfo.processInfo.processName
        #if canImport(Darwin)
        let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent("Library/Application Support")
        #else
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg)
        } else {
            base = URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".local/share")
        }
        #endif
        return base.appendingPathComponent(executable)
    }
}

/// SwiftData's name for the store a ``ModelConfiguration`` opens.
public typealias DefaultStore = SQLiteStore

extension ModelContainer {
    /// The container's SQLite configurations, as SwiftData types them; a container that also
    /// holds other stores lists those in ``ModelContainer/dataStoreConfigurations``.
    public var configurations: Set<ModelConfiguration> {
        Set(dataStoreConfigurations.compactMap { $0 as? ModelConfiguration })
    }
}
