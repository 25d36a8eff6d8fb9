// Generated model code names `Observation.ObservationRegistrar`; re-exporting the module lets
// a file that imports only Strata compile its `@Model` classes.
@_exported import Observation
