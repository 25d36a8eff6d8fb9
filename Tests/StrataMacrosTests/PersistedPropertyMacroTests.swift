import MacroTesting
import StrataMacros
import Testing

@Suite(
    .macros([
        "Model": ModelMacro.self, "_PersistedProperty": PersistedPropertyMacro.self,
        "Attribute": AttributeMacro.self, "Relationship": RelationshipMacro.self,
        "Transient": TransientMacro.self, "Unique": UniqueMacro.self, "Index": IndexMacro.self,
    ])
)
struct PersistedPropertyMacroTests {
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
                        _$backingData._setValue(initialValue, at: 0)
                        _name = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \.name)
                        return self._$backingData._getValue(at: 0, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \.name) {
                            self._$backingData._setValue(newValue, at: 0)
                        }
                    }
                }

                private var _name: StrataCore._PersistedPropertyToken
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
                        _$backingData._setValue(initialValue, at: 1)
                        _note = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \.note)
                        return self._$backingData._getValue(at: 1, as: String?.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \.note) {
                            self._$backingData._setValue(newValue, at: 1)
                        }
                    }
                }

                private var _note: StrataCore._PersistedPropertyToken
                var counts: [String: Int] {
                    @storageRestrictions(accesses: _$backingData, initializes: _counts)
                    init(initialValue) {
                        _$backingData._setValue(initialValue, at: 2)
                        _counts = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \.counts)
                        return self._$backingData._getValue(at: 2, as: [String: Int].self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \.counts) {
                            self._$backingData._setValue(newValue, at: 2)
                        }
                    }
                }

                private var _counts: StrataCore._PersistedPropertyToken
                var items: [BucketListItem]? {
                    @storageRestrictions(accesses: _$backingData, initializes: _items)
                    init(initialValue) {
                        _$backingData._setValue(initialValue, at: 3)
                        _items = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \.items)
                        return self._$backingData._getValue(at: 3, as: [BucketListItem]?.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \.items) {
                            self._$backingData._setValue(newValue, at: 3)
                        }
                    }
                }

                private var _items: StrataCore._PersistedPropertyToken
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
                        _$backingData._setValue(initialValue, at: 0)
                        _shape = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \.shape)
                        return self._$backingData._getValue(at: 0, as: (any Shape).self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \.shape) {
                            self._$backingData._setValue(newValue, at: 0)
                        }
                    }
                }

                private var _shape: StrataCore._PersistedPropertyToken
                var legacy: String! {
                    @storageRestrictions(accesses: _$backingData, initializes: _legacy)
                    init(initialValue) {
                        _$backingData._setValue(initialValue, at: 1)
                        _legacy = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \.legacy)
                        return self._$backingData._getValue(at: 1, as: String?.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \.legacy) {
                            self._$backingData._setValue(newValue, at: 1)
                        }
                    }
                }

                private var _legacy: StrataCore._PersistedPropertyToken
                var handler: () -> Void {
                    @storageRestrictions(accesses: _$backingData, initializes: _handler)
                    init(initialValue) {
                        _$backingData._setValue(initialValue, at: 2)
                        _handler = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \.handler)
                        return self._$backingData._getValue(at: 2, as: (() -> Void).self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \.handler) {
                            self._$backingData._setValue(newValue, at: 2)
                        }
                    }
                }

                private var _handler: StrataCore._PersistedPropertyToken
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
                        _$backingData._setTransformableValue(initialValue, at: 4)
                        _color = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \.color)
                        return self._$backingData._getTransformableValue(at: 4, as: Color.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \.color) {
                            self._$backingData._setTransformableValue(newValue, at: 4)
                        }
                    }
                }

                private var _color: StrataCore._PersistedPropertyToken
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
                        _$backingData._setValue(initialValue, at: 0)
                        _default = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \.`default`)
                        return self._$backingData._getValue(at: 0, as: Bool.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \.`default`) {
                            self._$backingData._setValue(newValue, at: 0)
                        }
                    }
                }

                private var _default: StrataCore._PersistedPropertyToken
            }
            """#
        }
    }
}
