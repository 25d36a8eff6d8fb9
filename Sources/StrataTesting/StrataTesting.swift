// StrataTesting will hold the store conformance suite (issue B).
// The module has no public API yet; nothing here claims to check a store.
