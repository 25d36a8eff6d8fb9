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

/// A model whose property's initial value makes another model: that one is made while a
/// context materializes a `Crate`, and keeps the values its own initializer gives it.
@Model final class Crate {
    var label: String = "parcel"
    var weight: Double?
    var tag: String = Crate.tagFromAStamp()
    init(label: String) { self.label = label }

    /// Stamps made by `tag`'s initial value, in order.
    nonisolated(unsafe) static var stamps: [Stamp] = []

    static func tagFromAStamp() -> String {
        let stamp = Stamp()
        stamp.count += 1
        stamps.append(stamp)
        return "\(stamp.label)-\(stamp.count)"
    }
}

/// A model whose first persisted property's initial value makes a model of its own class:
/// while a context materializes a `Knot`, the one made meanwhile keeps its own values.
@Model final class Knot {
    var label: String = Knot.labelFromAnInnerKnot()
    var name: String = "knot"
    init(name: String) { self.name = name }

    /// Knots made by `label`'s initial value, in order.
    nonisolated(unsafe) static var inner: [Knot] = []
    nonisolated(unsafe) static var depth = 0

    static func labelFromAnInnerKnot() -> String {
        guard depth == 0 else { return "leaf" }
        depth += 1
        defer { depth -= 1 }
        let knot = Knot(name: "inner")
        inner.append(knot)
        return "made \(knot.name)"
    }
}

/// A model whose transient property's initial value, which Swift runs before its
/// backing-data property's, makes a model of its own class.
@Model final class Coil {
    @Transient var spare: String = Coil.spareFromAnInnerCoil()
    var name: String = "coil"
    init(name: String) { self.name = name }

    /// Coils made by `spare`'s initial value, in order.
    nonisolated(unsafe) static var inner: [Coil] = []
    nonisolated(unsafe) static var depth = 0

    static func spareFromAnInnerCoil() -> String {
        guard depth == 0 else { return "leaf" }
        depth += 1
        defer { depth -= 1 }
        let coil = Coil(name: "inner")
        inner.append(coil)
        return "made \(coil.name)"
    }
}

/// A model class with a composite property, and a subclass whose own property's initial
/// value makes a model of the superclass.
@Model class Spool {
    var name: String = "spool"
    var size: Dimensions = Dimensions()
    init(name: String) { self.name = name }

    /// Spools made by `Bobbin.thread`'s initial value, in order.
    nonisolated(unsafe) static var inner: [Spool] = []
}

@Model final class Bobbin: Spool {
    var thread: String = Bobbin.threadFromAnInnerSpool()
    init(name: String, thread: String) {
        super.init(name: name)
        self.thread = thread
    }

    static func threadFromAnInnerSpool() -> String {
        let spool = Spool(name: "inner")
        Spool.inner.append(spool)
        return "from \(spool.name)"
    }
}

/// A composite value that counts its encodings.
struct Dimensions: Codable, Equatable {
    var width = 1.0
    var height = 2.0

    /// How many times any `Dimensions` was encoded.
    nonisolated(unsafe) static var encodings = 0

    func encode(to encoder: any Encoder) throws {
        Self.encodings += 1
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
    }
}

/// A model whose composite properties have initial values, one of them optional.
@Model final class Shipment {
    var size: Dimensions = Dimensions()
    var spare: Dimensions? = Dimensions(width: 5, height: 6)
    init() {}
}

/// A model with more persisted properties than the eight slots detached data guesses
/// when it does not know a model's number of slots.
@Model final class Survey {
    var a: Int
    var b: Int
    var c: Int
    var d: Int
    var e: Int
    var f: Int
    var g: Int
    var h: Int
    var i: Int
    var j: Int
    init(_ value: Int) {
        (a, b, c, d, e, f, g, h, i, j) = (value, value + 1, value + 2, value + 3, value + 4, value + 5, value + 6, value + 7, value + 8, value + 9)
    }
}

