import Foundation

// Foundation on Darwin declares `PredicateExpressions.StringLocalizedStandardContains`
// and `build_localizedStandardContains`; swift-foundation builds them only into the
// Darwin framework (`#if FOUNDATION_FRAMEWORK`), so on Linux, Windows and Android
// `#Predicate { $0.name.localizedStandardContains(text) }` fails to type-check. This
// file supplies the same declarations, with the same names, shape and archive format,
// wherever Darwin's Foundation is absent. Should a future non-Darwin Foundation add
// them, this file must be compiled out, or uses become ambiguous.
#if !canImport(Darwin)

extension PredicateExpressions {
    /// An expression that tests whether one string contains another, ignoring case and diacritics.
    ///
    /// `#Predicate` produces it for `a.localizedStandardContains(b)`. Foundation on
    /// Linux lacks it, so Strata declares it there; on Darwin Foundation's own type is used.
    /// It evaluates with `StringProtocol.localizedStandardContains(_:)`, which on Linux is a
    /// case- and diacritic-insensitive search in the current locale, and is `false` when
    /// the searched-for string is empty, as on Darwin.
    public struct StringLocalizedStandardContains<
        Root: PredicateExpression,
        Other: PredicateExpression
    >: PredicateExpression
    where
        Root.Output: StringProtocol,
        Other.Output: StringProtocol
    {
        /// The result of the expression: whether `root` contains `other`.
        public typealias Output = Bool

        /// The expression producing the string that is searched.
        public let root: Root

        /// The expression producing the string that is searched for.
        public let other: Other

        /// Creates an expression that tests whether `root`'s string contains `other`'s.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// Evaluates both operands and tests for containment, ignoring case and diacritics.
        ///
        /// - Throws: Whatever evaluating `root` or `other` throws.
        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            try root.evaluate(bindings).localizedStandardContains(try other.evaluate(bindings))
        }
    }

    /// Builds a ``StringLocalizedStandardContains``; `#Predicate` calls this for `localizedStandardContains(_:)`.
    ///
    /// Foundation on Linux lacks it, so Strata declares it there.
    public static func build_localizedStandardContains<Root, Other>(
        _ root: Root,
        _ other: Other
    ) -> StringLocalizedStandardContains<Root, Other> {
        StringLocalizedStandardContains(root: root, other: other)
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: CustomStringConvertible {
    /// A textual form naming the expression and its operands, as Foundation's has.
    public var description: String {
        "StringLocalizedStandardContains(root: \(root), other: \(other))"
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}

extension PredicateExpressions.StringLocalizedStandardContains: Codable where Root: Codable, Other: Codable {
    /// Encodes the operands, `root` then `other`, in an unkeyed container, as Foundation does.
    ///
    /// - Throws: Whatever encoding an operand throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(root)
        try container.encode(other)
    }

    /// Decodes the operands, `root` then `other`, from an unkeyed container, as Foundation does.
    ///
    /// - Throws: `DecodingError` when the container does not hold both operands.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        root = try container.decode(Root.self)
        other = try container.decode(Other.self)
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: Sendable where Root: Sendable, Other: Sendable {}

#endif
