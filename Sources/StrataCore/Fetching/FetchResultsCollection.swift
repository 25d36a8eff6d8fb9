/// The results of a batched fetch: identifiers are fetched at once, models a batch at a
/// time as you index into the collection.
public struct FetchResultsCollection<Element>: RandomAccessCollection {
    let identifiers: [PersistentIdentifier]
    let batchSize: Int
    let loader: BatchLoader<Element>

    /// The position of the first result.
    public var startIndex: Int { 0 }
    /// The position after the last result.
    public var endIndex: Int { identifiers.count }

    /// The result at `position`, loading its batch if needed.
    public subscript(position: Int) -> Element {
        loader.element(at: position, identifiers: identifiers, batchSize: batchSize)
    }
}

/// Loads and keeps the current batch of a ``FetchResultsCollection``.
final class BatchLoader<Element> {
    private let load: ([PersistentIdentifier]) -> [Element]
    private var batchStart = -1
    private var batch: [Element] = []

    init(load: @escaping ([PersistentIdentifier]) -> [Element]) {
        self.load = load
    }

    func element(at position: Int, identifiers: [PersistentIdentifier], batchSize: Int) -> Element {
        let start = (position / batchSize) * batchSize
        if start != batchStart {
            batch = load(Array(identifiers[start..<min(start + batchSize, identifiers.count)]))
            batchStart = start
        }
        return batch[position - start]
    }
}
