import Dispatch
import Foundation

/// An executor that runs the work of a ``ModelActor`` with its ``modelContext``.
///
/// The context belongs to the executor: code running on the executor is the only code that
/// touches it, which is how an actor's context stays on one thread at a time.
public protocol ModelExecutor: Executor {
    /// The context this executor's work uses.
    var modelContext: ModelContext { get }
}

/// A ``ModelExecutor`` that runs one job at a time, so it can be an actor's executor.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// The executor `@ModelActor` gives an actor: a serial queue of its own, and the context
/// the actor works through.
///
/// Jobs run one at a time, in order, on a dispatch queue owned by the executor, wherever
/// the actor was created. (On Apple platforms SwiftData runs an actor created on the main
/// actor on the main thread; Strata never does.)
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    /// The context of the actor this executor runs.
    public let modelContext: ModelContext
    private let queue: DispatchQueue

    /// Creates an executor whose jobs use `modelContext`.
    ///
    /// Hand the context over: after this call, use it only from jobs of this executor.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        self.queue = DispatchQueue(label: "Strata.DefaultSerialModelExecutor")
    }

    /// Runs `job` after the jobs enqueued before it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// This executor, as the runtime refers to it.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}

/// Makes an actor a ``ModelActor``: adds `modelExecutor`, `modelContainer` and
/// `init(modelContainer:)`, which gives the actor a new context of `modelContainer` on a
/// ``DefaultSerialModelExecutor``.
///
/// Create the actor from any task and call it with `await`; its context is used only on
/// its executor.
@attached(member, names: named(modelExecutor), named(modelContainer), named(init))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "StrataMacros", type: "ModelActorMacro")

/// An actor whose work runs on a ``ModelExecutor`` with a context of its own.
///
/// Write `@ModelActor` on an actor to get the executor, the container and
/// `init(modelContainer:)`. Pass ``PersistentIdentifier``s and the ``ModelContainer``
/// between actors; models and contexts stay inside the actor that made them.
/// ```swift
/// @ModelActor
/// actor TripImporter {
///     func importTrips(_ names: [String]) throws -> [PersistentIdentifier] {
///         let trips = names.map { Trip(name: $0) }
///         for trip in trips { modelContext.insert(trip) }
///         try modelContext.save()
///         return trips.map(\.persistentModelID)
///     }
/// }
/// ```
public protocol ModelActor: Actor {
    /// The container the actor's context works with.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor that runs the actor and owns its context.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor's executor: ``modelExecutor``.
    ///
    /// A ``modelExecutor`` that is not a ``SerialModelExecutor`` is run through a serial
    /// queue of its own, so the actor still runs one job at a time.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        if let serial = modelExecutor as? any SerialModelExecutor { return serial.asUnownedSerialExecutor() }
        return SerializingModelExecutor.wrapping(modelExecutor).asUnownedSerialExecutor()
    }

    /// The actor's context.
    public var modelContext: ModelContext { modelExecutor.modelContext }

    /// The model with identifier `id` as a `T`: the one the context holds, or the stored
    /// one; `nil` when no store holds it or it is not a `T`.
    ///
    /// A store error is logged and reads as `nil`, since SwiftData's subscript cannot throw;
    /// fetch through ``modelContext`` to see the error.
    public subscript<T: PersistentModel>(id id: PersistentIdentifier, as type: T.Type) -> T? {
        if let model: T = modelContext.registeredModel(for: id) { return model }
        do {
            return try modelContext.existingModel(for: id) as? T
        } catch {
            StrataLog.logger.error("\(Self.self)[id: \(id)] found no \(T.self): \(error)")
            return nil
        }
    }
}

/// The serial executors that run actors whose ``ModelExecutor`` is not serial: one per
/// such executor for the life of the process, since the runtime holds executors unowned.
enum SerializingModelExecutor {
    /// Each adaptor with the executor it stands for, kept so its identifier is never reused.
    private static let adaptors = Locked<[ObjectIdentifier: (base: any ModelExecutor, serial: DefaultSerialModelExecutor)]>([:])

    /// The serial executor that stands for `base`.
    static func wrapping(_ base: any ModelExecutor) -> DefaultSerialModelExecutor {
        adaptors.withLock { adaptors in
            if let adaptor = adaptors[ObjectIdentifier(base)] { return adaptor.serial }
            let serial = DefaultSerialModelExecutor(modelContext: base.modelContext)
            adaptors[ObjectIdentifier(base)] = (base, serial)
            return serial
        }
    }
}
