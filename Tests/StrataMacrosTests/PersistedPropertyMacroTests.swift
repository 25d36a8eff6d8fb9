import MacroTesting
@testable import StrataMacros
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import Testing

@Suite(
    .macros([
        "Model": ModelMacro.self, "_PersistedProperty": PersistedPropertyMacro.self,
        "Attribute": AttributeMacro.self, "Relationship": RelationshipMacro.self,
        "Transient": TransientMacro.self, "Unique": UniqueMacro.self, "Index": IndexMacro.self,
    ])
)
struct PersistedPropertyMacroTests {
    /// The class that holds a property's key path as a static: the enclosing class, unless a
    /// generic context or an extension around it cannot hold a static stored property; the
    /// accessors then keep the key path literal.
    @Test(arguments: [
        ("final class Trip {}", "Trip"),
        ("class Trip {}", "Trip"),
        ("final class Box<Content> {}", nil),
        ("struct Outer<T> {}\nfinal class Trip {}", nil),
        ("extension Outer {}\nfinal class Trip {}", nil),
        ("struct Outer {}\nfinal class Trip {}", "Trip"),
    ] as [(String, String?)])
    func theKeyPathIsHeldByANonGenericClass(_ source: String, holder: String?) {
        // The lexical context lists the innermost declaration first.
        let declarations = Parser.parse(source: source).statements.map { Syntax($0.item) }.reversed()
        let context = BasicMacroExpansionContext(lexicalContext: Array(declarations))
        #expect(PersistedPropertyMacro.keyPathHolder(in: context) == holder)
    }