/// A `@Model` class makes its detached backing data at its first use rather than as the
/// stored property's initial value, so that a model a context materializes, which
/// `init(backingData:)` gives its managed backing data, makes none only to drop it; the
/// initial values its initializer assigns go to its class's sink (issue I). The macro tests
/// pin the generated code; these check that models built by the app's initializers still
/// hold and save their values, and that a materialized model keeps its stored ones.
@Suite(.serialized) struct BackingDataCreationTests {
    @Test func initialValuesReadBackAndSave() throws {
        let stamp = Stamp()
        #expect(stamp.label == "none" && stamp.count == 3)
        let made = try #require(stamp.persistentBackingData as? ManagedBackingData<Stamp>)
        #expect(made.isUnadopted && made.context == nil)
        stamp.count = 4
        let container = try ModelContainer(for: Stamp.self, configurations: MemoryStoreConfiguration(name: "stamps"))
        let context = ModelContext(container)
        context.insert(stamp)
        // The insert took over the values made for the new model, in place.
        #expect(stamp.persistentBackingData === made)
        #expect(!made.isUnadopted && made.context === context && made.isInserted)
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

    /// A fetched model of a class with initial values holds its stored values, not the
    /// initial ones its initializer ran through (they went to the class's sink, which the
    /// thread no longer holds after the fetch), and a model that an initial value makes
    /// meanwhile keeps its own values.
    @Test func aMaterializedModelDropsItsInitialValues() throws {
        let container = try ModelContainer(for: Crate.self, configurations: MemoryStoreConfiguration(name: "parcels"))
        let writer = ModelContext(container)
        let parcel = Crate(label: "books")
        parcel.weight = 2.5
        parcel.tag = "fragile"
        writer.insert(parcel)
        try writer.save()
        Crate.stamps = []
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Crate>()).first)
        #expect(fetched.label == "books" && fetched.weight == 2.5 && fetched.tag == "fragile")
        #expect(fetched.persistentBackingData is ManagedBackingData<Crate>)
        #expect(MaterializingThread.sink == nil)
        #expect(Crate.stamps.count == 1)
        for stamp in Crate.stamps {
            #expect(stamp.label == "none" && stamp.count == 4)
            #expect((stamp.persistentBackingData as? ManagedBackingData<Stamp>)?.isUnadopted == true)
        }
    }

    /// A model of the class being materialized, made by one of its initial values, makes a
    /// detached backing data of its own: the materialized model took the class's sink first.
    @Test func aModelOfTheSameClassMadeByAnInitialValueKeepsItsValues() throws {
        let container = try ModelContainer(for: Knot.self, configurations: MemoryStoreConfiguration(name: "knots"))
        let writer = ModelContext(container)
        writer.insert(Knot(name: "outer"))
        try writer.save()
        Knot.inner = []
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Knot>()).first)
        #expect(fetched.name == "outer" && fetched.label == "made inner")
        #expect(MaterializingThread.sink == nil)
        #expect(Knot.inner.count == 1)
        for knot in Knot.inner {
            #expect(knot.name == "inner" && knot.label == "leaf")
            #expect((knot.persistentBackingData as? ManagedBackingData<Knot>)?.isUnadopted == true)
        }
    }

    /// A class whose transient initial value runs before its backing-data property's is
    /// materialized without a sink, so the model that initial value makes keeps its values.
    @Test func aTransientInitialValueBeforeTheBackingDataMakesAModelOfItsOwn() throws {
        #expect(ModelLayout.of(Coil.self).initialValueSink == nil)
        let container = try ModelContainer(for: Coil.self, configurations: MemoryStoreConfiguration(name: "coils"))
        let writer = ModelContext(container)
        writer.insert(Coil(name: "outer"))
        try writer.save()
        Coil.inner = []
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Coil>()).first)
        #expect(fetched.name == "outer" && fetched.spare == "made inner")
        #expect(Coil.inner.count == 1)
        for coil in Coil.inner {
            #expect(coil.name == "inner" && coil.spare == "leaf")
        }
    }

    /// A subclass's initial values take the sink before one of them makes a model of the
    /// superclass, which keeps its values; the subclass's `init(backingData:)` then hands the
    /// sink on to its superclass's initial values, so the composite one is not encoded.
    @Test func aSubclassHandsTheSinkOnToItsSuperclass() throws {
        let container = try ModelContainer(
            for: Spool.self, Bobbin.self, configurations: MemoryStoreConfiguration(name: "bobbins"))
        let writer = ModelContext(container)
        let bobbin = Bobbin(name: "outer", thread: "silk")
        bobbin.size = Dimensions(width: 7, height: 8)
        writer.insert(bobbin)
        try writer.save()
        Spool.inner = []
        let before = Dimensions.encodings
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Bobbin>()).first)
        #expect(fetched.name == "outer" && fetched.thread == "silk" && fetched.size == Dimensions(width: 7, height: 8))
        #expect(Spool.inner.count == 1)
        for spool in Spool.inner {
            #expect(spool.name == "inner" && spool.size == Dimensions())
        }
        // The inner spool's own initial value is the one encoding.
        #expect(Dimensions.encodings == before + 1)
    }

    /// A fetched model's composite properties are not encoded for their initial values, which
    /// the sink would drop: only the app's own writes encode.
    @Test func aMaterializedModelEncodesNoInitialValue() throws {
        let container = try ModelContainer(for: Shipment.self, configurations: MemoryStoreConfiguration(name: "shipments"))
        let writer = ModelContext(container)
        let shipment = Shipment()
        shipment.size = Dimensions(width: 3, height: 4)
        shipment.spare = nil
        writer.insert(shipment)
        try writer.save()
        let before = Dimensions.encodings
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Shipment>()).first)
        #expect(fetched.size == Dimensions(width: 3, height: 4))
        #expect(fetched.spare == nil)
        #expect(Dimensions.encodings == before)
        fetched.spare = Dimensions()
        #expect(Dimensions.encodings == before + 1)
        #expect(fetched.spare == Dimensions())
    }

    /// Only a class whose initializer assigns initial values has a sink: one with an explicit
    /// initial value or an optional property (its implicit `nil`); a class with neither is
    /// materialized without one.
    @Test func aSinkOnlyForClassesWithInitialValues() {
        #expect(ModelLayout.of(Crate.self).initialValueSink is InitialValueSink<Crate>)
        #expect(ModelLayout.of(Stamp.self).initialValueSink is InitialValueSink<Stamp>)
        #expect(ModelLayout.of(Marker.self).initialValueSink is InitialValueSink<Marker>)
        #expect(ModelLayout.of(Postcard.self).initialValueSink == nil)
    }

    /// `@Model` tells a new model's detached data its number of slots, and the values get
    /// room for that many: a model with fewer than eight no longer holds room for eight
    /// (48 bytes more per model of six), and one with more no longer grows its values
    /// (a copy per model). The array may round its capacity up to what the allocator gave.
    @Test func detachedValuesHaveRoomForTheModelsSlots() throws {
        func capacity<M: PersistentModel>(_ model: M) throws -> Int {
            try #require(model.persistentBackingData as? ManagedBackingData<M>).storage.values.capacity
        }
        let stamp = Stamp()
        #expect((2..<8).contains(try capacity(stamp)))
        let survey = Survey(1)
        #expect((10..<16).contains(try capacity(survey)))
        let container = try ModelContainer(for: Survey.self, configurations: MemoryStoreConfiguration(name: "surveys"))
        let context = ModelContext(container)
        context.insert(survey)
        try context.save()
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Survey>()).first)
        #expect([fetched.a, fetched.b, fetched.c, fetched.d, fetched.e, fetched.f, fetched.g, fetched.h, fetched.i, fetched.j] == Array(1...10))
    }

    /// A backing data set from outside before any use is the one the model keeps.
    @Test func aBackingDataSetBeforeUseIsKept() {
        let marker = Marker()
        let data = ManagedBackingData<Marker>(for: Marker.self)
        marker.persistentBackingData = data
        marker.note = "set"
        #expect(marker.persistentBackingData === data)
        if case .attribute(.string("set")) = data.value(at: 0) {} else { Issue.record("the model wrote elsewhere: \(data.value(at: 0))") }
    }
}
