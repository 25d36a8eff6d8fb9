import MacroTesting
import StrataMacros
import SwiftSyntaxMacroExpansion
import Testing

@Suite(
    .macros([
        "Model": ModelMacro.self, "_PersistedProperty": PersistedPropertyMacro.self,
        "Attribute": AttributeMacro.self, "Relationship": RelationshipMacro.self,
        "Transient": TransientMacro.self, "Unique": UniqueMacro.self, "Index": IndexMacro.self,
    ])
)
struct ModelMacroTests {
    @Test func passesAnOriginalEntityNameToTheSchema() {
        assertMacro {
            #"""
            @Model(originalName: "Journey")
            final class Trip {
                var name: String
                init(name: String) { self.name = name }
            }
            """#
        } expansion: {
            #"""
            final class Trip {
                var name: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _name)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 1)
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
                init(name: String) { self.name = name }

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
                        StrataCore.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: nil)
                    ]
                }

                required init(backingData: any StrataCore.BackingData<Trip>) {
                    _name = StrataCore._PersistedPropertyToken()
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
                        originalName: "Journey"
                    )
                }
            }
            """#
        }
    }

    @Test func expandsPlainModel() {
        assertMacro {
            #"""
            @Model
            final class Trip {
                var name: String
                var startDate: Date = .now
                var livingAccommodation: LivingAccommodation?
                var tags: [String: Int] = [:]
                @Transient var viewCount = 0
                var summary: String { name }
                var isLong: Bool {
                    get { false }
                }
                static var shared = 0
                class var kind: String { "trip" }
                private var _$cache: Int = 0
                private var _legacy: StrataCore._PersistedPropertyToken
                init(name: String) { self.name = name }
            }
            """#
        } expansion: {
            #"""
            final class Trip {
                var name: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _name)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 4)
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
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 4)
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
                var livingAccommodation: LivingAccommodation? {
                    @storageRestrictions(accesses: _$backingData, initializes: _livingAccommodation)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 4)
                        StrataCore._setValue(initialValue, at: 2, in: _$backingData!)
                        _livingAccommodation = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_livingAccommodation)
                        return StrataCore._getValue(at: 2, in: self._$madeBackingData, as: LivingAccommodation?.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_livingAccommodation) {
                            StrataCore._setValue(newValue, at: 2, in: self._$madeBackingData)
                        }
                    }
                }

                private var _livingAccommodation: StrataCore._PersistedPropertyToken

                private static let _$keyPath_livingAccommodation = \Trip.livingAccommodation
                var tags: [String: Int] {
                    @storageRestrictions(accesses: _$backingData, initializes: _tags)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 4)
                        StrataCore._setValue(initialValue, at: 3, in: _$backingData!)
                        _tags = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_tags)
                        return StrataCore._getValue(at: 3, in: self._$madeBackingData, as: [String: Int].self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_tags) {
                            StrataCore._setValue(newValue, at: 3, in: self._$madeBackingData)
                        }
                    }
                }

                private var _tags: StrataCore._PersistedPropertyToken

                private static let _$keyPath_tags = \Trip.tags
                var viewCount = 0
                var summary: String { name }
                var isLong: Bool {
                    get { false }
                }
                static var shared = 0
                class var kind: String { "trip" }
                private var _$cache: Int = 0
                private var _legacy: StrataCore._PersistedPropertyToken
                init(name: String) { self.name = name }

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
                        StrataCore.Schema.PropertyMetadata(name: "startDate", keypath: \Trip.startDate, defaultValue: (.now) as Date, metadata: nil),
                        StrataCore.Schema.PropertyMetadata(name: "livingAccommodation", keypath: \Trip.livingAccommodation, defaultValue: nil, metadata: nil),
                        StrataCore.Schema.PropertyMetadata(name: "tags", keypath: \Trip.tags, defaultValue: ([:]) as [String: Int], metadata: nil)
                    ]
                }

                required init(backingData: any StrataCore.BackingData<Trip>) {
                    _name = StrataCore._PersistedPropertyToken()
                    _startDate = StrataCore._PersistedPropertyToken()
                    _livingAccommodation = StrataCore._PersistedPropertyToken()
                    _tags = StrataCore._PersistedPropertyToken()
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
            }
            """#
        }
    }

    @Test func expandsPublicModelWithUniqueAndIndex() {
        assertMacro {
            #"""
            @Model
            public final class Trip {
                #Unique<Trip>([\.name, \.startDate])
                #Index<Trip>([\.name], [\.startDate])
                @Attribute(.preserveValueOnDeletion) var name: String
                var startDate: Date = .now
                @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip) var bucketList: [BucketListItem] = []
                var livingAccommodation: LivingAccommodation?
                @Transient var viewCount = 0
                var summary: String { name }
                static var shared = 0
                init(name: String) { self.name = name }
            }
            """#
        } expansion: {
            #"""
            public final class Trip {
                var name: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _name)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 4)
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
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 4)
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
                var bucketList: [BucketListItem] {
                    @storageRestrictions(accesses: _$backingData, initializes: _bucketList)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 4)
                        StrataCore._setValue(initialValue, at: 2, in: _$backingData!)
                        _bucketList = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_bucketList)
                        return StrataCore._getValue(at: 2, in: self._$madeBackingData, as: [BucketListItem].self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_bucketList) {
                            StrataCore._setValue(newValue, at: 2, in: self._$madeBackingData)
                        }
                    }
                }

                private var _bucketList: StrataCore._PersistedPropertyToken

                private static let _$keyPath_bucketList = \Trip.bucketList
                var livingAccommodation: LivingAccommodation? {
                    @storageRestrictions(accesses: _$backingData, initializes: _livingAccommodation)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 4)
                        StrataCore._setValue(initialValue, at: 3, in: _$backingData!)
                        _livingAccommodation = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_livingAccommodation)
                        return StrataCore._getValue(at: 3, in: self._$madeBackingData, as: LivingAccommodation?.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_livingAccommodation) {
                            StrataCore._setValue(newValue, at: 3, in: self._$madeBackingData)
                        }
                    }
                }

                private var _livingAccommodation: StrataCore._PersistedPropertyToken

                private static let _$keyPath_livingAccommodation = \Trip.livingAccommodation
                var viewCount = 0
                var summary: String { name }
                static var shared = 0
                init(name: String) { self.name = name }

                private var _$backingData: (any StrataCore.BackingData<Trip>)? = StrataCore._takeInitialValueSink(for: Trip.self)

                private var _$madeBackingData: any StrataCore.BackingData<Trip> {
                    if let backingData = _$backingData {
                        return backingData
                    }
                    let made: any StrataCore.BackingData<Trip> = Trip.createBackingData()
                    _$backingData = made
                    return made
                }

                public var persistentBackingData: any StrataCore.BackingData<Trip> {
                    get {
                        _$madeBackingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                public static var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    [
                        StrataCore.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: StrataCore.Schema.Attribute(.preserveValueOnDeletion)),
                        StrataCore.Schema.PropertyMetadata(name: "startDate", keypath: \Trip.startDate, defaultValue: (.now) as Date, metadata: nil),
                        StrataCore.Schema.PropertyMetadata(name: "bucketList", keypath: \Trip.bucketList, defaultValue: ([]) as [BucketListItem], metadata: StrataCore.Schema.Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)),
                        StrataCore.Schema.PropertyMetadata(name: "livingAccommodation", keypath: \Trip.livingAccommodation, defaultValue: nil, metadata: nil)
                    ]
                }

                public required init(backingData: any StrataCore.BackingData<Trip>) {
                    _name = StrataCore._PersistedPropertyToken()
                    _startDate = StrataCore._PersistedPropertyToken()
                    _bucketList = StrataCore._PersistedPropertyToken()
                    _livingAccommodation = StrataCore._PersistedPropertyToken()
                    self.persistentBackingData = backingData
                }

                public static func _makeModel(backingData: consuming AnyObject) -> Trip {
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

                public nonisolated func _notifyObservers(ofChangeAt keyPath: AnyKeyPath) {
                    _$observationRegistrar._notifyChange(of: self, at: keyPath)
                }

                public static var _schemaAnnotations: StrataCore.Schema.ModelAnnotations {
                    StrataCore.Schema.ModelAnnotations(
                        uniquenessConstraints: StrataCore.Schema.Unique<Trip>([\.name, \.startDate]),
                        indices: StrataCore.Schema.Index<Trip>([\.name], [\.startDate])
                    )
                }
            }
            """#
        }
    }

    @Test func expandsEveryAttributeOption() {
        assertMacro {
            #"""
            @Model
            final class Swatch {
                @Attribute(.unique) var code: String
                @Attribute(.externalStorage) var photo: Data?
                @Attribute(.preserveValueOnDeletion) var name: String
                @Attribute(.ephemeral) var isSelected: Bool = false
                @Attribute(.spotlight) var summary: String
                @Attribute(.allowsCloudEncryption) var secret: String
                @Attribute(.transformable(by: ColorTransformer.self)) var color: Color
                @Attribute(.codable) var palette: [Int]
                @Attribute(originalName: "title") var label: String
                @Attribute(.unique, .spotlight, originalName: "oldCode", hashModifier: "v2") var legacyCode: String
                @Attribute(hashModifier: "v3") var hue: Double = 0.5
                init() {}
            }
            """#
        } expansion: {
            #"""
            final class Swatch {
                var code: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _code)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 11)
                        StrataCore._setValue(initialValue, at: 0, in: _$backingData!)
                        _code = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Swatch._$keyPath_code)
                        return StrataCore._getValue(at: 0, in: self._$madeBackingData, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Swatch._$keyPath_code) {
                            StrataCore._setValue(newValue, at: 0, in: self._$madeBackingData)
                        }
                    }
                }

                private var _code: StrataCore._PersistedPropertyToken

                private static let _$keyPath_code = \Swatch.code
                var photo: Data? {
                    @storageRestrictions(accesses: _$backingData, initializes: _photo)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 11)
                        StrataCore._setValue(initialValue, at: 1, in: _$backingData!)
                        _photo = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Swatch._$keyPath_photo)
                        return StrataCore._getValue(at: 1, in: self._$madeBackingData, as: Data?.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Swatch._$keyPath_photo) {
                            StrataCore._setValue(newValue, at: 1, in: self._$madeBackingData)
                        }
                    }
                }

                private var _photo: StrataCore._PersistedPropertyToken

                private static let _$keyPath_photo = \Swatch.photo
                var name: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _name)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 11)
                        StrataCore._setValue(initialValue, at: 2, in: _$backingData!)
                        _name = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Swatch._$keyPath_name)
                        return StrataCore._getValue(at: 2, in: self._$madeBackingData, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Swatch._$keyPath_name) {
                            StrataCore._setValue(newValue, at: 2, in: self._$madeBackingData)
                        }
                    }
                }

                private var _name: StrataCore._PersistedPropertyToken

                private static let _$keyPath_name = \Swatch.name
                var isSelected: Bool {
                    @storageRestrictions(accesses: _$backingData, initializes: _isSelected)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 11)
                        StrataCore._setValue(initialValue, at: 3, in: _$backingData!)
                        _isSelected = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Swatch._$keyPath_isSelected)
                        return StrataCore._getValue(at: 3, in: self._$madeBackingData, as: Bool.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Swatch._$keyPath_isSelected) {
                            StrataCore._setValue(newValue, at: 3, in: self._$madeBackingData)
                        }
                    }
                }

                private var _isSelected: StrataCore._PersistedPropertyToken

                private static let _$keyPath_isSelected = \Swatch.isSelected
                var summary: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _summary)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 11)
                        StrataCore._setValue(initialValue, at: 4, in: _$backingData!)
                        _summary = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Swatch._$keyPath_summary)
                        return StrataCore._getValue(at: 4, in: self._$madeBackingData, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Swatch._$keyPath_summary) {
                            StrataCore._setValue(newValue, at: 4, in: self._$madeBackingData)
                        }
                    }
                }

                private var _summary: StrataCore._PersistedPropertyToken

                private static let _$keyPath_summary = \Swatch.summary
                var secret: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _secret)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 11)
                        StrataCore._setValue(initialValue, at: 5, in: _$backingData!)
                        _secret = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Swatch._$keyPath_secret)
                        return StrataCore._getValue(at: 5, in: self._$madeBackingData, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Swatch._$keyPath_secret) {
                            StrataCore._setValue(newValue, at: 5, in: self._$madeBackingData)
                        }
                    }
                }

                private var _secret: StrataCore._PersistedPropertyToken

                private static let _$keyPath_secret = \Swatch.secret
                var color: Color {
                    @storageRestrictions(accesses: _$backingData, initializes: _color)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 11)
                        StrataCore._setTransformableValue(initialValue, at: 6, in: _$backingData!)
                        _color = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Swatch._$keyPath_color)
                        return StrataCore._getTransformableValue(at: 6, in: self._$madeBackingData, as: Color.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Swatch._$keyPath_color) {
                            StrataCore._setTransformableValue(newValue, at: 6, in: self._$madeBackingData)
                        }
                    }
                }

                private var _color: StrataCore._PersistedPropertyToken

                private static let _$keyPath_color = \Swatch.color
                var palette: [Int] {
                    @storageRestrictions(accesses: _$backingData, initializes: _palette)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 11)
                        StrataCore._setValue(initialValue, at: 7, in: _$backingData!)
                        _palette = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Swatch._$keyPath_palette)
                        return StrataCore._getValue(at: 7, in: self._$madeBackingData, as: [Int].self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Swatch._$keyPath_palette) {
                            StrataCore._setValue(newValue, at: 7, in: self._$madeBackingData)
                        }
                    }
                }

                private var _palette: StrataCore._PersistedPropertyToken

                private static let _$keyPath_palette = \Swatch.palette
                var label: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _label)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 11)
                        StrataCore._setValue(initialValue, at: 8, in: _$backingData!)
                        _label = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Swatch._$keyPath_label)
                        return StrataCore._getValue(at: 8, in: self._$madeBackingData, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Swatch._$keyPath_label) {
                            StrataCore._setValue(newValue, at: 8, in: self._$madeBackingData)
                        }
                    }
                }

                private var _label: StrataCore._PersistedPropertyToken

                private static let _$keyPath_label = \Swatch.label
                var legacyCode: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _legacyCode)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 11)
                        StrataCore._setValue(initialValue, at: 9, in: _$backingData!)
                        _legacyCode = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Swatch._$keyPath_legacyCode)
                        return StrataCore._getValue(at: 9, in: self._$madeBackingData, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Swatch._$keyPath_legacyCode) {
                            StrataCore._setValue(newValue, at: 9, in: self._$madeBackingData)
                        }
                    }
                }

                private var _legacyCode: StrataCore._PersistedPropertyToken

                private static let _$keyPath_legacyCode = \Swatch.legacyCode
                var hue: Double {
                    @storageRestrictions(accesses: _$backingData, initializes: _hue)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 11)
                        StrataCore._setValue(initialValue, at: 10, in: _$backingData!)
                        _hue = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Swatch._$keyPath_hue)
                        return StrataCore._getValue(at: 10, in: self._$madeBackingData, as: Double.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Swatch._$keyPath_hue) {
                            StrataCore._setValue(newValue, at: 10, in: self._$madeBackingData)
                        }
                    }
                }

                private var _hue: StrataCore._PersistedPropertyToken

                private static let _$keyPath_hue = \Swatch.hue
                init() {}

                private var _$backingData: (any StrataCore.BackingData<Swatch>)? = StrataCore._takeInitialValueSink(for: Swatch.self)

                private var _$madeBackingData: any StrataCore.BackingData<Swatch> {
                    if let backingData = _$backingData {
                        return backingData
                    }
                    let made: any StrataCore.BackingData<Swatch> = Swatch.createBackingData()
                    _$backingData = made
                    return made
                }

                var persistentBackingData: any StrataCore.BackingData<Swatch> {
                    get {
                        _$madeBackingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    [
                        StrataCore.Schema.PropertyMetadata(name: "code", keypath: \Swatch.code, defaultValue: nil, metadata: StrataCore.Schema.Attribute(.unique)),
                        StrataCore.Schema.PropertyMetadata(name: "photo", keypath: \Swatch.photo, defaultValue: nil, metadata: StrataCore.Schema.Attribute(.externalStorage)),
                        StrataCore.Schema.PropertyMetadata(name: "name", keypath: \Swatch.name, defaultValue: nil, metadata: StrataCore.Schema.Attribute(.preserveValueOnDeletion)),
                        StrataCore.Schema.PropertyMetadata(name: "isSelected", keypath: \Swatch.isSelected, defaultValue: (false) as Bool, metadata: StrataCore.Schema.Attribute(.ephemeral)),
                        StrataCore.Schema.PropertyMetadata(name: "summary", keypath: \Swatch.summary, defaultValue: nil, metadata: StrataCore.Schema.Attribute(.spotlight)),
                        StrataCore.Schema.PropertyMetadata(name: "secret", keypath: \Swatch.secret, defaultValue: nil, metadata: StrataCore.Schema.Attribute(.allowsCloudEncryption)),
                        StrataCore.Schema.PropertyMetadata(name: "color", keypath: \Swatch.color, defaultValue: nil, metadata: StrataCore.Schema.Attribute(.transformable(by: ColorTransformer.self))),
                        StrataCore.Schema.PropertyMetadata(name: "palette", keypath: \Swatch.palette, defaultValue: nil, metadata: StrataCore.Schema.Attribute(.codable)),
                        StrataCore.Schema.PropertyMetadata(name: "label", keypath: \Swatch.label, defaultValue: nil, metadata: StrataCore.Schema.Attribute(originalName: "title")),
                        StrataCore.Schema.PropertyMetadata(name: "legacyCode", keypath: \Swatch.legacyCode, defaultValue: nil, metadata: StrataCore.Schema.Attribute(.unique, .spotlight, originalName: "oldCode", hashModifier: "v2")),
                        StrataCore.Schema.PropertyMetadata(name: "hue", keypath: \Swatch.hue, defaultValue: (0.5) as Double, metadata: StrataCore.Schema.Attribute(hashModifier: "v3"))
                    ]
                }

                required init(backingData: any StrataCore.BackingData<Swatch>) {
                    _code = StrataCore._PersistedPropertyToken()
                    _photo = StrataCore._PersistedPropertyToken()
                    _name = StrataCore._PersistedPropertyToken()
                    _isSelected = StrataCore._PersistedPropertyToken()
                    _summary = StrataCore._PersistedPropertyToken()
                    _secret = StrataCore._PersistedPropertyToken()
                    _color = StrataCore._PersistedPropertyToken()
                    _palette = StrataCore._PersistedPropertyToken()
                    _label = StrataCore._PersistedPropertyToken()
                    _legacyCode = StrataCore._PersistedPropertyToken()
                    _hue = StrataCore._PersistedPropertyToken()
                    self.persistentBackingData = backingData
                }

                static func _makeModel(backingData: consuming AnyObject) -> Swatch {
                    StrataCore._makeContextModel(backingData, as: Swatch.self) {
                        Swatch(backingData: $0)
                    }
                }

                private let _$observationRegistrar = Observation.ObservationRegistrar()

                internal nonisolated func access<_M>(keyPath: KeyPath<Swatch, _M>) {
                    _$observationRegistrar.access(self, keyPath: keyPath)
                }

                internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Swatch, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                    try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
                }

                nonisolated func _notifyObservers(ofChangeAt keyPath: AnyKeyPath) {
                    _$observationRegistrar._notifyChange(of: self, at: keyPath)
                }
            }
            """#
        }
    }

    @Test func expandsRelationships() {
        assertMacro {
            #"""
            @Model
            final class Trip {
                @Relationship(deleteRule: .nullify) var accommodation: LivingAccommodation?
                @Relationship(.unique, deleteRule: .deny, originalName: "host") var owner: Person?
                @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip) var bucketList: [BucketListItem] = []
                @Relationship(deleteRule: .cascade, minimumModelCount: 1, maximumModelCount: 10, inverse: \Stop.trip) var stops: [Stop]?
                @Relationship(hashModifier: "v2") var companions: [Person] = []
                var guide: Person?
                init() {}
            }
            """#
        } expansion: {
            #"""
            final class Trip {
                var accommodation: LivingAccommodation? {
                    @storageRestrictions(accesses: _$backingData, initializes: _accommodation)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 6)
                        StrataCore._setValue(initialValue, at: 0, in: _$backingData!)
                        _accommodation = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_accommodation)
                        return StrataCore._getValue(at: 0, in: self._$madeBackingData, as: LivingAccommodation?.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_accommodation) {
                            StrataCore._setValue(newValue, at: 0, in: self._$madeBackingData)
                        }
                    }
                }

                private var _accommodation: StrataCore._PersistedPropertyToken

                private static let _$keyPath_accommodation = \Trip.accommodation
                var owner: Person? {
                    @storageRestrictions(accesses: _$backingData, initializes: _owner)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 6)
                        StrataCore._setValue(initialValue, at: 1, in: _$backingData!)
                        _owner = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_owner)
                        return StrataCore._getValue(at: 1, in: self._$madeBackingData, as: Person?.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_owner) {
                            StrataCore._setValue(newValue, at: 1, in: self._$madeBackingData)
                        }
                    }
                }

                private var _owner: StrataCore._PersistedPropertyToken

                private static let _$keyPath_owner = \Trip.owner
                var bucketList: [BucketListItem] {
                    @storageRestrictions(accesses: _$backingData, initializes: _bucketList)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 6)
                        StrataCore._setValue(initialValue, at: 2, in: _$backingData!)
                        _bucketList = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_bucketList)
                        return StrataCore._getValue(at: 2, in: self._$madeBackingData, as: [BucketListItem].self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_bucketList) {
                            StrataCore._setValue(newValue, at: 2, in: self._$madeBackingData)
                        }
                    }
                }

                private var _bucketList: StrataCore._PersistedPropertyToken

                private static let _$keyPath_bucketList = \Trip.bucketList
                var stops: [Stop]? {
                    @storageRestrictions(accesses: _$backingData, initializes: _stops)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 6)
                        StrataCore._setValue(initialValue, at: 3, in: _$backingData!)
                        _stops = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_stops)
                        return StrataCore._getValue(at: 3, in: self._$madeBackingData, as: [Stop]?.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_stops) {
                            StrataCore._setValue(newValue, at: 3, in: self._$madeBackingData)
                        }
                    }
                }

                private var _stops: StrataCore._PersistedPropertyToken

                private static let _$keyPath_stops = \Trip.stops
                var companions: [Person] {
                    @storageRestrictions(accesses: _$backingData, initializes: _companions)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 6)
                        StrataCore._setValue(initialValue, at: 4, in: _$backingData!)
                        _companions = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_companions)
                        return StrataCore._getValue(at: 4, in: self._$madeBackingData, as: [Person].self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_companions) {
                            StrataCore._setValue(newValue, at: 4, in: self._$madeBackingData)
                        }
                    }
                }

                private var _companions: StrataCore._PersistedPropertyToken

                private static let _$keyPath_companions = \Trip.companions
                var guide: Person? {
                    @storageRestrictions(accesses: _$backingData, initializes: _guide)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 6)
                        StrataCore._setValue(initialValue, at: 5, in: _$backingData!)
                        _guide = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Trip._$keyPath_guide)
                        return StrataCore._getValue(at: 5, in: self._$madeBackingData, as: Person?.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Trip._$keyPath_guide) {
                            StrataCore._setValue(newValue, at: 5, in: self._$madeBackingData)
                        }
                    }
                }

                private var _guide: StrataCore._PersistedPropertyToken

                private static let _$keyPath_guide = \Trip.guide
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
                        StrataCore.Schema.PropertyMetadata(name: "accommodation", keypath: \Trip.accommodation, defaultValue: nil, metadata: StrataCore.Schema.Relationship(deleteRule: .nullify)),
                        StrataCore.Schema.PropertyMetadata(name: "owner", keypath: \Trip.owner, defaultValue: nil, metadata: StrataCore.Schema.Relationship(.unique, deleteRule: .deny, originalName: "host")),
                        StrataCore.Schema.PropertyMetadata(name: "bucketList", keypath: \Trip.bucketList, defaultValue: ([]) as [BucketListItem], metadata: StrataCore.Schema.Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)),
                        StrataCore.Schema.PropertyMetadata(name: "stops", keypath: \Trip.stops, defaultValue: nil, metadata: StrataCore.Schema.Relationship(deleteRule: .cascade, minimumModelCount: 1, maximumModelCount: 10, inverse: \Stop.trip)),
                        StrataCore.Schema.PropertyMetadata(name: "companions", keypath: \Trip.companions, defaultValue: ([]) as [Person], metadata: StrataCore.Schema.Relationship(hashModifier: "v2")),
                        StrataCore.Schema.PropertyMetadata(name: "guide", keypath: \Trip.guide, defaultValue: nil, metadata: nil)
                    ]
                }

                required init(backingData: any StrataCore.BackingData<Trip>) {
                    _accommodation = StrataCore._PersistedPropertyToken()
                    _owner = StrataCore._PersistedPropertyToken()
                    _bucketList = StrataCore._PersistedPropertyToken()
                    _stops = StrataCore._PersistedPropertyToken()
                    _companions = StrataCore._PersistedPropertyToken()
                    _guide = StrataCore._PersistedPropertyToken()
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
            }
            """#
        }
    }

    @Test func expandsIndexKinds() {
        assertMacro {
            #"""
            @Model
            final class Place {
                #Index<Place>(.binary([\.name]), .rtree([\Place.latitude, \Place.longitude]))
                var name: String
                var latitude: Double
                var longitude: Double
                init(name: String, latitude: Double, longitude: Double) {
                    self.name = name
                    self.latitude = latitude
                    self.longitude = longitude
                }
            }
            """#
        } expansion: {
            #"""
            final class Place {
                var name: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _name)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 3)
                        StrataCore._setValue(initialValue, at: 0, in: _$backingData!)
                        _name = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Place._$keyPath_name)
                        return StrataCore._getValue(at: 0, in: self._$madeBackingData, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Place._$keyPath_name) {
                            StrataCore._setValue(newValue, at: 0, in: self._$madeBackingData)
                        }
                    }
                }

                private var _name: StrataCore._PersistedPropertyToken

                private static let _$keyPath_name = \Place.name
                var latitude: Double {
                    @storageRestrictions(accesses: _$backingData, initializes: _latitude)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 3)
                        StrataCore._setValue(initialValue, at: 1, in: _$backingData!)
                        _latitude = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Place._$keyPath_latitude)
                        return StrataCore._getValue(at: 1, in: self._$madeBackingData, as: Double.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Place._$keyPath_latitude) {
                            StrataCore._setValue(newValue, at: 1, in: self._$madeBackingData)
                        }
                    }
                }

                private var _latitude: StrataCore._PersistedPropertyToken

                private static let _$keyPath_latitude = \Place.latitude
                var longitude: Double {
                    @storageRestrictions(accesses: _$backingData, initializes: _longitude)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 3)
                        StrataCore._setValue(initialValue, at: 2, in: _$backingData!)
                        _longitude = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Place._$keyPath_longitude)
                        return StrataCore._getValue(at: 2, in: self._$madeBackingData, as: Double.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Place._$keyPath_longitude) {
                            StrataCore._setValue(newValue, at: 2, in: self._$madeBackingData)
                        }
                    }
                }

                private var _longitude: StrataCore._PersistedPropertyToken

                private static let _$keyPath_longitude = \Place.longitude
                init(name: String, latitude: Double, longitude: Double) {
                    self.name = name
                    self.latitude = latitude
                    self.longitude = longitude
                }

                private var _$backingData: (any StrataCore.BackingData<Place>)? = StrataCore._takeInitialValueSink(for: Place.self)

                private var _$madeBackingData: any StrataCore.BackingData<Place> {
                    if let backingData = _$backingData {
                        return backingData
                    }
                    let made: any StrataCore.BackingData<Place> = Place.createBackingData()
                    _$backingData = made
                    return made
                }

                var persistentBackingData: any StrataCore.BackingData<Place> {
                    get {
                        _$madeBackingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    [
                        StrataCore.Schema.PropertyMetadata(name: "name", keypath: \Place.name, defaultValue: nil, metadata: nil),
                        StrataCore.Schema.PropertyMetadata(name: "latitude", keypath: \Place.latitude, defaultValue: nil, metadata: nil),
                        StrataCore.Schema.PropertyMetadata(name: "longitude", keypath: \Place.longitude, defaultValue: nil, metadata: nil)
                    ]
                }

                required init(backingData: any StrataCore.BackingData<Place>) {
                    _name = StrataCore._PersistedPropertyToken()
                    _latitude = StrataCore._PersistedPropertyToken()
                    _longitude = StrataCore._PersistedPropertyToken()
                    self.persistentBackingData = backingData
                }

                static func _makeModel(backingData: consuming AnyObject) -> Place {
                    StrataCore._makeContextModel(backingData, as: Place.self) {
                        Place(backingData: $0)
                    }
                }

                private let _$observationRegistrar = Observation.ObservationRegistrar()

                internal nonisolated func access<_M>(keyPath: KeyPath<Place, _M>) {
                    _$observationRegistrar.access(self, keyPath: keyPath)
                }

                internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Place, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                    try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
                }

                nonisolated func _notifyObservers(ofChangeAt keyPath: AnyKeyPath) {
                    _$observationRegistrar._notifyChange(of: self, at: keyPath)
                }

                static var _schemaAnnotations: StrataCore.Schema.ModelAnnotations {
                    StrataCore.Schema.ModelAnnotations(
                        indices: StrataCore.Schema.Index<Place>(.binary([\.name]), .rtree([\Place.latitude, \Place.longitude]))
                    )
                }
            }
            """#
        }
    }

    @Test func expandsUniqueWithoutIndex() {
        assertMacro {
            #"""
            @Model
            final class Person {
                #Unique<Person>([\.email], [\.firstName, \.lastName])
                var email: String
                var firstName: String
                var lastName: String
                init() {}
            }
            """#
        } expansion: {
            #"""
            final class Person {
                var email: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _email)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 3)
                        StrataCore._setValue(initialValue, at: 0, in: _$backingData!)
                        _email = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Person._$keyPath_email)
                        return StrataCore._getValue(at: 0, in: self._$madeBackingData, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Person._$keyPath_email) {
                            StrataCore._setValue(newValue, at: 0, in: self._$madeBackingData)
                        }
                    }
                }

                private var _email: StrataCore._PersistedPropertyToken

                private static let _$keyPath_email = \Person.email
                var firstName: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _firstName)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 3)
                        StrataCore._setValue(initialValue, at: 1, in: _$backingData!)
                        _firstName = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Person._$keyPath_firstName)
                        return StrataCore._getValue(at: 1, in: self._$madeBackingData, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Person._$keyPath_firstName) {
                            StrataCore._setValue(newValue, at: 1, in: self._$madeBackingData)
                        }
                    }
                }

                private var _firstName: StrataCore._PersistedPropertyToken

                private static let _$keyPath_firstName = \Person.firstName
                var lastName: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _lastName)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 3)
                        StrataCore._setValue(initialValue, at: 2, in: _$backingData!)
                        _lastName = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Person._$keyPath_lastName)
                        return StrataCore._getValue(at: 2, in: self._$madeBackingData, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Person._$keyPath_lastName) {
                            StrataCore._setValue(newValue, at: 2, in: self._$madeBackingData)
                        }
                    }
                }

                private var _lastName: StrataCore._PersistedPropertyToken

                private static let _$keyPath_lastName = \Person.lastName
                init() {}

                private var _$backingData: (any StrataCore.BackingData<Person>)? = StrataCore._takeInitialValueSink(for: Person.self)

                private var _$madeBackingData: any StrataCore.BackingData<Person> {
                    if let backingData = _$backingData {
                        return backingData
                    }
                    let made: any StrataCore.BackingData<Person> = Person.createBackingData()
                    _$backingData = made
                    return made
                }

                var persistentBackingData: any StrataCore.BackingData<Person> {
                    get {
                        _$madeBackingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    [
                        StrataCore.Schema.PropertyMetadata(name: "email", keypath: \Person.email, defaultValue: nil, metadata: nil),
                        StrataCore.Schema.PropertyMetadata(name: "firstName", keypath: \Person.firstName, defaultValue: nil, metadata: nil),
                        StrataCore.Schema.PropertyMetadata(name: "lastName", keypath: \Person.lastName, defaultValue: nil, metadata: nil)
                    ]
                }

                required init(backingData: any StrataCore.BackingData<Person>) {
                    _email = StrataCore._PersistedPropertyToken()
                    _firstName = StrataCore._PersistedPropertyToken()
                    _lastName = StrataCore._PersistedPropertyToken()
                    self.persistentBackingData = backingData
                }

                static func _makeModel(backingData: consuming AnyObject) -> Person {
                    StrataCore._makeContextModel(backingData, as: Person.self) {
                        Person(backingData: $0)
                    }
                }

                private let _$observationRegistrar = Observation.ObservationRegistrar()

                internal nonisolated func access<_M>(keyPath: KeyPath<Person, _M>) {
                    _$observationRegistrar.access(self, keyPath: keyPath)
                }

                internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Person, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                    try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
                }

                nonisolated func _notifyObservers(ofChangeAt keyPath: AnyKeyPath) {
                    _$observationRegistrar._notifyChange(of: self, at: keyPath)
                }

                static var _schemaAnnotations: StrataCore.Schema.ModelAnnotations {
                    StrataCore.Schema.ModelAnnotations(
                        uniquenessConstraints: StrataCore.Schema.Unique<Person>([\.email], [\.firstName, \.lastName])
                    )
                }
            }
            """#
        }
    }

    /// A subclass of a model keeps its superclass's backing data: its slots follow the
    /// inherited ones, its initial values wait in `_$pendingValues`, and it overrides the
    /// type members with key paths rooted at itself.
    @Test func expandsSubclassOfAModel() {
        assertMacro {
            #"""
            @Model
            class PushButton: Component, Identifiable {
                var title: String
                var taps = 0
                init(code: String, title: String) {
                    self.title = title
                    super.init(code: code)
                }
            }
            """#
        } expansion: {
            #"""
            class PushButton: Component, Identifiable {
                var title: String {
                    @storageRestrictions(accesses: _$pendingValues, initializes: _title)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$pendingValues)
                        StrataCore._setValue(initialValue, at: PushButton._$slotBase + 0, in: _$pendingValues!)
                        _title = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: PushButton._$keyPath_title)
                        return StrataCore._getValue(at: PushButton._$slotBase + 0, in: self.persistentBackingData, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: PushButton._$keyPath_title) {
                            StrataCore._setValue(newValue, at: PushButton._$slotBase + 0, in: self.persistentBackingData)
                        }
                    }
                }

                private var _title: StrataCore._PersistedPropertyToken

                private static let _$keyPath_title = \PushButton.title
                var taps {
                    @storageRestrictions(accesses: _$pendingValues, initializes: _taps)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$pendingValues)
                        StrataCore._setValue(initialValue, at: PushButton._$slotBase + 1, in: _$pendingValues!)
                        _taps = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: PushButton._$keyPath_taps)
                        return StrataCore._getValue(at: PushButton._$slotBase + 1, in: self.persistentBackingData)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: PushButton._$keyPath_taps) {
                            StrataCore._setValue(newValue, at: PushButton._$slotBase + 1, in: self.persistentBackingData)
                        }
                    }
                }

                private var _taps: StrataCore._PersistedPropertyToken

                private static let _$keyPath_taps = \PushButton.taps
                init(code: String, title: String) {
                    self.title = title
                    super.init(code: code)
                }

                private static let _$slotBase = Component.schemaMetadata.count

                private var _$pendingValues: (any StrataCore.BackingData<Component.Root>)? = StrataCore._takeInitialValueSink(for: Component.Root.self)

                override var persistentBackingData: any StrataCore.BackingData<Component.Root> {
                    get {
                        guard _$pendingValues != nil else {
                            return super.persistentBackingData
                        }
                        return StrataCore._adoptPendingValues(&_$pendingValues, into: super.persistentBackingData)
                    }
                    set {
                        _$pendingValues = nil
                        super.persistentBackingData = newValue
                    }
                }

                required init(backingData: any StrataCore.BackingData<Component.Root>) {
                    _title = StrataCore._PersistedPropertyToken()
                    _taps = StrataCore._PersistedPropertyToken()
                    StrataCore._handOnInitialValueSink(_$pendingValues)
                    super.init(backingData: backingData)
                }

                static func _$schemaMetadata<_M: PushButton>(rootedAt _: _M.Type) -> [StrataCore.Schema.PropertyMetadata] {
                    Component._$schemaMetadata(rootedAt: _M.self) + [
                        StrataCore.Schema.PropertyMetadata(name: "title", keypath: \_M.title, defaultValue: nil, metadata: nil),
                        StrataCore.Schema.PropertyMetadata(name: "taps", keypath: \_M.taps, defaultValue: (0), metadata: nil)
                    ]
                }

                override class var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    _$schemaMetadata(rootedAt: PushButton.self)
                }
            }
            """#
        }
    }

    /// A subclass without an initializer of its own inherits its superclass's, `init(backingData:)` included.
    @Test func expandsSubclassWithoutInitializer() {
        assertMacro {
            #"""
            @Model
            final class Switch: Component {
                #Unique<Switch>([\.isOn, \.code])
                var isOn = false
            }
            """#
        } diagnostics: {
            #"""
            @Model
            final class Switch: Component {
                #Unique<Switch>([\.isOn, \.code])
                                         ┬─────
                                         ╰─ 🛑 '#Unique' key path '\.code' must name a persisted stored property of 'Switch', but 'Switch' has no property named 'code'; use a stored 'var' that is not '@Transient'
                var isOn = false
            }
            """#
        }
    }

    /// A first inherited type named like a protocol is not taken for a model superclass.
    @Test func protocolsAreNotSuperclasses() {
        assertMacro {
            #"""
            @Model
            final class Trip: Codable, Identifiable {
                var name: String
                init(name: String) { self.name = name }
            }
            """#
        } expansion: {
            #"""
            final class Trip: Codable, Identifiable {
                var name: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _name)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 1)
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
                init(name: String) { self.name = name }

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
                        StrataCore.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: nil)
                    ]
                }

                required init(backingData: any StrataCore.BackingData<Trip>) {
                    _name = StrataCore._PersistedPropertyToken()
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
            }
            """#
        }
    }

    @Test func expandsOpenNonFinalClass() {
        assertMacro {
            #"""
            @Model
            open class Vehicle {
                var wheels: Int = 4
                public init() {}
            }
            """#
        } expansion: {
            #"""
            open class Vehicle {
                var wheels: Int {
                    @storageRestrictions(accesses: _$backingData, initializes: _wheels)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 1)
                        StrataCore._setValue(initialValue, at: 0, in: _$backingData!)
                        _wheels = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Vehicle._$keyPath_wheels)
                        return StrataCore._getValue(at: 0, in: self._$madeBackingData, as: Int.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Vehicle._$keyPath_wheels) {
                            StrataCore._setValue(newValue, at: 0, in: self._$madeBackingData)
                        }
                    }
                }

                private var _wheels: StrataCore._PersistedPropertyToken

                private static let _$keyPath_wheels = \Vehicle.wheels
                public init() {}

                private var _$backingData: (any StrataCore.BackingData<Vehicle>)? = StrataCore._takeInitialValueSink(for: Vehicle.self)

                private var _$madeBackingData: any StrataCore.BackingData<Vehicle> {
                    if let backingData = _$backingData {
                        return backingData
                    }
                    let made: any StrataCore.BackingData<Vehicle> = Vehicle.createBackingData()
                    _$backingData = made
                    return made
                }

                open var persistentBackingData: any StrataCore.BackingData<Vehicle> {
                    get {
                        _$madeBackingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                public static func _$schemaMetadata<_M: Vehicle>(rootedAt _: _M.Type) -> [StrataCore.Schema.PropertyMetadata] {
                    [
                        StrataCore.Schema.PropertyMetadata(name: "wheels", keypath: \_M.wheels, defaultValue: (4) as Int, metadata: nil)
                    ]
                }

                open class var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    _$schemaMetadata(rootedAt: Vehicle.self)
                }

                public required init(backingData: any StrataCore.BackingData<Vehicle>) {
                    _wheels = StrataCore._PersistedPropertyToken()
                    self.persistentBackingData = backingData
                }

                public let _$observationRegistrar = Observation.ObservationRegistrar()

                internal nonisolated func access<_M>(keyPath: KeyPath<Vehicle, _M>) {
                    _$observationRegistrar.access(self, keyPath: keyPath)
                }

                internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Vehicle, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                    try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
                }

                public nonisolated func _notifyObservers(ofChangeAt keyPath: AnyKeyPath) {
                    _$observationRegistrar._notifyChange(of: self, at: keyPath)
                }

                open class var _schemaAnnotations: StrataCore.Schema.ModelAnnotations {
                    StrataCore.Schema.ModelAnnotations()
                }

                open class var _hasEarlyInitialValues: Bool {
                    false
                }
            }
            """#
        }
    }

    @Test func expandsNonFinalInternalClass() {
        assertMacro {
            #"""
            @Model
            class Vehicle {
                var wheels: Int
                init(wheels: Int) { self.wheels = wheels }
            }
            """#
        } expansion: {
            #"""
            class Vehicle {
                var wheels: Int {
                    @storageRestrictions(accesses: _$backingData, initializes: _wheels)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 1)
                        StrataCore._setValue(initialValue, at: 0, in: _$backingData!)
                        _wheels = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Vehicle._$keyPath_wheels)
                        return StrataCore._getValue(at: 0, in: self._$madeBackingData, as: Int.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Vehicle._$keyPath_wheels) {
                            StrataCore._setValue(newValue, at: 0, in: self._$madeBackingData)
                        }
                    }
                }

                private var _wheels: StrataCore._PersistedPropertyToken

                private static let _$keyPath_wheels = \Vehicle.wheels
                init(wheels: Int) { self.wheels = wheels }

                private var _$backingData: (any StrataCore.BackingData<Vehicle>)? = StrataCore._takeInitialValueSink(for: Vehicle.self)

                private var _$madeBackingData: any StrataCore.BackingData<Vehicle> {
                    if let backingData = _$backingData {
                        return backingData
                    }
                    let made: any StrataCore.BackingData<Vehicle> = Vehicle.createBackingData()
                    _$backingData = made
                    return made
                }

                var persistentBackingData: any StrataCore.BackingData<Vehicle> {
                    get {
                        _$madeBackingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static func _$schemaMetadata<_M: Vehicle>(rootedAt _: _M.Type) -> [StrataCore.Schema.PropertyMetadata] {
                    [
                        StrataCore.Schema.PropertyMetadata(name: "wheels", keypath: \_M.wheels, defaultValue: nil, metadata: nil)
                    ]
                }

                class var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    _$schemaMetadata(rootedAt: Vehicle.self)
                }

                required init(backingData: any StrataCore.BackingData<Vehicle>) {
                    _wheels = StrataCore._PersistedPropertyToken()
                    self.persistentBackingData = backingData
                }

                internal let _$observationRegistrar = Observation.ObservationRegistrar()

                internal nonisolated func access<_M>(keyPath: KeyPath<Vehicle, _M>) {
                    _$observationRegistrar.access(self, keyPath: keyPath)
                }

                internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Vehicle, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                    try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
                }

                nonisolated func _notifyObservers(ofChangeAt keyPath: AnyKeyPath) {
                    _$observationRegistrar._notifyChange(of: self, at: keyPath)
                }

                class var _schemaAnnotations: StrataCore.Schema.ModelAnnotations {
                    StrataCore.Schema.ModelAnnotations()
                }

                class var _hasEarlyInitialValues: Bool {
                    false
                }
            }
            """#
        }
    }

    @Test func expandsModelNestedInEnum() {
        assertMacro {
            #"""
            enum SchemaV1 {
                @Model
                final class Trip {
                    #Unique<SchemaV1.Trip>([\.name])
                    var name: String
                    init(name: String) { self.name = name }
                }
            }
            """#
        } expansion: {
            #"""
            enum SchemaV1 {
                final class Trip {
                    var name: String {
                        @storageRestrictions(accesses: _$backingData, initializes: _name)
                        init(initialValue) {
                            StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 1)
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
                    init(name: String) { self.name = name }

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
                            StrataCore.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: nil)
                        ]
                    }

                    required init(backingData: any StrataCore.BackingData<Trip>) {
                        _name = StrataCore._PersistedPropertyToken()
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
                            uniquenessConstraints: StrataCore.Schema.Unique<SchemaV1.Trip>([\.name])
                        )
                    }
                }
            }
            """#
        }
    }

    @Test func expandsEmptyModel() {
        assertMacro {
            #"""
            @Model
            final class Marker {
                init() {}
            }
            """#
        } expansion: {
            """
            final class Marker {
                init() {}

                private var _$backingData: (any StrataCore.BackingData<Marker>)? = StrataCore._takeInitialValueSink(for: Marker.self)

                private var _$madeBackingData: any StrataCore.BackingData<Marker> {
                    if let backingData = _$backingData {
                        return backingData
                    }
                    let made: any StrataCore.BackingData<Marker> = Marker.createBackingData()
                    _$backingData = made
                    return made
                }

                var persistentBackingData: any StrataCore.BackingData<Marker> {
                    get {
                        _$madeBackingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    []
                }

                required init(backingData: any StrataCore.BackingData<Marker>) {
                    self.persistentBackingData = backingData
                }

                static func _makeModel(backingData: consuming AnyObject) -> Marker {
                    StrataCore._makeContextModel(backingData, as: Marker.self) {
                        Marker(backingData: $0)
                    }
                }

                private let _$observationRegistrar = Observation.ObservationRegistrar()

                internal nonisolated func access<_M>(keyPath: KeyPath<Marker, _M>) {
                    _$observationRegistrar.access(self, keyPath: keyPath)
                }

                internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Marker, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                    try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
                }

                nonisolated func _notifyObservers(ofChangeAt keyPath: AnyKeyPath) {
                    _$observationRegistrar._notifyChange(of: self, at: keyPath)
                }
            }
            """
        }
    }

    @Test func rejectsStruct() {
        assertMacro {
            #"""
            @Model
            struct Trip {
                var name: String
            }
            """#
        } diagnostics: {
            """
            @Model
            ┬─────
            ╰─ 🛑 '@Model' can only be applied to a class; declare this struct as a class
               ✏️ Replace 'struct' with 'class'
            struct Trip {
                var name: String
            }
            """
        } fixes: {
            """
            @Model
            class Trip {
                var name: String
            }
            """
        } expansion: {
            #"""
            class Trip {
                var name: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _name)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 1)
                        StrataCore._setValue(initialValue, at: 0, in: _$backingData!)
                        _name = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \.name)
                        return StrataCore._getValue(at: 0, in: self._$madeBackingData, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \.name) {
                            StrataCore._setValue(newValue, at: 0, in: self._$madeBackingData)
                        }
                    }
                }

                private var _name: StrataCore._PersistedPropertyToken

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

                static func _$schemaMetadata<_M: Trip>(rootedAt _: _M.Type) -> [StrataCore.Schema.PropertyMetadata] {
                    [
                        StrataCore.Schema.PropertyMetadata(name: "name", keypath: \_M.name, defaultValue: nil, metadata: nil)
                    ]
                }

                class var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    _$schemaMetadata(rootedAt: Trip.self)
                }

                required init(backingData: any StrataCore.BackingData<Trip>) {
                    _name = StrataCore._PersistedPropertyToken()
                    self.persistentBackingData = backingData
                }

                internal let _$observationRegistrar = Observation.ObservationRegistrar()

                internal nonisolated func access<_M>(keyPath: KeyPath<Trip, _M>) {
                    _$observationRegistrar.access(self, keyPath: keyPath)
                }

                internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Trip, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                    try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
                }

                nonisolated func _notifyObservers(ofChangeAt keyPath: AnyKeyPath) {
                    _$observationRegistrar._notifyChange(of: self, at: keyPath)
                }

                class var _schemaAnnotations: StrataCore.Schema.ModelAnnotations {
                    StrataCore.Schema.ModelAnnotations()
                }

                class var _hasEarlyInitialValues: Bool {
                    false
                }
            }
            """#
        }
    }

    @Test func rejectsEnum() {
        assertMacro {
            #"""
            @Model
            enum Trip {
                case short
            }
            """#
        } diagnostics: {
            """
            @Model
            ┬─────
            ╰─ 🛑 '@Model' can only be applied to a class; declare this enum as a class
            enum Trip {
                case short
            }
            """
        }
    }

    @Test func rejectsActor() {
        assertMacro {
            #"""
            @Model
            actor Trip {
                var name: String = ""
            }
            """#
        } diagnostics: {
            """
            @Model
            ┬─────
            ╰─ 🛑 '@Model' can only be applied to a class; declare this actor as a class
            actor Trip {
                var name: String = ""
            }
            """
        }
    }

    @Test func rejectsProtocol() {
        assertMacro {
            #"""
            @Model
            protocol Trip {
                var name: String { get }
            }
            """#
        } diagnostics: {
            """
            @Model
            ┬─────
            ╰─ 🛑 '@Model' can only be applied to a class; declare this protocol as a class
            protocol Trip {
                var name: String { get }
            }
            """
        }
    }

    @Test func rejectsExtension() {
        assertMacro {
            #"""
            @Model
            extension Trip {
            }
            """#
        } diagnostics: {
            """
            @Model
            ┬─────
            ╰─ 🛑 '@Model' can only be applied to a class; apply it to the class declaration, not to an extension
            extension Trip {
            }
            """
        }
    }

    @Test func infersTypesFromInitialValues() {
        assertMacro {
            #"""
            @Model
            final class Counter {
                var count = 0
                var title = ""
                var created = Date.now
                var tags = Set<String>()
                @Relationship(deleteRule: .cascade) var categories = [Category]()
                init() {}
            }
            """#
        } expansion: {
            #"""
            final class Counter {
                var count {
                    @storageRestrictions(accesses: _$backingData, initializes: _count)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 5)
                        StrataCore._setValue(initialValue, at: 0, in: _$backingData!)
                        _count = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Counter._$keyPath_count)
                        return StrataCore._getValue(at: 0, in: self._$madeBackingData)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Counter._$keyPath_count) {
                            StrataCore._setValue(newValue, at: 0, in: self._$madeBackingData)
                        }
                    }
                }

                private var _count: StrataCore._PersistedPropertyToken

                private static let _$keyPath_count = \Counter.count
                var title {
                    @storageRestrictions(accesses: _$backingData, initializes: _title)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 5)
                        StrataCore._setValue(initialValue, at: 1, in: _$backingData!)
                        _title = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Counter._$keyPath_title)
                        return StrataCore._getValue(at: 1, in: self._$madeBackingData)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Counter._$keyPath_title) {
                            StrataCore._setValue(newValue, at: 1, in: self._$madeBackingData)
                        }
                    }
                }

                private var _title: StrataCore._PersistedPropertyToken

                private static let _$keyPath_title = \Counter.title
                var created {
                    @storageRestrictions(accesses: _$backingData, initializes: _created)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 5)
                        StrataCore._setValue(initialValue, at: 2, in: _$backingData!)
                        _created = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Counter._$keyPath_created)
                        return StrataCore._getValue(at: 2, in: self._$madeBackingData)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Counter._$keyPath_created) {
                            StrataCore._setValue(newValue, at: 2, in: self._$madeBackingData)
                        }
                    }
                }

                private var _created: StrataCore._PersistedPropertyToken

                private static let _$keyPath_created = \Counter.created
                var tags {
                    @storageRestrictions(accesses: _$backingData, initializes: _tags)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 5)
                        StrataCore._setValue(initialValue, at: 3, in: _$backingData!)
                        _tags = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Counter._$keyPath_tags)
                        return StrataCore._getValue(at: 3, in: self._$madeBackingData)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Counter._$keyPath_tags) {
                            StrataCore._setValue(newValue, at: 3, in: self._$madeBackingData)
                        }
                    }
                }

                private var _tags: StrataCore._PersistedPropertyToken

                private static let _$keyPath_tags = \Counter.tags
                var categories {
                    @storageRestrictions(accesses: _$backingData, initializes: _categories)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 5)
                        StrataCore._setValue(initialValue, at: 4, in: _$backingData!)
                        _categories = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Counter._$keyPath_categories)
                        return StrataCore._getValue(at: 4, in: self._$madeBackingData)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Counter._$keyPath_categories) {
                            StrataCore._setValue(newValue, at: 4, in: self._$madeBackingData)
                        }
                    }
                }

                private var _categories: StrataCore._PersistedPropertyToken

                private static let _$keyPath_categories = \Counter.categories
                init() {}

                private var _$backingData: (any StrataCore.BackingData<Counter>)? = StrataCore._takeInitialValueSink(for: Counter.self)

                private var _$madeBackingData: any StrataCore.BackingData<Counter> {
                    if let backingData = _$backingData {
                        return backingData
                    }
                    let made: any StrataCore.BackingData<Counter> = Counter.createBackingData()
                    _$backingData = made
                    return made
                }

                var persistentBackingData: any StrataCore.BackingData<Counter> {
                    get {
                        _$madeBackingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    [
                        StrataCore.Schema.PropertyMetadata(name: "count", keypath: \Counter.count, defaultValue: (0), metadata: nil),
                        StrataCore.Schema.PropertyMetadata(name: "title", keypath: \Counter.title, defaultValue: (""), metadata: nil),
                        StrataCore.Schema.PropertyMetadata(name: "created", keypath: \Counter.created, defaultValue: (Date.now), metadata: nil),
                        StrataCore.Schema.PropertyMetadata(name: "tags", keypath: \Counter.tags, defaultValue: (Set<String>()), metadata: nil),
                        StrataCore.Schema.PropertyMetadata(name: "categories", keypath: \Counter.categories, defaultValue: ([Category]()), metadata: StrataCore.Schema.Relationship(deleteRule: .cascade))
                    ]
                }

                required init(backingData: any StrataCore.BackingData<Counter>) {
                    _count = StrataCore._PersistedPropertyToken()
                    _title = StrataCore._PersistedPropertyToken()
                    _created = StrataCore._PersistedPropertyToken()
                    _tags = StrataCore._PersistedPropertyToken()
                    _categories = StrataCore._PersistedPropertyToken()
                    self.persistentBackingData = backingData
                }

                static func _makeModel(backingData: consuming AnyObject) -> Counter {
                    StrataCore._makeContextModel(backingData, as: Counter.self) {
                        Counter(backingData: $0)
                    }
                }

                private let _$observationRegistrar = Observation.ObservationRegistrar()

                internal nonisolated func access<_M>(keyPath: KeyPath<Counter, _M>) {
                    _$observationRegistrar.access(self, keyPath: keyPath)
                }

                internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Counter, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                    try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
                }

                nonisolated func _notifyObservers(ofChangeAt keyPath: AnyKeyPath) {
                    _$observationRegistrar._notifyChange(of: self, at: keyPath)
                }
            }
            """#
        }
    }

    @Test func rejectsPropertyWithNeitherTypeNorInitialValue() {
        assertMacro {
            #"""
            @Model
            final class Trip {
                var startDate
                init() {}
            }
            """#
        } diagnostics: {
            """
            @Model
            final class Trip {
                var startDate
                    ┬────────
                    ╰─ 🛑 persisted property 'startDate' has no type: annotate it, as in 'var startDate: Type', or give it an initial value
                init() {}
            }
            """
        }
    }

    @Test func addsRequestedConformancesWithQualifiedName() {
        assertMacro(
            [
                "Model": MacroSpec(type: ModelMacro.self, conformances: ["PersistentModel", "Observable"]),
                "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
            ]
        ) {
            #"""
            enum SchemaV1 {
                @Model
                final class Trip {
                    var name: String
                    init(name: String) { self.name = name }
                }
            }
            """#
        } expansion: {
            #"""
            enum SchemaV1 {
                final class Trip {
                    var name: String {
                        @storageRestrictions(accesses: _$backingData, initializes: _name)
                        init(initialValue) {
                            StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 1)
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
                    init(name: String) { self.name = name }

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
                            StrataCore.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: nil)
                        ]
                    }

                    required init(backingData: any StrataCore.BackingData<Trip>) {
                        _name = StrataCore._PersistedPropertyToken()
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
                }
            }

            extension SchemaV1.Trip: StrataCore.PersistentModel {
            }

            extension SchemaV1.Trip: Observation.Observable {
            }
            """#
        }
    }

    /// A `@Transient` initial value that Swift runs before the backing-data property's (the
    /// first persisted property with an initial value comes after it) marks the class: a
    /// context then materializes it without an initial-value sink.
    @Test func marksATransientInitialValueBeforeThePersistedOnes() {
        assertMacro {
            #"""
            @Model
            final class Knot {
                var name: String
                @Transient var helper = Knot.makeHelper()
                var label: String = "knot"
                init() {}
            }
            """#
        } expansion: {
            #"""
            final class Knot {
                var name: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _name)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 2)
                        StrataCore._setValue(initialValue, at: 0, in: _$backingData!)
                        _name = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Knot._$keyPath_name)
                        return StrataCore._getValue(at: 0, in: self._$madeBackingData, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Knot._$keyPath_name) {
                            StrataCore._setValue(newValue, at: 0, in: self._$madeBackingData)
                        }
                    }
                }

                private var _name: StrataCore._PersistedPropertyToken

                private static let _$keyPath_name = \Knot.name
                var helper = Knot.makeHelper()
                var label: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _label)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 2)
                        StrataCore._setValue(initialValue, at: 1, in: _$backingData!)
                        _label = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Knot._$keyPath_label)
                        return StrataCore._getValue(at: 1, in: self._$madeBackingData, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Knot._$keyPath_label) {
                            StrataCore._setValue(newValue, at: 1, in: self._$madeBackingData)
                        }
                    }
                }

                private var _label: StrataCore._PersistedPropertyToken

                private static let _$keyPath_label = \Knot.label
                init() {}

                private var _$backingData: (any StrataCore.BackingData<Knot>)? = StrataCore._takeInitialValueSink(for: Knot.self)

                private var _$madeBackingData: any StrataCore.BackingData<Knot> {
                    if let backingData = _$backingData {
                        return backingData
                    }
                    let made: any StrataCore.BackingData<Knot> = Knot.createBackingData()
                    _$backingData = made
                    return made
                }

                var persistentBackingData: any StrataCore.BackingData<Knot> {
                    get {
                        _$madeBackingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    [
                        StrataCore.Schema.PropertyMetadata(name: "name", keypath: \Knot.name, defaultValue: nil, metadata: nil),
                        StrataCore.Schema.PropertyMetadata(name: "label", keypath: \Knot.label, defaultValue: ("knot") as String, metadata: nil)
                    ]
                }

                required init(backingData: any StrataCore.BackingData<Knot>) {
                    _name = StrataCore._PersistedPropertyToken()
                    _label = StrataCore._PersistedPropertyToken()
                    self.persistentBackingData = backingData
                }

                static func _makeModel(backingData: consuming AnyObject) -> Knot {
                    StrataCore._makeContextModel(backingData, as: Knot.self) {
                        Knot(backingData: $0)
                    }
                }

                private let _$observationRegistrar = Observation.ObservationRegistrar()

                internal nonisolated func access<_M>(keyPath: KeyPath<Knot, _M>) {
                    _$observationRegistrar.access(self, keyPath: keyPath)
                }

                internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Knot, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                    try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
                }

                nonisolated func _notifyObservers(ofChangeAt keyPath: AnyKeyPath) {
                    _$observationRegistrar._notifyChange(of: self, at: keyPath)
                }

                static var _hasEarlyInitialValues: Bool {
                    true
                }
            }
            """#
        }
    }

    /// A subclass's `@Transient` initial value before its first persisted one runs before the
    /// subclass's pending values take the sink: marked, overriding its superclass.
    @Test func marksASubclassWhoseTransientInitialValueComesFirst() {
        assertMacro {
            #"""
            @Model
            final class Switch: Control {
                @Transient var spare = Control.makeSpare()
                var isOn = false
            }
            """#
        } expansion: {
            #"""
            final class Switch: Control {
                var spare = Control.makeSpare()
                var isOn {
                    @storageRestrictions(accesses: _$pendingValues, initializes: _isOn)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$pendingValues)
                        StrataCore._setValue(initialValue, at: Switch._$slotBase + 0, in: _$pendingValues!)
                        _isOn = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Switch._$keyPath_isOn)
                        return StrataCore._getValue(at: Switch._$slotBase + 0, in: self.persistentBackingData)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Switch._$keyPath_isOn) {
                            StrataCore._setValue(newValue, at: Switch._$slotBase + 0, in: self.persistentBackingData)
                        }
                    }
                }

                private var _isOn: StrataCore._PersistedPropertyToken

                private static let _$keyPath_isOn = \Switch.isOn

                private static let _$slotBase = Control.schemaMetadata.count

                private var _$pendingValues: (any StrataCore.BackingData<Control.Root>)? = StrataCore._takeInitialValueSink(for: Control.Root.self)

                override var persistentBackingData: any StrataCore.BackingData<Control.Root> {
                    get {
                        guard _$pendingValues != nil else {
                            return super.persistentBackingData
                        }
                        return StrataCore._adoptPendingValues(&_$pendingValues, into: super.persistentBackingData)
                    }
                    set {
                        _$pendingValues = nil
                        super.persistentBackingData = newValue
                    }
                }

                static func _$schemaMetadata<_M: Switch>(rootedAt _: _M.Type) -> [StrataCore.Schema.PropertyMetadata] {
                    Control._$schemaMetadata(rootedAt: _M.self) + [
                        StrataCore.Schema.PropertyMetadata(name: "isOn", keypath: \_M.isOn, defaultValue: (false), metadata: nil)
                    ]
                }

                override class var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    _$schemaMetadata(rootedAt: Switch.self)
                }

                override class var _hasEarlyInitialValues: Bool {
                    true
                }
            }
            """#
        }
    }

    /// A `@Transient` initial value after the first persisted property with an initial value
    /// (here an optional's implicit `nil`) runs after the backing-data property's: no mark.
    @Test func marksNoInitialValueAfterThePersistedOnes() {
        assertMacro {
            #"""
            @Model
            final class Knot {
                var note: String?
                @Transient var helper = Knot.makeHelper()
                init() {}
            }
            """#
        } expansion: {
            #"""
            final class Knot {
                var note: String? {
                    @storageRestrictions(accesses: _$backingData, initializes: _note)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 1)
                        StrataCore._setValue(initialValue, at: 0, in: _$backingData!)
                        _note = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Knot._$keyPath_note)
                        return StrataCore._getValue(at: 0, in: self._$madeBackingData, as: String?.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Knot._$keyPath_note) {
                            StrataCore._setValue(newValue, at: 0, in: self._$madeBackingData)
                        }
                    }
                }

                private var _note: StrataCore._PersistedPropertyToken

                private static let _$keyPath_note = \Knot.note
                var helper = Knot.makeHelper()
                init() {}

                private var _$backingData: (any StrataCore.BackingData<Knot>)? = StrataCore._takeInitialValueSink(for: Knot.self)

                private var _$madeBackingData: any StrataCore.BackingData<Knot> {
                    if let backingData = _$backingData {
                        return backingData
                    }
                    let made: any StrataCore.BackingData<Knot> = Knot.createBackingData()
                    _$backingData = made
                    return made
                }

                var persistentBackingData: any StrataCore.BackingData<Knot> {
                    get {
                        _$madeBackingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    [
                        StrataCore.Schema.PropertyMetadata(name: "note", keypath: \Knot.note, defaultValue: nil, metadata: nil)
                    ]
                }

                required init(backingData: any StrataCore.BackingData<Knot>) {
                    _note = StrataCore._PersistedPropertyToken()
                    self.persistentBackingData = backingData
                }

                static func _makeModel(backingData: consuming AnyObject) -> Knot {
                    StrataCore._makeContextModel(backingData, as: Knot.self) {
                        Knot(backingData: $0)
                    }
                }

                private let _$observationRegistrar = Observation.ObservationRegistrar()

                internal nonisolated func access<_M>(keyPath: KeyPath<Knot, _M>) {
                    _$observationRegistrar.access(self, keyPath: keyPath)
                }

                internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Knot, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                    try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
                }

                nonisolated func _notifyObservers(ofChangeAt keyPath: AnyKeyPath) {
                    _$observationRegistrar._notifyChange(of: self, at: keyPath)
                }
            }
            """#
        }
    }

    @Test func addsOnlyTheConformancesTheCompilerRequests() {
        assertMacro(["Model": MacroSpec(type: ModelMacro.self, conformances: ["StrataCore.PersistentModel"])]) {
            #"""
            @Model
            final class Marker {
                init() {}
            }
            """#
        } expansion: {
            """
            final class Marker {
                init() {}

                private var _$backingData: (any StrataCore.BackingData<Marker>)? = StrataCore._takeInitialValueSink(for: Marker.self)

                private var _$madeBackingData: any StrataCore.BackingData<Marker> {
                    if let backingData = _$backingData {
                        return backingData
                    }
                    let made: any StrataCore.BackingData<Marker> = Marker.createBackingData()
                    _$backingData = made
                    return made
                }

                var persistentBackingData: any StrataCore.BackingData<Marker> {
                    get {
                        _$madeBackingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    []
                }

                required init(backingData: any StrataCore.BackingData<Marker>) {
                    self.persistentBackingData = backingData
                }

                static func _makeModel(backingData: consuming AnyObject) -> Marker {
                    StrataCore._makeContextModel(backingData, as: Marker.self) {
                        Marker(backingData: $0)
                    }
                }

                private let _$observationRegistrar = Observation.ObservationRegistrar()

                internal nonisolated func access<_M>(keyPath: KeyPath<Marker, _M>) {
                    _$observationRegistrar.access(self, keyPath: keyPath)
                }

                internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Marker, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                    try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
                }

                nonisolated func _notifyObservers(ofChangeAt keyPath: AnyKeyPath) {
                    _$observationRegistrar._notifyChange(of: self, at: keyPath)
                }
            }

            extension Marker: StrataCore.PersistentModel {
            }
            """
        }
    }

    @Test func rejectsLetProperty() {
        assertMacro {
            #"""
            @Model
            final class Trip {
                let name: String
                static let shared = 1
                init(name: String) { self.name = name }
            }
            """#
        } diagnostics: {
            """
            @Model
            final class Trip {
                let name: String
                ┬──
                ╰─ 🛑 stored properties of a '@Model' class must be 'var'; declare 'name' with 'var'
                   ✏️ Replace 'let' with 'var'
                static let shared = 1
                init(name: String) { self.name = name }
            }
            """
        } fixes: {
            """
            @Model
            final class Trip {
                var name: String
                static let shared = 1
                init(name: String) { self.name = name }
            }
            """
        } expansion: {
            #"""
            final class Trip {
                var name: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _name)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 1)
                        StrataCore._setValue(initialValue, at: 0, in: _$backingData!)
                        _name = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \.name)
                        return StrataCore._getValue(at: 0, in: self._$madeBackingData, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \.name) {
                            StrataCore._setValue(newValue, at: 0, in: self._$madeBackingData)
                        }
                    }
                }

                private var _name: StrataCore._PersistedPropertyToken
                static let shared = 1
                init(name: String) { self.name = name }

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
                        StrataCore.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: nil)
                    ]
                }

                required init(backingData: any StrataCore.BackingData<Trip>) {
                    _name = StrataCore._PersistedPropertyToken()
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
            }
            """#
        }
    }

    @Test func rejectsPropertyObservers() {
        assertMacro {
            #"""
            @Model
            final class Trip {
                var name: String {
                    didSet { print(name) }
                }
                var note: String = "" {
                    willSet { print(newValue) }
                }
                init() {}
            }
            """#
        } diagnostics: {
            """
            @Model
            final class Trip {
                var name: String {
                                 ╰─ 🛑 persisted property 'name' cannot have 'willSet' or 'didSet' observers; move that code into a method, or mark the property '@Transient'
                    didSet { print(name) }
                }
                var note: String = "" {
                                      ╰─ 🛑 persisted property 'note' cannot have 'willSet' or 'didSet' observers; move that code into a method, or mark the property '@Transient'
                    willSet { print(newValue) }
                }
                init() {}
            }
            """
        }
    }

    @Test func rejectsLazyProperty() {
        assertMacro {
            #"""
            @Model
            final class Trip {
                lazy var name: String = "Trip"
                @Attribute(.unique) private lazy var code: String = "A"
                init() {}
            }
            """#
        } diagnostics: {
            """
            @Model
            final class Trip {
                lazy var name: String = "Trip"
                ┬───
                ╰─ 🛑 persisted property 'name' cannot be 'lazy'; remove 'lazy', or mark the property '@Transient'
                   ✏️ Remove 'lazy'
                @Attribute(.unique) private lazy var code: String = "A"
                                            ┬───
                                            ╰─ 🛑 persisted property 'code' cannot be 'lazy'; remove 'lazy', or mark the property '@Transient'
                                               ✏️ Remove 'lazy'
                init() {}
            }
            """
        } fixes: {
            """
            @Model
            final class Trip {
                var name: String = "Trip"
                @Attribute(.unique) private var code: String = "A"
                init() {}
            }
            """
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
                        _$observationRegistrar.access(self, keyPath: \.name)
                        return StrataCore._getValue(at: 0, in: self._$madeBackingData, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \.name) {
                            StrataCore._setValue(newValue, at: 0, in: self._$madeBackingData)
                        }
                    }
                }

                private var _name: StrataCore._PersistedPropertyToken
                private var code: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _code)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 2)
                        StrataCore._setValue(initialValue, at: 1, in: _$backingData!)
                        _code = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \.code)
                        return StrataCore._getValue(at: 1, in: self._$madeBackingData, as: String.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \.code) {
                            StrataCore._setValue(newValue, at: 1, in: self._$madeBackingData)
                        }
                    }
                }

                private var _code: StrataCore._PersistedPropertyToken
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
                        StrataCore.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: ("Trip") as String, metadata: nil),
                        StrataCore.Schema.PropertyMetadata(name: "code", keypath: \Trip.code, defaultValue: ("A") as String, metadata: StrataCore.Schema.Attribute(.unique))
                    ]
                }

                required init(backingData: any StrataCore.BackingData<Trip>) {
                    _name = StrataCore._PersistedPropertyToken()
                    _code = StrataCore._PersistedPropertyToken()
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
            }
            """#
        }
    }

    @Test func rejectsMultipleBindings() {
        assertMacro {
            #"""
            @Model
            final class Trip {
                var name, destination: String
                init() {}
            }
            """#
        } diagnostics: {
            """
            @Model
            final class Trip {
                var name, destination: String
                ┬────────────────────────────
                ╰─ 🛑 a '@Model' class must declare one persisted property per 'var'; split this declaration into one 'var' per property
                init() {}
            }
            """
        }
    }

    @Test func rejectsKeyPathsToPropertiesThatAreNotPersisted() {
        assertMacro {
            #"""
            @Model
            final class Trip {
                #Unique<Trip>([\.name, \.summary], [\Trip.viewCount])
                #Index<Trip>([\.shared], [\.missing], [\.name.count])
                var name: String
                var summary: String { name }
                @Transient var viewCount = 0
                static var shared = 0
                init() {}
            }
            """#
        } diagnostics: {
            #"""
            @Model
            final class Trip {
                #Unique<Trip>([\.name, \.summary], [\Trip.viewCount])
                                                    ┬──────────────
                                       │            ╰─ 🛑 '#Unique' key path '\Trip.viewCount' must name a persisted stored property of 'Trip', but 'viewCount' is '@Transient'; use a stored 'var' that is not '@Transient'
                                       ┬────────
                                       ╰─ 🛑 '#Unique' key path '\.summary' must name a persisted stored property of 'Trip', but 'summary' is a computed property; use a stored 'var' that is not '@Transient'
                #Index<Trip>([\.shared], [\.missing], [\.name.count])
                                          ┬────────
                              │           ╰─ 🛑 '#Index' key path '\.missing' must name a persisted stored property of 'Trip', but 'Trip' has no property named 'missing'; use a stored 'var' that is not '@Transient'
                              ┬───────
                              ╰─ 🛑 '#Index' key path '\.shared' must name a persisted stored property of 'Trip', but 'shared' is a static property; use a stored 'var' that is not '@Transient'
                var name: String
                var summary: String { name }
                @Transient var viewCount = 0
                static var shared = 0
                init() {}
            }
            """#
        }
    }

    @Test func rejectsIndexKindKeyPathsToPropertiesThatAreNotPersisted() {
        assertMacro {
            #"""
            @Model
            final class Place {
                #Index<Place>(.binary([\.name]), .rtree([\Place.location]))
                var name: String
                var location: String { name }
                init() {}
            }
            """#
        } diagnostics: {
            #"""
            @Model
            final class Place {
                #Index<Place>(.binary([\.name]), .rtree([\Place.location]))
                                                         ┬──────────────
                                                         ╰─ 🛑 '#Index' key path '\Place.location' must name a persisted stored property of 'Place', but 'location' is a computed property; use a stored 'var' that is not '@Transient'
                var name: String
                var location: String { name }
                init() {}
            }
            """#
        }
    }

    @Test func rejectsSecondUnique() {
        assertMacro {
            #"""
            @Model
            final class Trip {
                #Unique<Trip>([\.name])
                #Unique<Trip>([\.startDate])
                var name: String
                var startDate: Date
                init() {}
            }
            """#
        } diagnostics: {
            #"""
            @Model
            final class Trip {
                #Unique<Trip>([\.name])
                #Unique<Trip>([\.startDate])
                ┬───────────────────────────
                ╰─ 🛑 a '@Model' class can contain only one '#Unique'; pass all of its arguments to a single '#Unique'
                var name: String
                var startDate: Date
                init() {}
            }
            """#
        }
    }

    @Test func rejectsSecondIndex() {
        assertMacro {
            #"""
            @Model
            final class Trip {
                #Index<Trip>([\.name])
                #Index<Trip>([\.startDate])
                var name: String
                var startDate: Date
                init() {}
            }
            """#
        } diagnostics: {
            #"""
            @Model
            final class Trip {
                #Index<Trip>([\.name])
                #Index<Trip>([\.startDate])
                ┬──────────────────────────
                ╰─ 🛑 a '@Model' class can contain only one '#Index'; pass all of its arguments to a single '#Index'
                var name: String
                var startDate: Date
                init() {}
            }
            """#
        }
    }

    @Test func rejectsInverseOnBothSides() {
        assertMacro {
            #"""
            @Model
            final class Person {
                @Relationship(inverse: \Person.following) var followers: [Person] = []
                @Relationship(deleteRule: .nullify, inverse: \Person.followers) var following: [Person] = []
                init() {}
            }
            """#
        } diagnostics: {
            #"""
            @Model
            final class Person {
                @Relationship(inverse: \Person.following) var followers: [Person] = []
                @Relationship(deleteRule: .nullify, inverse: \Person.followers) var following: [Person] = []
                                                    ┬─────────────────────────
                                                    ╰─ 🛑 'inverse:' must be named on one side of a relationship only, but 'following' and 'followers' name each other; remove 'inverse:' from 'following'
                                                       ✏️ Remove 'inverse:'
                init() {}
            }
            """#
        } fixes: {
            #"""
            @Model
            final class Person {
                @Relationship(inverse: \Person.following) var followers: [Person] = []
                @Relationship(deleteRule: .nullify) var following: [Person] = []
                init() {}
            }
            """#
        } expansion: {
            #"""
            final class Person {
                var followers: [Person] {
                    @storageRestrictions(accesses: _$backingData, initializes: _followers)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 2)
                        StrataCore._setValue(initialValue, at: 0, in: _$backingData!)
                        _followers = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \.followers)
                        return StrataCore._getValue(at: 0, in: self._$madeBackingData, as: [Person].self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \.followers) {
                            StrataCore._setValue(newValue, at: 0, in: self._$madeBackingData)
                        }
                    }
                }

                private var _followers: StrataCore._PersistedPropertyToken
                var following: [Person] {
                    @storageRestrictions(accesses: _$backingData, initializes: _following)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 2)
                        StrataCore._setValue(initialValue, at: 1, in: _$backingData!)
                        _following = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \.following)
                        return StrataCore._getValue(at: 1, in: self._$madeBackingData, as: [Person].self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \.following) {
                            StrataCore._setValue(newValue, at: 1, in: self._$madeBackingData)
                        }
                    }
                }

                private var _following: StrataCore._PersistedPropertyToken
                init() {}

                private var _$backingData: (any StrataCore.BackingData<Person>)? = StrataCore._takeInitialValueSink(for: Person.self)

                private var _$madeBackingData: any StrataCore.BackingData<Person> {
                    if let backingData = _$backingData {
                        return backingData
                    }
                    let made: any StrataCore.BackingData<Person> = Person.createBackingData()
                    _$backingData = made
                    return made
                }

                var persistentBackingData: any StrataCore.BackingData<Person> {
                    get {
                        _$madeBackingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    [
                        StrataCore.Schema.PropertyMetadata(name: "followers", keypath: \Person.followers, defaultValue: ([]) as [Person], metadata: StrataCore.Schema.Relationship(inverse: \Person.following)),
                        StrataCore.Schema.PropertyMetadata(name: "following", keypath: \Person.following, defaultValue: ([]) as [Person], metadata: StrataCore.Schema.Relationship(deleteRule: .nullify))
                    ]
                }

                required init(backingData: any StrataCore.BackingData<Person>) {
                    _followers = StrataCore._PersistedPropertyToken()
                    _following = StrataCore._PersistedPropertyToken()
                    self.persistentBackingData = backingData
                }

                static func _makeModel(backingData: consuming AnyObject) -> Person {
                    StrataCore._makeContextModel(backingData, as: Person.self) {
                        Person(backingData: $0)
                    }
                }

                private let _$observationRegistrar = Observation.ObservationRegistrar()

                internal nonisolated func access<_M>(keyPath: KeyPath<Person, _M>) {
                    _$observationRegistrar.access(self, keyPath: keyPath)
                }

                internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Person, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                    try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
                }

                nonisolated func _notifyObservers(ofChangeAt keyPath: AnyKeyPath) {
                    _$observationRegistrar._notifyChange(of: self, at: keyPath)
                }
            }
            """#
        }
    }

    @Test func rejectsInverseOnBothSidesWrittenWithSelf() {
        assertMacro {
            #"""
            @Model
            final class Person {
                @Relationship(inverse: \Self.child) var parent: Person?
                @Relationship(inverse: \Self.parent) var child: Person?
                init() {}
            }
            """#
        } diagnostics: {
            #"""
            @Model
            final class Person {
                @Relationship(inverse: \Self.child) var parent: Person?
                @Relationship(inverse: \Self.parent) var child: Person?
                              ┬────────────────────
                              ╰─ 🛑 'inverse:' must be named on one side of a relationship only, but 'child' and 'parent' name each other; remove 'inverse:' from 'child'
                                 ✏️ Remove 'inverse:'
                init() {}
            }
            """#
        } fixes: {
            #"""
            @Model
            final class Person {
                @Relationship(inverse: \Self.child) var parent: Person?
                @Relationship var child: Person?
                init() {}
            }
            """#
        } expansion: {
            #"""
            final class Person {
                var parent: Person? {
                    @storageRestrictions(accesses: _$backingData, initializes: _parent)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 2)
                        StrataCore._setValue(initialValue, at: 0, in: _$backingData!)
                        _parent = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \.parent)
                        return StrataCore._getValue(at: 0, in: self._$madeBackingData, as: Person?.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \.parent) {
                            StrataCore._setValue(newValue, at: 0, in: self._$madeBackingData)
                        }
                    }
                }

                private var _parent: StrataCore._PersistedPropertyToken
                var child: Person? {
                    @storageRestrictions(accesses: _$backingData, initializes: _child)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 2)
                        StrataCore._setValue(initialValue, at: 1, in: _$backingData!)
                        _child = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \.child)
                        return StrataCore._getValue(at: 1, in: self._$madeBackingData, as: Person?.self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \.child) {
                            StrataCore._setValue(newValue, at: 1, in: self._$madeBackingData)
                        }
                    }
                }

                private var _child: StrataCore._PersistedPropertyToken
                init() {}

                private var _$backingData: (any StrataCore.BackingData<Person>)? = StrataCore._takeInitialValueSink(for: Person.self)

                private var _$madeBackingData: any StrataCore.BackingData<Person> {
                    if let backingData = _$backingData {
                        return backingData
                    }
                    let made: any StrataCore.BackingData<Person> = Person.createBackingData()
                    _$backingData = made
                    return made
                }

                var persistentBackingData: any StrataCore.BackingData<Person> {
                    get {
                        _$madeBackingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    [
                        StrataCore.Schema.PropertyMetadata(name: "parent", keypath: \Person.parent, defaultValue: nil, metadata: StrataCore.Schema.Relationship(inverse: \Self.child)),
                        StrataCore.Schema.PropertyMetadata(name: "child", keypath: \Person.child, defaultValue: nil, metadata: StrataCore.Schema.Relationship())
                    ]
                }

                required init(backingData: any StrataCore.BackingData<Person>) {
                    _parent = StrataCore._PersistedPropertyToken()
                    _child = StrataCore._PersistedPropertyToken()
                    self.persistentBackingData = backingData
                }

                static func _makeModel(backingData: consuming AnyObject) -> Person {
                    StrataCore._makeContextModel(backingData, as: Person.self) {
                        Person(backingData: $0)
                    }
                }

                private let _$observationRegistrar = Observation.ObservationRegistrar()

                internal nonisolated func access<_M>(keyPath: KeyPath<Person, _M>) {
                    _$observationRegistrar.access(self, keyPath: keyPath)
                }

                internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Person, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                    try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
                }

                nonisolated func _notifyObservers(ofChangeAt keyPath: AnyKeyPath) {
                    _$observationRegistrar._notifyChange(of: self, at: keyPath)
                }
            }
            """#
        }
    }

    @Test func acceptsInverseOnOneSide() {
        assertMacro {
            #"""
            @Model
            final class Person {
                @Relationship(inverse: \Person.following) var followers: [Person] = []
                var following: [Person] = []
                init() {}
            }
            """#
        } expansion: {
            #"""
            final class Person {
                var followers: [Person] {
                    @storageRestrictions(accesses: _$backingData, initializes: _followers)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 2)
                        StrataCore._setValue(initialValue, at: 0, in: _$backingData!)
                        _followers = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Person._$keyPath_followers)
                        return StrataCore._getValue(at: 0, in: self._$madeBackingData, as: [Person].self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Person._$keyPath_followers) {
                            StrataCore._setValue(newValue, at: 0, in: self._$madeBackingData)
                        }
                    }
                }

                private var _followers: StrataCore._PersistedPropertyToken

                private static let _$keyPath_followers = \Person.followers
                var following: [Person] {
                    @storageRestrictions(accesses: _$backingData, initializes: _following)
                    init(initialValue) {
                        StrataCore._makeBackingData(ifNeededIn: &_$backingData, slotCount: 2)
                        StrataCore._setValue(initialValue, at: 1, in: _$backingData!)
                        _following = StrataCore._PersistedPropertyToken()
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: Person._$keyPath_following)
                        return StrataCore._getValue(at: 1, in: self._$madeBackingData, as: [Person].self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: Person._$keyPath_following) {
                            StrataCore._setValue(newValue, at: 1, in: self._$madeBackingData)
                        }
                    }
                }

                private var _following: StrataCore._PersistedPropertyToken

                private static let _$keyPath_following = \Person.following
                init() {}

                private var _$backingData: (any StrataCore.BackingData<Person>)? = StrataCore._takeInitialValueSink(for: Person.self)

                private var _$madeBackingData: any StrataCore.BackingData<Person> {
                    if let backingData = _$backingData {
                        return backingData
                    }
                    let made: any StrataCore.BackingData<Person> = Person.createBackingData()
                    _$backingData = made
                    return made
                }

                var persistentBackingData: any StrataCore.BackingData<Person> {
                    get {
                        _$madeBackingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    [
                        StrataCore.Schema.PropertyMetadata(name: "followers", keypath: \Person.followers, defaultValue: ([]) as [Person], metadata: StrataCore.Schema.Relationship(inverse: \Person.following)),
                        StrataCore.Schema.PropertyMetadata(name: "following", keypath: \Person.following, defaultValue: ([]) as [Person], metadata: nil)
                    ]
                }

                required init(backingData: any StrataCore.BackingData<Person>) {
                    _followers = StrataCore._PersistedPropertyToken()
                    _following = StrataCore._PersistedPropertyToken()
                    self.persistentBackingData = backingData
                }

                static func _makeModel(backingData: consuming AnyObject) -> Person {
                    StrataCore._makeContextModel(backingData, as: Person.self) {
                        Person(backingData: $0)
                    }
                }

                private let _$observationRegistrar = Observation.ObservationRegistrar()

                internal nonisolated func access<_M>(keyPath: KeyPath<Person, _M>) {
                    _$observationRegistrar.access(self, keyPath: keyPath)
                }

                internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Person, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                    try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
                }

                nonisolated func _notifyObservers(ofChangeAt keyPath: AnyKeyPath) {
                    _$observationRegistrar._notifyChange(of: self, at: keyPath)
                }
            }
            """#
        }
    }
}
