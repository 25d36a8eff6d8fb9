import SwiftSyntax

/// Whether a `@Model` class inherits from another model class, read from its inheritance clause.
///
/// A macro sees syntax, not types, so the first inherited type is taken for a model
/// superclass unless it is a protocol a model commonly adopts (`Identifiable`, `Codable`,
/// `Sendable`, ...) or is named like one (`...able`, `...ible`, `...Protocol`,
/// `...Convertible`). "Differences from SwiftData" documents the rule.
enum ModelSuperclass {
    /// Protocols model classes adopt, which are never superclasses.
    private static let knownProtocols: Set<String> = [
        "PersistentModel", "Observable", "Identifiable", "Hashable", "Equatable", "Comparable", "Codable",
        "Decodable", "Encodable", "Sendable", "SendableMetatype", "AnyObject", "CustomStringConvertible",
        "CustomDebugStringConvertible", "ObservableObject", "Transferable", "RawRepresentable", "CaseIterable",
        "Error", "LocalizedError",
    ]

    private static let protocolSuffixes = ["able", "ible", "Protocol", "Convertible"]

    /// The name of the model superclass of `classDecl` as written (`Component`, `Shapes.Shape`), or `nil`.
    static func name(of classDecl: ClassDeclSyntax) -> String? {
        guard let first = classDecl.inheritanceClause?.inheritedTypes.first?.type else { return nil }
        let simple: String
        if let identifier = first.as(IdentifierTypeSyntax.self) {
            guard identifier.genericArgumentClause == nil else { return nil }
            simple = identifier.name.text
        } else if let member = first.as(MemberTypeSyntax.self) {
            guard member.genericArgumentClause == nil else { return nil }
            simple = member.name.text
        } else {
            return nil  // `@unchecked Sendable`, compositions, ...
        }
        if knownProtocols.contains(simple) || protocolSuffixes.contains(where: simple.hasSuffix) { return nil }
        return first.trimmedDescription
    }
}
