import Foundation
import StrataMemory
import Testing
@testable import StrataCore

/// A model whose initializer sets nothing: its properties take their initial values.
@Model final class Stamp {
    var label: String = "none"
    var count: Int = 3
    init() {}
}

/// A model whose initializer sets nothing and whose one property has no initial value but
/// `nil`: no property write makes its backing data before something reads it.
@Model final class Marker {
    var note: String?
    init() {}
}

/// A `@Model` class makes its detached backing data at its first use rather than as the
/// stored property's initial value, so that a model a context materializes, which
/// `init(backingData:)` gives its managed backing data, makes none only to drop it unless a
/// property has an initial value (issue I). The macro tests pin the generated code; these
/// check that models built by the app's initializers still hold and save their values.
@Suite struct BackingDataCreationTests {
    @Test func initialValuesReadBackAndSave() throws {
        let stamp = Stamp()
        #expect(stamp.label == "none" && stamp.count == 3)
        #expect(stamp.persistentBackingData is DetachedBackingData<Stamp>)
        stamp.count = 4
        let container = try ModelContainer(for: Stamp.self, configurations: MemoryStoreConfiguration(name: "stamps"))
        let context = ModelContext(container)
        context.insert(stamp)
        try context.save()
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Stamp>()).first)
        #expect(fetched.label == "none" && fetched.count == 4)
        #expect(fetched.persistentBackingData is ManagedBackingData<Stamp>)
    }

    @Test func aModelNothingWroteToIsMadeAtItsFirstUse() throws {
        let untouched = Marker()
        #expect(untouched.persistentModelID == untouched.persistentModelID)
        let container = try ModelContainer(for: Marker.self, configurations: MemoryStoreConfiguration(name: "markers"))
        let context = ModelContext(container)
        context.insert(untouched)
        let written = Marker()
        written.note = "kept"
        context.insert(written)
        try context.save()
        let notes = try ModelContext(container).fetch(FetchDescriptor<Marker>()).map(\.note)
        #expect(notes.sorted { ($0 ?? "") < ($1 ?? "") } == [nil, "kept"])
    }

    /// A backing data set from outside before any use is the one the model keeps.
    @Test func aBackingDataSetBeforeUseIsKept() {
        let marker = Marker()
        let data = DetachedBackingData<Marker>(for: Marker.self)
        marker.persistentBackingData = data
        marker.note = "set"
        #expect(marker.persistentBackingData === data)
        if case .attribute(.string("set")) = data.value(at: 0) {} else { Issue.record("the model wrote elsewhere: \(data.value(at: 0))") }
    }
}
