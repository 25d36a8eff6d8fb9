/// Declares compound uniqueness constraints for the enclosing model.
///
/// Each array is one constraint: inserting a model whose values for all the key paths of
/// a constraint match a stored model updates that model instead (an upsert).
/// Use one `#Unique` per model.
/// ```swift
/// #Unique<Trip>([\.name, \.startDate, \.endDate])
/// ```
@freestanding(declaration)
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) =
    #externalMacro(module: "StrataMacros", type: "UniqueMacro")

/// Declares binary indexes, single or compound, for the enclosing model.
///
/// ```swift
/// #Index<Trip>([\.name], [\.startDate], [\.name, \.startDate, \.endDate])
/// ```
@freestanding(declaration)
public macro Index<T>(_ indices: [PartialKeyPath<T>]...) =
    #externalMacro(module: "StrataMacros", type: "IndexMacro")

/// Declares indexes of explicit kinds (binary or R-tree) for the enclosing model.
///
/// ```swift
/// #Index<Place>(.binary([\.name]), .rtree([\.latitude, \.longitude]))
/// ```
@freestanding(declaration)
public macro Index<T: PersistentModel>(_ indices: Schema.Index<T>.Types<T>...) =
    #externalMacro(module: "StrataMacros", type: "IndexMacro")
