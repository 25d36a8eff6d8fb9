// StrataMemory will hold MemoryStore, the in-memory reference store (issue B).
// The module has no public API yet; nothing here claims to store anything.
