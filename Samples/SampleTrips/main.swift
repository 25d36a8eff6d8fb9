import Strata
import Foundation

enum Status: String, Codable { case planned, done }
struct Money: Codable, Hashable { var amount: Double; var currency: String }

final class Item {
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
    var note: String? = nil {
        @storageRestrictions(accesses: _$backingData, initializes: _note)
        init(initialValue) {
            _$backingData._setValue(initialValue, at: 1)
            _note = StrataCore._PersistedPropertyToken()
        }
        get { _$observationRegistrar.access(self, keyPath: \.note); return self._$backingData._getValue(at: 1, as: String?.self) }
        set { _$observationRegistrar.withMutation(of: self, keyPath: \.note) { self._$backingData._setValue(newValue, at: 1) } }
    }
    private var _note: StrataCore._PersistedPropertyToken
    var status: Status? {
        @storageRestrictions(accesses: _$backingData, initializes: _status)
        init(initialValue) {
            _$backingData._setValue(initialValue, at: 2)
            _status = StrataCore._PersistedPropertyToken()
        }
        get { return self._$backingData._getValue(at: 2, as: Status?.self) }
        set { self._$backingData._setValue(newValue, at: 2) }
    }
    private var _status: StrataCore._PersistedPropertyToken
    var money: Money? {
        @storageRestrictions(accesses: _$backingData, initializes: _money)
        init(initialValue) {
            _$backingData._setValue(initialValue, at: 3)
            _money = StrataCore._PersistedPropertyToken()
        }
        get { return self._$backingData._getValue(at: 3, as: Money?.self) }
        set { self._$backingData._setValue(newValue, at: 3) }
    }
    private var _money: StrataCore._PersistedPropertyToken
    var tags: [String] = [] {
        @storageRestrictions(accesses: _$backingData, initializes: _tags)
        init(initialValue) {
            _$backingData._setValue(initialValue, at: 4)
            _tags = StrataCore._PersistedPropertyToken()
        }
        get { return self._$backingData._getValue(at: 4, as: [String].self) }
        set { self._$backingData._setValue(newValue, at: 4) }
    }
    private var _tags: StrataCore._PersistedPropertyToken
    var parent: Item? {
        @storageRestrictions(accesses: _$backingData, initializes: _parent)
        init(initialValue) {
            _$backingData._setValue(initialValue, at: 5)
            _parent = StrataCore._PersistedPropertyToken()
        }
        get { return self._$backingData._getValue(at: 5, as: Item?.self) }
        set { self._$backingData._setValue(newValue, at: 5) }
    }
    private var _parent: StrataCore._PersistedPropertyToken
    var children: [Item]? = [] {
        @storageRestrictions(accesses: _$backingData, initializes: _children)
        init(initialValue) {
            _$backingData._setValue(initialValue, at: 6)
            _children = StrataCore._PersistedPropertyToken()
        }
        get { return self._$backingData._getValue(at: 6, as: [Item]?.self) }
        set { self._$backingData._setValue(newValue, at: 6) }
    }
    private var _children: StrataCore._PersistedPropertyToken
    var count: UInt64 = 0 {
        @storageRestrictions(accesses: _$backingData, initializes: _count)
        init(initialValue) {
            _$backingData._setValue(initialValue, at: 7)
            _count = StrataCore._PersistedPropertyToken()
        }
        get { return self._$backingData._getValue(at: 7, as: UInt64.self) }
        set { self._$backingData._setValue(newValue, at: 7) }
    }
    private var _count: StrataCore._PersistedPropertyToken

    init(name: String) { self.name = name }

    private var _$backingData: any StrataCore.BackingData<Item> = Item.createBackingData()
    var persistentBackingData: any StrataCore.BackingData<Item> {
        get { _$backingData }
        set { _$backingData = newValue }
    }
    static var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
        [
            StrataCore.Schema.PropertyMetadata(name: "name", keypath: \Item.name, defaultValue: nil, metadata: StrataCore.Schema.Attribute(.unique)),
            StrataCore.Schema.PropertyMetadata(name: "note", keypath: \Item.note, defaultValue: (nil) as String?, metadata: nil),
            StrataCore.Schema.PropertyMetadata(name: "status", keypath: \Item.status, defaultValue: nil, metadata: nil),
            StrataCore.Schema.PropertyMetadata(name: "money", keypath: \Item.money, defaultValue: nil, metadata: nil),
            StrataCore.Schema.PropertyMetadata(name: "tags", keypath: \Item.tags, defaultValue: ([]) as [String], metadata: nil),
            StrataCore.Schema.PropertyMetadata(name: "parent", keypath: \Item.parent, defaultValue: nil, metadata: nil),
            StrataCore.Schema.PropertyMetadata(name: "children", keypath: \Item.children, defaultValue: ([]) as [Item]?, metadata: StrataCore.Schema.Relationship(deleteRule: .cascade, inverse: \Item.parent)),
            StrataCore.Schema.PropertyMetadata(name: "count", keypath: \Item.count, defaultValue: (0) as UInt64, metadata: nil),
        ]
    }
    required init(backingData: any StrataCore.BackingData<Item>) {
        _name = StrataCore._PersistedPropertyToken()
        _note = StrataCore._PersistedPropertyToken()
        _status = StrataCore._PersistedPropertyToken()
        _money = StrataCore._PersistedPropertyToken()
        _tags = StrataCore._PersistedPropertyToken()
        _parent = StrataCore._PersistedPropertyToken()
        _children = StrataCore._PersistedPropertyToken()
        _count = StrataCore._PersistedPropertyToken()
        self.persistentBackingData = backingData
    }
    private let _$observationRegistrar = Observation.ObservationRegistrar()
    internal nonisolated func access<_M>(keyPath: KeyPath<Item, _M>) { _$observationRegistrar.access(self, keyPath: keyPath) }
    internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<Item, _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
        try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
    }
    static var _schemaAnnotations: StrataCore.Schema.ModelAnnotations {
        StrataCore.Schema.ModelAnnotations(uniquenessConstraints: StrataCore.Schema.Unique<Item>([\.name, \.count]), indices: StrataCore.Schema.Index<Item>([\.name]))
    }
}
extension Item: StrataCore.PersistentModel {}
extension Item: Observation.Observable {}

let item = Item(name: "a")
item.note = "hello"; item.status = .done; item.money = Money(amount: 3, currency: "EUR"); item.tags.append("x")
let child = Item(name: "b"); child.parent = item; item.children?.append(child); item.count = UInt64.max
print(item.name, item.note as Any, item.status as Any, item.money as Any, item.tags, item.children!.count, child.parent!.name, item.count)
withObservationTracking { _ = item.name } onChange: { print("observed change") }
item.name = "renamed"
print(Schema([Item.self]))
print(Schema([Item.self]).entities[0].uniquenessConstraints, Schema([Item.self]).entities[0].indices)
do { try Schema([Item.self]).validate(); print("valid") } catch { print(error) }
