import Foundation
import StrataCore
import Testing

@testable import StrataJSON

/// Saving: atomic replacement, refusal to overwrite a changed file, read-only configurations.
@Suite struct JSONStoreSaveTests {
    static func container(_ url: URL, allowsSave: Bool = true) throws -> ModelContainer {
        let schema = Schema([Person.self])
        return try ModelContainer(for: schema, configurations: JSONStoreConfiguration(schema: schema, url: url, allowsSave: allowsSave))
    }

    static func insertPeople(_ names: [String], into container: ModelContainer) throws {
        let context = ModelContext(container)
        for (index, name) in names.enumerated() { context.insert(Person(name: name, age: index)) }
        try context.save()
    }

    static func names(in container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<Person>()).map(\.name).sorted()
    }

    /// Whether `body` throws `expected`, directly or as the store error inside a `SwiftDataError`.
    static func throwsError(_ expected: JSONStoreError, _ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch let error as JSONStoreError {
            return error == expected
        } catch {
            return "\(error)".contains(expected.description)
        }
    }

    @Test func aNewDocumentAndItsFolderAreTheOwnersOnly() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appending(path: "nested/people.json", directoryHint: .notDirectory)
        try Self.insertPeople(["Ada"], into: try Self.container(url))
        func mode(_ path: String) throws -> Int {
            try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
        }
        #expect(try mode(url.path) == 0o600)
        #expect(try mode(url.deletingLastPathComponent().path) == 0o700)
        // A document that exists keeps the permissions its owner gave it.
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: url.path)
        try Self.insertPeople(["Grace"], into: try Self.container(url))
        #expect(try mode(url.path) == 0o640)
    }

    @Test func aConfigurationCanLetTheGroupRead() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appending(path: "shared/people.json", directoryHint: .notDirectory)
        var configuration = JSONStoreConfiguration(url: url)
        configuration.filePermissions = StoreFilePermissions(fileMode: 0o640)
        #expect(configuration.filePermissions.directoryMode == 0o750)
        let context = ModelContext(try ModelContainer(for: Schema([Person.self]), configurations: [configuration]))
        context.insert(Person(name: "Ada", age: 36))
        try context.save()
        func mode(_ path: String) throws -> Int {
            try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
        }
        #expect(try mode(url.path) == 0o640)
        #expect(try mode(url.deletingLastPathComponent().path) == 0o750)
    }

    @Test func savesLeaveOnlyTheDocumentBehind() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.json")
        let container = try Self.container(url)
        #expect(try folder.entries().isEmpty, "opening created a file")
        try Self.insertPeople(["Ada", "Grace"], into: container)
        try Self.insertPeople(["Edsger"], into: container)
        #expect(try folder.entries() == ["people.json"])
        #expect(try Self.names(in: Self.container(url)) == ["Ada", "Edsger", "Grace"])
    }

    @Test func aSaveKeepsTheDocumentsPermissions() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.json")
        let container = try Self.container(url)
        try Self.insertPeople(["Ada"], into: container)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        try Self.insertPeople(["Grace"], into: container)
        let permissions = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }

    @Test func aFailedSaveLeavesTheOldDocumentAndTheStoreUnchanged() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.json")
        let container = try Self.container(url)
        try Self.insertPeople(["Ada"], into: container)
        let before = try Data(contentsOf: url)

        // The save file's name is taken by a folder, so writing it fails (even as root).
        let blocker = folder.file(".people.json.strata-save")
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)
        let context = ModelContext(container)
        context.insert(Person(name: "Grace", age: 1))
        #expect(throws: (any Error).self) { try context.save() }
        #expect(try Data(contentsOf: url) == before, "a failed save changed the document")
        #expect(try Self.names(in: container) == ["Ada"], "a failed save changed what the store holds")

        // Once the obstacle is gone the same store saves, and leaves no save file.
        try FileManager.default.removeItem(at: blocker)
        try Self.insertPeople(["Grace"], into: container)
        #expect(try Self.names(in: Self.container(url)) == ["Ada", "Grace"])
        #expect(try folder.entries() == ["people.json"])
    }

    @Test func aLeftoverSaveFileFromACrashIsReplaced() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.json")
        let container = try Self.container(url)
        try Self.insertPeople(["Ada"], into: container)
        try Data("{\"half\": ".utf8).write(to: folder.file(".people.json.strata-save"))
        try Self.insertPeople(["Grace"], into: container)
        #expect(try folder.entries() == ["people.json"])
        #expect(try Self.names(in: Self.container(url)) == ["Ada", "Grace"])
    }

    @Test func aSaveRefusesToOverwriteADocumentChangedOnDisk() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.json")
        let container = try Self.container(url)
        try Self.insertPeople(["Ada"], into: container)

        // Another program rewrites the file behind the store's back.
        let edited = try String(decoding: Data(contentsOf: url), as: UTF8.self).replacingOccurrences(of: "\"Ada\"", with: "\"Ada Lovelace\"")
        try Data(edited.utf8).write(to: url)
        let context = ModelContext(container)
        context.insert(Person(name: "Grace", age: 1))
        #expect(Self.throwsError(.documentChangedOnDisk(file: url.path)) { try context.save() })
        #expect(try String(decoding: Data(contentsOf: url), as: UTF8.self) == edited, "the refused save overwrote the edit")
        #expect(try folder.entries() == ["people.json"])

        // Reopening loads the edit, and saves work again.
        let reopened = try Self.container(url)
        #expect(try Self.names(in: reopened) == ["Ada Lovelace"])
        try Self.insertPeople(["Grace"], into: reopened)
        #expect(try Self.names(in: Self.container(url)) == ["Ada Lovelace", "Grace"])
    }

    @Test func twoStoresOnOneFileDoNotOverwriteEachOther() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.json")
        try Self.insertPeople(["Ada"], into: Self.container(url))
        // Two processes open the same document; the first to save wins, the second is refused.
        let first = try Self.container(url)
        let second = try Self.container(url)
        try Self.insertPeople(["Grace"], into: first)
        #expect(Self.throwsError(.documentChangedOnDisk(file: url.path)) { try Self.insertPeople(["Barbara"], into: second) })
        #expect(try Self.names(in: Self.container(url)) == ["Ada", "Grace"])
    }

    @Test func aDeletedDocumentIsNotRecreatedBehindTheUsersBack() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.json")
        let container = try Self.container(url)
        try Self.insertPeople(["Ada"], into: container)
        try FileManager.default.removeItem(at: url)
        #expect(Self.throwsError(.documentChangedOnDisk(file: url.path)) { try Self.insertPeople(["Grace"], into: container) })
        #expect(try folder.entries().isEmpty)
    }

    @Test func aReadOnlyConfigurationReadsButNeverWrites() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.json")
        try Self.insertPeople(["Ada"], into: Self.container(url))
        let before = try Data(contentsOf: url)

        let readOnly = try Self.container(url, allowsSave: false)
        #expect(try Self.names(in: readOnly) == ["Ada"])
        #expect(throws: DataStoreError.unsupportedFeature) { try Self.insertPeople(["Grace"], into: readOnly) }
        let context = ModelContext(readOnly)
        #expect(throws: DataStoreError.unsupportedFeature) {
            try context.delete(model: Person.self)
            try context.save()
        }
        #expect(throws: DataStoreError.unsupportedFeature) { try readOnly.erase() }
        #expect(try Data(contentsOf: url) == before)
        #expect(try folder.entries() == ["people.json"])

        // Without a file, a read-only store is empty and creates none.
        let missing = folder.file("nobody.json")
        let empty = try Self.container(missing, allowsSave: false)
        #expect(try Self.names(in: empty).isEmpty)
        #expect(throws: DataStoreError.unsupportedFeature) { try Self.insertPeople(["Grace"], into: empty) }
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    @Test func eraseRemovesTheDocumentAndKeysAreNotReused() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.json")
        let container = try Self.container(url)
        try Self.insertPeople(["Ada", "Grace"], into: container)
        let before = try ModelContext(container).fetchIdentifiers(FetchDescriptor<Person>())
        try container.erase()
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(try Self.names(in: container).isEmpty)
        try Self.insertPeople(["Barbara"], into: container)
        let after = try ModelContext(container).fetchIdentifiers(FetchDescriptor<Person>())
        #expect(Set(after).isDisjoint(with: before))
    }
}
