import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
/// calls a model's `init(backingData:)` until it returns.
@usableFromInline
enum MaterializingThread {
    /// The thread-specific slot holding an unretained pointer to the sink, or `nil`.
    @usableFromInline
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The sink set for the current thread, if a context is materializing a model on it.
    @inlinable
    static var sink: AnyObject? {
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Whether `data` is the sink set for the current thread: a write to it is dropped, so a
    /// setter whose value costs something to make (a composite attribute's JSON, a boxed
    /// value) returns before making it. The object is compared rather than its class: in a
    /// setter compiled once for every model type, naming `InitialValueSink<Model>` would ask
    /// the runtime for that type's metadata.
    static func isSink(_ data: AnyObject) -> Bool {
        guard let raw = pthread_getspecific(key) else { return false }
        return raw == Unmanaged.passUnretained(data).toOpaque()
    }

    /// Runs `body`, which calls a model's `init(backingData:)`, with `sink` set for the
    /// current thread; the sink stays alive through the call (its layout holds it). A model
    /// that an initial value materializes meanwhile clears it early: the rest of the outer
    /// model's initial values then make a detached backing data, as without a sink.
    static func materializing<R>(with sink: AnyObject, _ body: () -> R) -> R {
        pthread_setspecific(key, Unmanaged.passUnretained(sink).toOpaque())
        defer { pthread_setspecific(key, nil) }
        return body()
    }
}
