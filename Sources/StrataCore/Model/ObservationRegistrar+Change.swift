import Observation

extension ObservationRegistrar {
    /// Tells the observers of `subject`'s property at `keyPath` that it changed, for a change
    /// made outside the property's setter. `@Model` calls this from
    /// ``PersistentModel/_notifyObservers(ofChangeAt:)``.
    public func _notifyChange<Subject: Observable>(of subject: Subject, at keyPath: AnyKeyPath) {
        func notify<Value>(_: Value.Type) {
            guard let keyPath = keyPath as? KeyPath<Subject, Value> else { return }
            withMutation(of: subject, keyPath: keyPath) {}
        }
        _openExistential(type(of: keyPath).valueType, do: notify)
    }
}