    @Test func expandsSlotAccessorsAndToken() {
        assertMacro {
            #"""
            final class Trip {
                @_PersistedProperty(slot: 0)
                var name: String
            }
            """#
        } expansion: {
            #"""
            final class Trip {
                var name: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _name)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData)
                        StrataCore._setValue(initialValue, at: 0, in: _$backingData!)
                        _name = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_name)
                        return StrataCore._getValue(at: 0, in: self._$madeBackingData, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_name) {
                            StrataCore._setValue(newValue, at: 0, in: self._$madeBackingData)
                        }
                    }
                }

                private var _name: StrataCore._PersistedPropertyToken

                private static let _$keyPath_name = \Trip.name
            }
            """#
        }
    }

    @Test func expandsOptionalAndCollectionTypesVerbatim() {
        assertMacro {
            #"""
            final class Trip {
                @_PersistedProperty(slot: 1)
                var note: String?
                @_PersistedProperty(slot: 2)
                var counts: [String: Int] = [:]
                @_PersistedProperty(slot: 3)
                var items: [BucketListItem]?
            }
            """#
        } expansion: {
            #"""
            final class Trip {
                var note: String? {
                    @storageRestrictions(accesses: _$backingData, initializes: _note)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData)
                        StrataCore._setValue(initialValue, at: 1, in: _$backingData!)
                        _note = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_note)
                        return StrataCore._getValue(at: 1, in: self._$madeBackingData, as: String?.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_note) {
                            StrataCore._setValue(newValue, at: 1, in: self._$madeBackingData)
                        }
                    }
                }

                private var _note: StrataCore._PersistedPropertyToken

                private static let _$keyPath_note = \Trip.note
                var counts: [String: Int] {
                    @storageRestrictions(accesses: _$backingData, initializes: _counts)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData)
                        StrataCore._setValue(initialValue, at: 2, in: _$backingData!)
                        _counts = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_counts)
                        return StrataCore._getValue(at: 2, in: self._$madeBackingData, as: [String: Int].self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_counts) {
                            StrataCore._setValue(newValue, at: 2, in: self._$madeBackingData)
                        }
                    }
                }

                private var _counts: StrataCore._PersistedPropertyToken

                private static let _$keyPath_counts = \Trip.counts
                var items: [BucketListItem]? {
                    @storageRestrictions(accesses: _$backingData, initializes: _items)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData)
                        StrataCore._setValue(initialValue, at: 3, in: _$backingData!)
                        _items = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_items)
                        return StrataCore._getValue(at: 3, in: self._$madeBackingData, as: [BucketListItem]?.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_items) {
                            StrataCore._setValue(newValue, at: 3, in: self._$madeBackingData)
                        }
                    }
                }

                private var _items: StrataCore._PersistedPropertyToken

                private static let _$keyPath_items = \Trip.items
            }
            """#
        }
    }

    @Test func parenthesizesTypesThatNeedIt() {
        assertMacro {
            #"""
            final class Trip {
                @_PersistedProperty(slot: 0)
                var shape: any Shape
                @_PersistedProperty(slot: 1)
                var legacy: String!
                @_PersistedProperty(slot: 2)
                var handler: () -> Void
            }
            """#
        } expansion: {
            #"""
            final class Trip {
                var shape: any Shape {
                    @storageRestrictions(accesses: _$backingData, initializes: _shape)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData)
                        StrataCore._setValue(initialValue, at: 0, in: _$backingData!)
                        _shape = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_shape)
                        return StrataCore._getValue(at: 0, in: self._$madeBackingData, as: (any Shape).self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_shape) {
                            StrataCore._setValue(newValue, at: 0, in: self._$madeBackingData)
                        }
                    }
                }

                private var _shape: StrataCore._PersistedPropertyToken

                private static let _$keyPath_shape = \Trip.shape
                var legacy: String! {
                    @storageRestrictions(accesses: _$backingData, initializes: _legacy)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData)
                        StrataCore._setValue(initialValue, at: 1, in: _$backingData!)
                        _legacy = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_legacy)
                        return StrataCore._getValue(at: 1, in: self._$madeBackingData, as: String?.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_legacy) {
                            StrataCore._setValue(newValue, at: 1, in: self._$madeBackingData)
                        }
                    }
                }

                private var _legacy: StrataCore._PersistedPropertyToken

                private static let _$keyPath_legacy = \Trip.legacy
                var handler: () -> Void {
                    @storageRestrictions(accesses: _$backingData, initializes: _handler)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData)
                        StrataCore._setValue(initialValue, at: 2, in: _$backingData!)
                        _handler = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_handler)
                        return StrataCore._getValue(at: 2, in: self._$madeBackingData, as: (() -> Void).self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_handler) {
                            StrataCore._setValue(newValue, at: 2, in: self._$madeBackingData)
                        }
                    }
                }

                private var _handler: StrataCore._PersistedPropertyToken

                private static let _$keyPath_handler = \Trip.handler
            }
            """#
        }
    }

    @Test func expandsTransformableAccessors() {
        assertMacro {
            #"""
            final class Swatch {
                @_PersistedProperty(slot: 4)
                @Attribute(.transformable(by: ColorTransformer.self)) var color: Color
            }
            """#
        } expansion: {
            #"""
            final class Swatch {
                var color: Color {
                    @storageRestrictions(accesses: _$backingData, initializes: _color)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData)
                        StrataCore._setTransformableValue(initialValue, at: 4, in: _$backingData!)
                        _color = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Swatch._$keyPath_color)
                        return StrataCore._getTransformableValue(at: 4, in: self._$madeBackingData, as: Color.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Swatch._$keyPath_color) {
                            StrataCore._setTransformableValue(newValue, at: 4, in: self._$madeBackingData)
                        }
                    }
                }

                private var _color: StrataCore._PersistedPropertyToken

                private static let _$keyPath_color = \Swatch.color
            }
            """#
        }
    }

    @Test func expandsEscapedName() {
        assertMacro {
            #"""
            final class Trip {
                @_PersistedProperty(slot: 0)
                var `default`: Bool
            }
            """#
        } expansion: {
            #"""
            final class Trip {
                var `default`: Bool {
                    @storageRestrictions(accesses: _$backingData, initializes: _default)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData)
                        StrataCore._setValue(initialValue, at: 0, in: _$backingData!)
                        _default = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_default)
                        return StrataCore._getValue(at: 0, in: self._$madeBackingData, as: Bool.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_default) {
                            StrataCore._setValue(newValue, at: 0, in: self._$madeBackingData)
                        }
                    }
                }

                private var _default: StrataCore._PersistedPropertyToken

                private static let _$keyPath_default = \Trip.`default`
            }
            """#
        }
    }
}
