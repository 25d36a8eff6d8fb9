import CStrataThread
import Foundation

/// Where the initial values Swift assigns at the start of `init(backingData:)` go while a
/// context materializes a model: the backing data the initializer installs next holds the
/// stored values, so these are dropped.
///
/// Swift runs a persisted property's initial value (an optional's implicit `nil` included)
/// through the property's init accessor at the start of every designated initializer,
/// `init(backingData:)` too. Without a sink, the first of them made a detached backing data
/// that the initializer then replaced: an allocation, the writes and a deallocation for every
/// fetched model of a class with such a property (issue I). One sink per model class serves
/// every thread: it holds nothing and changes nothing.
@usableFromInline
final class InitialValueSink<Model: PersistentModel>: BackingData {
    @usableFromInline
    init() {}

    /// A sink; ``ModelLayout`` makes the one each class uses.
    @usableFromInline
    convenience init(for modelType: Model.Type) { self.init() }

    /// No identifier, and none kept.
    @usableFromInline
    var persistentModelID: PersistentIdentifier? {
        get { nil }
        set {}
    }

    /// Nothing.
    @usableFromInline
    var metadata: Any { () }

    /// `.unset`: the sink keeps no value.
    @usableFromInline
    func value(at slot: Int) -> BackingValue { .unset }

    /// Drops `value`.
    @usableFromInline
    func setValue(_ value: BackingValue, at slot: Int) {}
}

/// The sink of the model class the current thread is materializing, from the moment a context
/// calls a model's `init(backingData:)` until it returns, in a C thread-local (`CStrataThread`).
///
/// The model being materialized takes the sink as the first of its initial values runs (the
/// initial value of its backing-data property, which Swift initializes before the persisted
/// properties whose init accessors read it), and marks it taken: a model that one of the
/// initial values makes meanwhile, of the same class too, then makes a detached backing data
/// of its own instead of taking the sink, which would drop its values.
@usableFromInline
enum MaterializingThread {
    /// The bit of the thread's sink pointer that says the sink was taken (objects are aligned).
    @inlinable
    static var takenBit: Int { 1 }

    /// The sink set for the current thread, taken or not, if a context is materializing a
    /// model on it.
    static var sink: AnyObject? {
        guard let raw = strata_materializing_sink_get() else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: Int(bitPattern: raw) & ~takenBit)!)
            .takeUnretainedValue()
    }

    /// The sink of `Model`'s class, marked taken, if a context is materializing a model of it
    /// on this thread and no model took it yet; otherwise `nil`. Specialized in the model's
    /// module, out of line: ``_takeInitialValueSink(for:)`` calls it only when a sink is set.
    @inlinable @inline(never)
    static func take<Model: PersistentModel>(for modelType: Model.Type) -> (any BackingData<Model>)? {
        guard let raw = strata_materializing_sink_get(), Int(bitPattern: raw) & takenBit == 0 else { return nil }
        // The class compared, not cast to (the sink's class is final), as the first word of
        // every Swift object, its class's metadata: read so, the object is not retained and
        // released, as comparing `type(of:)` of the unretained object did.
        let sinkClass = unsafeBitCast(InitialValueSink<Model>.self as AnyClass, to: UnsafeRawPointer.self)
        guard UnsafeRawPointer(raw).load(as: UnsafeRawPointer.self) == sinkClass else { return nil }
        strata_materializing_sink_set(UnsafeMutableRawPointer(bitPattern: Int(bitPattern: raw) | takenBit))
        return Unmanaged<InitialValueSink<Model>>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Marks the sink not taken again when `pending` is it: a model subclass's initial values
    /// took it, and its superclass's, which follow, go to it as well.
    @usableFromInline
    static func handOn(_ pending: AnyObject) {
        guard let raw = strata_materializing_sink_get() else { return }
        let sink = Unmanaged.passUnretained(pending).toOpaque()
        guard Int(bitPattern: raw) == Int(bitPattern: sink) | takenBit else { return }
        strata_materializing_sink_set(sink)
    }

    /// Whether `data` is the sink set for the current thread: a write to it is dropped, so a
    /// setter whose value costs something to make (a composite attribute's JSON, a boxed
    /// value) returns before making it. The object is compared rather than its class: in a
    /// setter compiled once for every model type, naming `InitialValueSink<Model>` would ask
    /// the runtime for that type's metadata.
    static func isSink(_ data: AnyObject) -> Bool {
        guard let raw = strata_materializing_sink_get() else { return false }
        return Int(bitPattern: raw) & ~takenBit == Int(bitPattern: Unmanaged.passUnretained(data).toOpaque())
    }

    /// Makes a model of class `Model` over `backingData` with `sink` set for the current
    /// thread; the sink stays alive through the call (its layout holds it). A model that an
    /// initial value materializes meanwhile sets its own class's sink and then puts back the
    /// one it found.
    ///
    /// `backingData` is consumed, as ``PersistentModel/_makeModel(backingData:)`` consumes it.
    static func makeModel<Model: PersistentModel>(_ type: Model.Type, backingData: consuming AnyObject, sink: AnyObject) -> Model {
        let outer = strata_materializing_sink_get()
        strata_materializing_sink_set(Unmanaged.passUnretained(sink).toOpaque())
        defer { strata_materializing_sink_set(outer) }
        return Model._makeModel(backingData: backingData)
    }
}

/// The initial value of a model's backing-data property: the sink of its class while a
/// context materializes a model of it on this thread and no model took the sink yet (see
/// ``MaterializingThread``), otherwise `nil`. Generated by `@Model`.
///
/// Inlined into every initializer of the model: when no context is materializing on the
/// thread, as for every new model, it is one load and a test.
@inlinable @inline(__always)
public func _takeInitialValueSink<Model: PersistentModel>(for modelType: Model.Type) -> (any BackingData<Model>)? {
    guard strata_materializing_sink_get() != nil else { return nil }
    return MaterializingThread.take(for: Model.self)
}

/// Called by a model subclass's `init(backingData:)` before its superclass's, with the
/// backing data its own initial values went to: when that is the sink, the superclass's
/// initial values take it too. Generated by `@Model`.
///
/// `pending` is the sink exactly when it is the object the thread holds as taken, which
/// ``MaterializingThread/handOn(_:)`` compares; no class check is needed before it.
@inlinable
public func _handOnInitialValueSink<Root: PersistentModel>(_ pending: (any BackingData<Root>)?) {
    guard let pending else { return }
    MaterializingThread.handOn(pending)
}
