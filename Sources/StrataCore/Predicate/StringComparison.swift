import Foundation

// Foundation on Darwin declares `PredicateExpressions.StringCaseInsensitiveCompare` and
// `StringLocalizedCompare` with their `build_` functions; swift-foundation builds them only
// into the Darwin framework (`#if FOUNDATION_FRAMEWORK`), so on Linux
// `#Predicate { $0.name.caseInsensitiveCompare(other) == same }` fails to type-check. This
// file supplies the same declarations, with the same names, shape and archive format,
// wherever Darwin's Foundation is absent, as `LocalizedStandardContains.swift` does for
// `localizedStandardContains`. The `ComparisonResult` to compare with must be captured
// (`let same = ComparisonResult.orderedSame`): the macro rejects `.orderedSame` in a predicate.
#if !canImport(Darwin)

extension PredicateExpressions {
    /// An expression that compares two strings ignoring case.
    ///
    /// `#Predicate` produces it for `a.caseInsensitiveCompare(b)`. Foundation on Linux lacks
    /// it, so Strata declares it there; on Darwin Foundation's own type is used.
    public struct StringCaseInsensitiveCompare<
        Root: PredicateExpression,
        Other: PredicateExpression
    >: PredicateExpression
    where
        Root.Output: StringProtocol,
        Other.Output: StringProtocol
    {
        /// The result of the expression: how `root` orders against `other`.
        public typealias Output = ComparisonResult

        /// The expression producing the string on the left.
        public let root: Root

        /// The expression producing the string on the right.
        public let other: Other

        /// Creates an expression that compares `root`'s string with `other`'s, ignoring case.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// Evaluates both operands and compares them with `caseInsensitiveCompare(_:)`.
        ///
        /// - Throws: Whatever evaluating `root` or `other` throws.
        public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            try root.evaluate(bindings).caseInsensitiveCompare(try other.evaluate(bindings))
        }
    }

    /// Builds a ``StringCaseInsensitiveCompare``; `#Predicate` calls this for `caseInsensitiveCompare(_:)`.
    ///
    /// Foundation on Linux lacks it, so Strata declares it there.
    public static func build_caseInsensitiveCompare<Root, Other>(
        _ root: Root,
        _ other: Other
    ) -> StringCaseInsensitiveCompare<Root, Other> {
        StringCaseInsensitiveCompare(root: root, other: other)
    }

    /// An expression that compares two strings in the current locale.
    ///
    /// `#Predicate` produces it for `a.localizedCompare(b)`. Foundation on Linux lacks it, so
    /// Strata declares it there; on Darwin Foundation's own type is used.
    public struct StringLocalizedCompare<
        Root: PredicateExpression,
        Other: PredicateExpression
    >: PredicateExpression
    where
        Root.Output: StringProtocol,
        Other.Output: StringProtocol
    {
        /// The result of the expression: how `root` orders against `other`.
        public typealias Output = ComparisonResult

        /// The expression producing the string on the left.
        public let root: Root

        /// The expression producing the string on the right.
        public let other: Other

        /// Creates an expression that compares `root`'s string with `other`'s in the current locale.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// Evaluates both operands and compares them with `localizedCompare(_:)`.
        ///
        /// - Throws: Whatever evaluating `root` or `other` throws.
        public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            try root.evaluate(bindings).localizedCompare(try other.evaluate(bindings))
        }
    }

    /// Builds a ``StringLocalizedCompare``; `#Predicate` calls this for `localizedCompare(_:)`.
    ///
    /// Foundation on Linux lacks it, so Strata declares it there.
    public static func build_localizedCompare<Root, Other>(
        _ root: Root,
        _ other: Other
    ) -> StringLocalizedCompare<Root, Other> {
        StringLocalizedCompare(root: root, other: other)
    }
}

extension PredicateExpressions.StringCaseInsensitiveCompare: CustomStringConvertible {
    /// A textual form naming the expression and its operands, as Foundation's has.
    public var description: String {
        "StringCaseInsensitiveCompare(root: \(root), other: \(other))"
    }
}

extension PredicateExpressions.StringLocalizedCompare: CustomStringConvertible {
    /// A textual form naming the expression and its operands, as Foundation's has.
    public var description: String {
        "StringLocalizedCompare(root: \(root), other: \(other))"
    }
}

extension PredicateExpressions.StringCaseInsensitiveCompare: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}

extension PredicateExpressions.StringLocalizedCompare: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}

extension PredicateExpressions.StringCaseInsensitiveCompare: Codable where Root: Codable, Other: Codable {
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

extension PredicateExpressions.StringLocalizedCompare: Codable where Root: Codable, Other: Codable {
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

extension PredicateExpressions.StringCaseInsensitiveCompare: Sendable where Root: Sendable, Other: Sendable {}

extension PredicateExpressions.StringLocalizedCompare: Sendable where Root: Sendable, Other: Sendable {}

#endif
