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
struct UniqueMacroTests {
    @Test func expandsToNothingInsideClass() {
        assertMacro {
            #"""
            @Model
            final class Trip {
                #Unique<Trip>([\.name, \.startDate])
                var name: String
                var startDate: Date
                init() {}
            }
            """#
        } expansion: {
            #"""
            final class Trip {
                var name: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _name)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 2)
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
                var startDate: Date {
                    @storageRestrictions(accesses: _$backingData, initializes: _startDate)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 2)
                        StrataCore._setValue(initialValue, at: 1, in: _$backingData!)
                        _startDate = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_startDate)
                        return StrataCore._getValue(at: 1, in: self._$madeBackingData, as: Date.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_startDate) {
                            StrataCore._setValue(newValue, at: 1, in: self._$madeBackingData)
                        }
                    }
                }

                private var _startDate: StrataCore._PersistedPropertyToken

                private static let _$keyPath_startDate = \Trip.startDate
                init() {}

                private var _$backingData: (any StrataCore.BackingData<Trip>)? = StrataCore._takeInitialValueSink(for: Trip.self)

                private var _$madeBackingData: any StrataCore.BackingData<Trip> {
                    if let backingData = _$backingData {
                        return backingData
                    }
                    let made: any StrataCore.BackingData<Trip> = Trip.createBackingData()
                    _$backingData = made
                    return made
                }

                var persistentBackingData: any StrataCore.BackingData<Trip> {
                    get {
                        _$madeBackingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    [
                        StrataCore.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: nil),
                        StrataCore.Schema.PropertyMetadata(name: "startDate", keypath: \Trip.startDate, defaultValue: nil, metadata: nil)
                    ]
                }

                required init(backingData: any StrataCore.BackingData<Trip>) {
                    _name = StrataCore._PersistedPropertyToken()
                    _startDate = StrataCore._PersistedPropertyToken()
                    self.persistentBackingData = backingData
                }

                static func _makeModel(backingData: consuming AnyObject) -> Trip {
                    StrataCore._makeContextModel(backingData, as: Trip.self) {
                        Trip(backingData: $0)
                    }
                }

                private let _$observationRegistrar = Observation.ObservationRegistrar()

                internal nonisolated func access<_M>(keyPath: KeyPath<Trip, _M>) {
                    _$observationRegistrar.access(self, keyPath: keyPath)
                }

                internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Trip, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                    try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
                }

                nonisolated func _notifyObservers(ofChangeAt keyPath: AnyKeyPath) {
                    _$observationRegistrar._notifyChange(of: self, at: keyPath)
                }

                static var _schemaAnnotations: StrataCore.Schema.ModelAnnotations {
                    StrataCore.Schema.ModelAnnotations(
                        uniquenessConstraints: StrataCore.Schema.Unique<Trip>([\.name, \.startDate])
                    )
                }
            }
            """#
        }
    }

    @Test func rejectsTopLevelUse() {
        assertMacro {
            #"""
            #Unique<Trip>([\.name, \.startDate])
            """#
        } diagnostics: {
            #"""
            #Unique<Trip>([\.name, \.startDate])
            ┬───────────────────────────────────
            ╰─ 🛑 '#Unique' can only be used directly inside the body of a '@Model' class; move it into the class
            """#
        }
    }

    @Test func rejectsUseInsideStruct() {
        assertMacro {
            #"""
            struct Trip {
                #Unique<Trip>([\.name, \.startDate])
            }
            """#
        } diagnostics: {
            #"""
            struct Trip {
                #Unique<Trip>([\.name, \.startDate])
                ┬───────────────────────────────────
                ╰─ 🛑 '#Unique' can only be used directly inside the body of a '@Model' class; move it into the class
            }
            """#
        }
    }

    @Test func rejectsUseInsideMethod() {
        assertMacro {
            #"""
            final class Trip {
                func configure() {
                    #Unique<Trip>([\.name, \.startDate])
                }
            }
            """#
        } diagnostics: {
            #"""
            final class Trip {
                func configure() {
                    #Unique<Trip>([\.name, \.startDate])
                    ┬───────────────────────────────────
                    ╰─ 🛑 '#Unique' can only be used directly inside the body of a '@Model' class; move it into the class
                }
            }
            """#
        }
    }
}
