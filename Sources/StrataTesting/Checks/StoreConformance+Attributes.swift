import Foundation
import StrataCore
import Testing

extension StoreConformance {
    static let attributeChecks: [Check] = [
        Check("every attribute type round-trips", everyAttributeTypeRoundTrips),
        Check("optional attributes round-trip set and nil", optionalAttributesRoundTrip),
        Check("special floating-point values and unusual strings round-trip exactly", specialValuesRoundTrip),
        Check("updated attributes and deletes persist", updatesAndDeletesPersist),
    ]

    /// Saves specimens with extreme, empty and typical values of every type and reads them back in a fresh context.
    static func everyAttributeTypeRoundTrips(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: ScalarSpecimen.self)
        let writer = harness.context(container)
        for specimen in [ScalarSpecimen.minimum(), .maximum(), .typical()] { writer.insert(specimen) }
        try writer.save()

        let reader = harness.context(container)
        let fetched = try reader.fetch(FetchDescriptor<ScalarSpecimen>())
        #expect(fetched.map(\.label).sorted() == ["maximum", "minimum", "typical"])
        for expected in [ScalarSpecimen.minimum(), .maximum(), .typical()] {
            guard let actual = fetched.first(where: { $0.label == expected.label }) else { continue }
            for ((name, value), (_, wanted)) in zip(actual.fields, expected.fields) {
                #expect(value == wanted, "\(name) of the \(expected.label) specimen did not round-trip")
            }
        }
    }

    /// NaN, ±infinity and -0.0 in `Double` and `Float`; strings with NUL, a byte-order mark,
    /// only NUL, and of several megabytes; read back bit for bit in a fresh context.
    static func specialValuesRoundTrip(_ harness: ConformanceHarness) throws {
        let megabytes = String(repeating: "Zürich 東京 🚀\u{0}", count: 150_000)
        let cases: [(label: String, double: Double, float: Float, string: String)] = [
            ("nan", .nan, .nan, "a\u{0}b"),
            ("infinity", .infinity, .infinity, "\u{FEFF}bom"),
            ("-infinity", -.infinity, -.infinity, megabytes),
            ("-0", -0.0, -0.0, "\u{0}"),
            ("+0", 0.0, 0.0, "\u{FEFF}"),
            ("subnormal", .leastNonzeroMagnitude, .leastNonzeroMagnitude, "e\u{301}"),
        ]
        let container = try harness.container(for: ScalarSpecimen.self)
        let writer = harness.context(container)
        for special in cases {
            let specimen = ScalarSpecimen(label: special.label)
            specimen.double = special.double
            specimen.float = special.float
            specimen.string = special.string
            writer.insert(specimen)
        }
        try writer.save()

        let fetched = try harness.context(container).fetch(FetchDescriptor<ScalarSpecimen>())
        for special in cases {
            guard let actual = fetched.first(where: { $0.label == special.label }) else {
                Issue.record("the \(special.label) specimen did not come back")
                continue
            }
            let sameDouble = special.double.isNaN ? actual.double.isNaN : actual.double.bitPattern == special.double.bitPattern
            let sameFloat = special.float.isNaN ? actual.float.isNaN : actual.float.bitPattern == special.float.bitPattern
            #expect(sameDouble, "double \(special.label) came back as \(actual.double)")
            #expect(sameFloat, "float \(special.label) came back as \(actual.float)")
            #expect(
                actual.string.unicodeScalars.elementsEqual(special.string.unicodeScalars),
                "the string of \(special.label) came back with \(actual.string.unicodeScalars.count) scalars, not \(special.string.unicodeScalars.count)")
        }
    }

    /// Saves one specimen with every optional set (to values that look empty) and one with every optional `nil`.
    static func optionalAttributesRoundTrip(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: OptionalSpecimen.self)
        let writer = harness.context(container)
        writer.insert(OptionalSpecimen.empty())
        writer.insert(OptionalSpecimen.filled())
        try writer.save()

        let reader = harness.context(container)
        let fetched = try reader.fetch(FetchDescriptor<OptionalSpecimen>())
        #expect(fetched.map(\.label).sorted() == ["nil", "set"])
        for expected in [OptionalSpecimen.empty(), .filled()] {
            guard let actual = fetched.first(where: { $0.label == expected.label }) else { continue }
            for ((name, value), (_, wanted)) in zip(actual.fields, expected.fields) {
                #expect(value == wanted, "\(name) of the \(expected.label) specimen did not round-trip")
            }
        }

        // Setting to nil and from nil in a later save persists too.
        let set = try #require(fetched.first { $0.label == "set" })
        let none = try #require(fetched.first { $0.label == "nil" })
        set.int64 = nil
        set.string = nil
        set.transport = nil
        set.tags = nil
        none.int64 = 7
        none.string = "now set"
        none.transport = .train(line: "S1")
        none.tags = ["x"]
        try reader.save()
        let again = try harness.context(container).fetch(FetchDescriptor<OptionalSpecimen>())
        let setAgain = try #require(again.first { $0.label == "set" })
        let noneAgain = try #require(again.first { $0.label == "nil" })
        #expect(setAgain.int64 == nil)
        #expect(setAgain.string == nil)
        #expect(setAgain.transport == nil)
        #expect(setAgain.tags == nil)
        #expect(setAgain.uint64 == .max, "an untouched property changed")
        #expect(noneAgain.int64 == 7)
        #expect(noneAgain.string == "now set")
        #expect(noneAgain.transport == .train(line: "S1"))
        #expect(noneAgain.tags == ["x"])
        #expect(noneAgain.uint64 == nil, "an untouched property changed")
    }

    /// Changes attributes of saved models in one context, deletes another, and reads the result in a fresh one.
    static func updatesAndDeletesPersist(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: ScalarSpecimen.self)
        let writer = harness.context(container)
        for specimen in [ScalarSpecimen.minimum(), .maximum(), .typical()] { writer.insert(specimen) }
        try writer.save()

        let editor = harness.context(container)
        let specimens = try editor.fetch(FetchDescriptor<ScalarSpecimen>())
        let typical = try #require(specimens.first { $0.label == "typical" })
        let maximum = try #require(specimens.first { $0.label == "maximum" })
        typical.string = "edited"
        typical.int64 = 99
        typical.transport = .walk
        typical.tags.append("two")
        editor.delete(maximum)
        try editor.save()

        let reader = harness.context(container)
        let after = try reader.fetch(FetchDescriptor<ScalarSpecimen>())
        #expect(after.map(\.label).sorted() == ["minimum", "typical"])
        let edited = try #require(after.first { $0.label == "typical" })
        #expect(edited.string == "edited")
        #expect(edited.int64 == 99)
        #expect(edited.transport == .walk)
        #expect(edited.tags == ["one", "two"])
        #expect(edited.uint64 == UInt64(Int64.max) + 1, "an untouched property changed")
        #expect(try reader.fetchCount(FetchDescriptor<ScalarSpecimen>()) == 2)
    }
}
