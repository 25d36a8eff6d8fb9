/// The zero-size stored companion `@Model` gives each persisted property.
///
/// It makes the compiler require every persisted property to be initialised in every
/// initialiser, as it would for an ordinary stored property. Generated code only.
public struct _PersistedPropertyToken: Sendable {
    /// Creates the token.
    public init() {}
}
