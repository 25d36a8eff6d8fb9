// The module apps import: the core and the default SQLite store.
@_exported import StrataCore
@_exported import StrataSQLite
