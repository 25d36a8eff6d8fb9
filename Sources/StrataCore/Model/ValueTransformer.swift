import Foundation

// Foundation on Darwin has `ValueTransformer` (NSValueTransformer); Foundation on Linux,
// Windows and Android has none, yet SwiftData's `.transformable(by:)` attribute option
// names one. This file declares the same class, with Foundation's API, wherever Darwin's
// Foundation is absent.
#if !canImport(Darwin)

/// The name under which a ``ValueTransformer`` is registered.
///
/// Foundation on Linux lacks it, so Strata declares it there.
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    /// The name's text.
    public let rawValue: String

    /// Creates a name from its text.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a name from its text.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }
}

/// An abstract class that transforms values from one representation to another.
///
/// Foundation on Linux lacks it, so Strata declares it there with Foundation's API:
/// subclass it, override ``transformedValueClass()``, ``allowsReverseTransformation()``,
/// ``transformedValue(_:)`` and, if the reverse differs from the forward transformation,
/// ``reverseTransformedValue(_:)``; then register an instance with
/// ``setValueTransformer(_:forName:)`` and look it up with `init?(forName:)`.
///
/// The class is `Sendable` because the registry hands one instance to every thread:
/// subclasses must be safe to use concurrently, as Foundation's value transformers are
/// expected to be (keep them stateless, or guard their state).
open class ValueTransformer: NSObject, @unchecked Sendable {
    /// Creates a value transformer.
    public override init() {
        super.init()
    }

    /// Returns the class of the values that ``transformedValue(_:)`` produces.
    ///
    /// The default is `NSObject`; subclasses should return the appropriate class, such
    /// as `NSData` for a transformer that produces `Data`.
    open class func transformedValueClass() -> AnyClass {
        NSObject.self
    }

    /// Returns whether ``reverseTransformedValue(_:)`` can undo a transformation.
    ///
    /// The default is `true`; subclasses that cannot reverse should return `false`.
    open class func allowsReverseTransformation() -> Bool {
        true
    }

    /// Returns the result of transforming a value.
    ///
    /// The default returns `value` unchanged.
    open func transformedValue(_ value: Any?) -> Any? {
        value
    }

    /// Returns the result of reversing the transformation of a value.
    ///
    /// The default applies ``transformedValue(_:)`` to `value`, which suits transformations
    /// that are their own inverse. Like Foundation, which raises an exception, it stops the
    /// program when ``allowsReverseTransformation()`` returns `false`.
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        precondition(
            type(of: self).allowsReverseTransformation(),
            "\(type(of: self)) does not allow reverse transformation; override reverseTransformedValue(_:) or return true from allowsReverseTransformation()"
        )
        return transformedValue(value)
    }

    /// Registers a transformer under a name, replacing any registered before; `nil` removes the registration.
    public class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        valueTransformerRegistry.withLock { $0[name] = transformer }
    }

    /// Returns the names of all registered transformers, sorted by their text.
    public class func valueTransformerNames() -> [NSValueTransformerName] {
        valueTransformerRegistry.withLock { Array($0.keys) }.sorted { $0.rawValue < $1.rawValue }
    }
}

/// The registered transformers by name, shared by all threads.
private let valueTransformerRegistry = Locked<[NSValueTransformerName: ValueTransformer]>([:])

/// Gives ``ValueTransformer`` Foundation's `init?(forName:)`, which returns the registered instance.
///
/// A class initializer cannot return an existing instance; one in a protocol extension
/// can, so the initializer lives here. Only ``ValueTransformer`` should conform; the
/// underscore marks it as an implementation detail.
public protocol _ValueTransformerRegistryLookup {}

extension ValueTransformer: _ValueTransformerRegistryLookup {}

extension _ValueTransformerRegistryLookup {
    /// Returns the transformer registered under `name`, or `nil` if none is or it is not a `Self`.
    public init?(forName name: NSValueTransformerName) {
        guard let transformer = valueTransformerRegistry.withLock({ $0[name] }) as? Self else {
            return nil
        }
        self = transformer
    }
}

#endif
