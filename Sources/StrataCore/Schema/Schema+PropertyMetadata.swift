extension Schema {
    /// One persisted property of a model as `@Model` describes it: name, key path, default
    /// value and the options from its `@Attribute` or `@Relationship` macro.
    public struct PropertyMetadata {
        /// The property's name.
        public var name: String
        /// The key path of the property on its model.
        public var keypath: AnyKeyPath
        /// The property's default value, if its declaration has one.
        public var defaultValue: Any?
        /// A ``Schema/Attribute`` or ``Schema/Relationship`` with the declared options, or `nil`.
        public var metadata: Any?

        /// Creates metadata for one property.
        public init(name: String, keypath: AnyKeyPath, defaultValue: Any?, metadata: Any?) {
            self.name = name
            self.keypath = keypath
            self.defaultValue = defaultValue
            self.metadata = metadata
        }
    }
}
