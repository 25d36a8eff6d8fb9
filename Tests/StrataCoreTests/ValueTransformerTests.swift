import Foundation
import Testing
@testable import StrataCore

// Darwin's Foundation has its own ValueTransformer; these tests cover Strata's.
#if !canImport(Darwin)

/// Stores an array of strings as JSON data, the way a transformable attribute is stored.
private final class StringListTransformer: ValueTransformer, @unchecked Sendable {
    override class func transformedValueClass() -> AnyClass { NSData.self }

    override func transformedValue(_ value: Any?) -> Any? {
        guard let strings = value as? [String] else { return nil }
        return try? JSONEncoder().encode(strings)
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        return try? JSONDecoder().decode([String].self, from: data)
    }
}

/// Negates a Boolean; relies on the default reverse transformation, which reapplies it.
private final class NegatingTransformer: ValueTransformer, @unchecked Sendable {
    override func transformedValue(_ value: Any?) -> Any? {
        (value as? Bool).map { !$0 }
    }
}

/// Counts characters, which cannot be undone.
private final class CharacterCountTransformer: ValueTransformer, @unchecked Sendable {
    override class func allowsReverseTransformation() -> Bool { false }

    override func transformedValue(_ value: Any?) -> Any? {
        (value as? String)?.count
    }
}

/// A name no other test uses, since all tests share the registry.
private func uniqueName(_ label: String = #function) -> NSValueTransformerName {
    NSValueTransformerName("StrataTests.\(label).\(UUID().uuidString)")
}

@Suite struct ValueTransformerTests {
    @Test func baseClassPassesValuesThroughUnchanged() throws {
        let transformer = ValueTransformer()
        #expect(transformer.transformedValue(42) as? Int == 42)
        #expect(transformer.reverseTransformedValue("text") as? String == "text")
        #expect(transformer.transformedValue(nil) == nil)
    }

    @Test func baseClassDeclaresFoundationsDefaults() {
        #expect(ValueTransformer.allowsReverseTransformation())
        #expect(ObjectIdentifier(ValueTransformer.transformedValueClass()) == ObjectIdentifier(NSObject.self))
    }

    @Test func subclassRoundTripsValuesThroughData() throws {
        let transformer = StringListTransformer()
        let data = try #require(transformer.transformedValue(["Zürich", "Paris"]) as? Data)
        #expect(try JSONDecoder().decode([String].self, from: data) == ["Zürich", "Paris"])
        #expect(transformer.reverseTransformedValue(data) as? [String] == ["Zürich", "Paris"])
        #expect(ObjectIdentifier(StringListTransformer.transformedValueClass()) == ObjectIdentifier(NSData.self))
    }

    @Test func defaultReverseTransformationReappliesTheForwardOne() {
        let transformer = NegatingTransformer()
        #expect(transformer.transformedValue(true) as? Bool == false)
        #expect(transformer.reverseTransformedValue(false) as? Bool == true)
    }

    @Test func subclassCanDisallowReverseTransformation() {
        #expect(!CharacterCountTransformer.allowsReverseTransformation())
        #expect(StringListTransformer.allowsReverseTransformation())
        #expect(CharacterCountTransformer().transformedValue("Zürich") as? Int == 6)
    }

    @Test func reverseTransformationStopsTheProgramWhenDisallowed() async {
        await #expect(processExitsWith: .failure) {
            _ = CharacterCountTransformer().reverseTransformedValue(6)
        }
    }

    @Test func registeredTransformerIsFoundByName() throws {
        let name = uniqueName()
        let transformer = StringListTransformer()
        ValueTransformer.setValueTransformer(transformer, forName: name)
        defer { ValueTransformer.setValueTransformer(nil, forName: name) }

        let found = try #require(ValueTransformer(forName: name))
        #expect(found === transformer)
        #expect(found.transformedValue(["a"]) as? Data == Data(#"["a"]"#.utf8))
        #expect(StringListTransformer(forName: name) === transformer)
    }

    @Test func lookupThroughAnotherSubclassFindsNothing() {
        let name = uniqueName()
        ValueTransformer.setValueTransformer(StringListTransformer(), forName: name)
        defer { ValueTransformer.setValueTransformer(nil, forName: name) }

        #expect(NegatingTransformer(forName: name) == nil)
    }

    @Test func unregisteredNameFindsNothing() {
        #expect(ValueTransformer(forName: uniqueName()) == nil)
    }

    @Test func registeringAgainReplacesTheTransformer() {
        let name = uniqueName()
        let first = NegatingTransformer()
        let second = NegatingTransformer()
        ValueTransformer.setValueTransformer(first, forName: name)
        ValueTransformer.setValueTransformer(second, forName: name)
        defer { ValueTransformer.setValueTransformer(nil, forName: name) }

        #expect(ValueTransformer(forName: name) === second)
    }

    @Test func registeringNilRemovesTheTransformer() {
        let name = uniqueName()
        ValueTransformer.setValueTransformer(NegatingTransformer(), forName: name)
        ValueTransformer.setValueTransformer(nil, forName: name)

        #expect(ValueTransformer(forName: name) == nil)
        #expect(!ValueTransformer.valueTransformerNames().contains(name))
    }

    @Test func namesListIncludesEveryRegisteredNameInOrder() {
        let names = [uniqueName("first"), uniqueName("second")]
        for name in names {
            ValueTransformer.setValueTransformer(NegatingTransformer(), forName: name)
        }
        defer {
            for name in names {
                ValueTransformer.setValueTransformer(nil, forName: name)
            }
        }

        let listed = ValueTransformer.valueTransformerNames()
        #expect(names.allSatisfy(listed.contains))
        #expect(listed.map(\.rawValue) == listed.map(\.rawValue).sorted())
    }

    @Test func concurrentRegistrationsAreAllKept() async {
        let names = (0..<200).map { uniqueName("concurrent\($0)") }
        await withTaskGroup(of: Void.self) { group in
            for name in names {
                group.addTask {
                    ValueTransformer.setValueTransformer(NegatingTransformer(), forName: name)
                    _ = ValueTransformer.valueTransformerNames()
                }
            }
        }
        defer {
            for name in names {
                ValueTransformer.setValueTransformer(nil, forName: name)
            }
        }

        #expect(names.allSatisfy { ValueTransformer(forName: $0) is NegatingTransformer })
    }

    @Test func nameInitializersAgree() {
        let name = NSValueTransformerName("StringList")
        #expect(name == NSValueTransformerName(rawValue: "StringList"))
        #expect(name.rawValue == "StringList")
        #expect(name != NSValueTransformerName("Other"))
        #expect(Set([name, NSValueTransformerName(rawValue: "StringList")]).count == 1)
    }
}

#endif
