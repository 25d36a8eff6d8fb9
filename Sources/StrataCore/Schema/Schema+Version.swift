extension Schema {
    /// A semantic version of a schema: major, minor and patch.
    public struct Version: Codable, Hashable, Comparable, Sendable, CustomStringConvertible {
        /// The major version.
        public var major: Int
        /// The minor version.
        public var minor: Int
        /// The patch version.
        public var patch: Int

        /// Creates a version.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        /// `major.minor.patch`.
        public var description: String { "\(major).\(minor).\(patch)" }
    }
}
