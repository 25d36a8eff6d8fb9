import Foundation
import Strata
import StrataMemory
import Testing

/// A model written by hand, without `@Model`, through SwiftData's key-path accessors.
final class Ledger: PersistentModel {
    var persistentBackingData: any BackingData<Ledger> = Ledger.createBackingData()
    init(owner: String) { self.owner = owner }
    init(backingData: any BackingData<Ledger>) { persistentBackingData = backingData }

    var owner: String {
        get { getValue(forKey: \.owner) }
        set { setValue(forKey: \.owner, to: newValue) }
    }
    var balance: Decimal? {
        get { getValue(forKey: \.balance) }
        set { setValue(forKey: \.balance, to: newValue) }
    }
    var tags: [String] {
        get { getValue(forKey: \.tags) }
        set { setValue(forKey: \.tags, to: newValue) }
    }
    var entries: [LedgerEntry] {
        get { getValue(forKey: \.entries) }
        set { setValue(forKey: \.entries, to: newValue) }
    }

    static var schemaMetadata: [Schema.PropertyMetadata] {
        [
            Schema.PropertyMetadata(name: "owner", keypath: \Ledger.owner, defaultValue: nil, metadata: nil),
            Schema.PropertyMetadata(name: "balance", keypath: \Ledger.balance, defaultValue: nil, metadata: nil),
            Schema.PropertyMetadata(name: "tags", keypath: \Ledger.tags, defaultValue: nil, metadata: nil),
            Schema.PropertyMetadata(name: "entries", keypath: \Ledger.entries, defaultValue: nil, metadata: Schema.Relationship(deleteRule: .cascade)),
        ]
    }
}

final class LedgerEntry: PersistentModel {
    var persistentBackingData: any BackingData<LedgerEntry> = LedgerEntry.createBackingData()
    init(amount: Int) { self.amount = amount }
    init(backingData: any BackingData<LedgerEntry>) { persistentBackingData = backingData }

    var amount: Int {
        get { getValue(forKey: \.amount) }
        set { setValue(forKey: \.amount, to: newValue) }
    }
    var ledger: Ledger? {
        get { getValue(forKey: \.ledger) }
        set { setValue(forKey: \.ledger, to: newValue) }
    }

    static var schemaMetadata: [Schema.PropertyMetadata] {
        [
            Schema.PropertyMetadata(name: "amount", keypath: \LedgerEntry.amount, defaultValue: nil, metadata: nil),
            Schema.PropertyMetadata(name: "ledger", keypath: \LedgerEntry.ledger, defaultValue: nil, metadata: nil),
        ]
    }
}

@Model final class Crew {
    var name: String
    @Relationship(deleteRule: .cascade, minimumModelCount: 1, maximumModelCount: 2) var members: [CrewMember] = []
    init(name: String) { self.name = name }
}

@Model final class CrewMember {
    var name: String
    var crew: Crew?
    init(name: String) { self.name = name }
}

/// SwiftData API that the rest of the suite does not reach.
@Suite struct SwiftDataParityTests {
    @Test func handWrittenModelsUseKeyPathAccessors() throws {
        let container = try ModelContainer(for: Ledger.self, configurations: MemoryStoreConfiguration(name: "ledgers"))
        let context = ModelContext(container)
        let ledger = Ledger(owner: "Ada")
        ledger.balance = Decimal(string: "12.50")
        ledger.tags = ["home"]
        ledger.entries = [LedgerEntry(amount: 5), LedgerEntry(amount: 7)]
        context.insert(ledger)
        try context.save()

        let reader = ModelContext(container)
        let fetched = try #require(try reader.fetch(FetchDescriptor<Ledger>()).first)
        #expect(fetched.owner == "Ada")
        #expect(fetched.balance == Decimal(string: "12.50"))
        #expect(fetched.tags == ["home"])
        #expect(fetched.entries.map(\.amount).sorted() == [5, 7])
        #expect(fetched.entries.first?.ledger === fetched)
    }

    @Test func relationshipCountsAreEnforcedAtSave() throws {
        let container = try ModelContainer(for: Crew.self, configurations: MemoryStoreConfiguration(name: "crews"))
        let context = ModelContext(container)
        let empty = Crew(name: "Empty")
        context.insert(empty)
        let error = #expect(throws: SwiftDataError.modelValidationFailure) { try context.save() }
        #expect("\(error.map { $0 as Any } ?? "")".contains("Crew.members"), "the error does not name the relationship")

        empty.members = [CrewMember(name: "Ada")]
        try context.save()
        empty.members += [CrewMember(name: "Grace"), CrewMember(name: "Edsger")]
        #expect(throws: SwiftDataError.modelValidationFailure) { try context.save() }
        empty.members.removeLast()
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<CrewMember>()) >= 2)
    }

    @Test func configurationsAreTypedAsInSwiftData() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("parity-\(UUID()).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let container = try ModelContainer(
            for: Crew.self, configurations: ModelConfiguration(url: url), MemoryStoreConfiguration(name: "other", schema: Schema([])))
        let configurations: Set<ModelConfiguration> = container.configurations
        #expect(configurations.map(\.url) == [url])
        #expect(container.dataStoreConfigurations.count == 2)
        #expect(ModelConfiguration.Store.self == DefaultStore.self)
    }

    @Test func fetchDescriptorsCrossActorsAsInSwiftData() async throws {
        func sendable<V: Sendable & SendableMetatype>(_ value: V) -> V { value }
        var descriptor = FetchDescriptor<Crew>(predicate: #Predicate { $0.name == "Ada" }, sortBy: [SortDescriptor(\.name)])
        descriptor.fetchLimit = 3
        let sent = sendable(descriptor)
        let limit = await Task.detached { sent.fetchLimit }.value
        #expect(limit == 3)
    }
}
