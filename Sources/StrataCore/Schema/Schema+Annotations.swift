extension Schema {
    /// The kind of an index.
    public enum IndexKind: String, Codable, Hashable, Sendable {
        /// A B-tree index over values, for equality, ranges and sorting.
        case binary
        /// An R-tree index over numeric ranges, for spatial queries.
        case rtree
    }

    /// Compound uniqueness constraints for a model, as `#Unique` declares them.
    public struct Unique<T: PersistentModel> {
        /// Each element is one constraint: the key paths whose values must be unique together.
        public let constraints: [[PartialKeyPath<T>]]

        /// Creates constraints; each array is one constraint.
        public init(_ constraints: [PartialKeyPath<T>]...) {
            self.constraints = constraints
        }
    }

    /// Indexes for a model, as `#Index` declares them.
    public struct Index<T: PersistentModel> {
        /// One index: its kind and the key paths it covers.
        public struct Types<M: PersistentModel> {
            /// The index's kind.
            public let kind: IndexKind
            /// The key paths the index covers, in order.
            public let keyPaths: [PartialKeyPath<M>]

            /// A binary (B-tree) index over `keyPaths`.
            public static func binary(_ keyPaths: [PartialKeyPath<M>]) -> Types { Types(kind: .binary, keyPaths: keyPaths) }
            /// An R-tree index over `keyPaths`.
            public static func rtree(_ keyPaths: [PartialKeyPath<M>]) -> Types { Types(kind: .rtree, keyPaths: keyPaths) }
        }

        /// The declared indexes.
        public let indices: [Types<T>]

        /// Binary indexes, one per array of key paths.
        public init(_ indices: [PartialKeyPath<T>]...) {
            self.indices = indices.map { .binary($0) }
        }

        /// Indexes of explicit kinds.
        public init(_ indices: Types<T>...) {
            self.indices = indices
        }
    }

    /// A model's `#Unique` and `#Index` declarations with their model type erased.
    ///
    /// `@Model` generates `_schemaAnnotations` from them; the schema turns
    /// the key paths into property names.
    public struct ModelAnnotations {
        let uniquenessConstraints: [[AnyKeyPath]]
        let indices: [(kind: IndexKind, keyPaths: [AnyKeyPath])]
        /// The name the entity was stored under before, from `@Model(originalName:)`.
        let originalName: String?

        /// No constraints and no indexes, and the entity's former name if it had one.
        public init(originalName: String? = nil) {
            uniquenessConstraints = []
            indices = []
            self.originalName = originalName
        }

        /// The constraints and indexes of one model type, and the entity's former name if it had one.
        public init<T>(uniquenessConstraints: Unique<T>? = nil, indices: Index<T>? = nil, originalName: String? = nil) {
            self.uniquenessConstraints = uniquenessConstraints?.constraints.map { $0.map { $0 as AnyKeyPath } } ?? []
            self.indices = indices?.indices.map { (kind: $0.kind, keyPaths: $0.keyPaths.map { $0 as AnyKeyPath }) } ?? []
            self.originalName = originalName
        }
    }
}
