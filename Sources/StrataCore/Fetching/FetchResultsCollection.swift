/// The results of a batched fetch: identifiers are fetched at once, models a batch at a
/// time as you index into the collection.
///
/// Models deleted by another context between batches are skipped, so the collection can
/// end earlier than its count said when iteration began. Iterating it (`for model in
/// results`, `forEach`, `Array(results)`, `map`, `filter`, `sorted`) never reads past the
/// end. Indexing up to a count read beforehand can: like an array's, a position past the
/// end traps, and so may generic code that relies on a collection's count staying put.
public struct FetchResultsCollection<Element>: RandomAccessCollection {
    let loader: BatchLoader<Element>

    /// Steps through the results a batch at a time, ending where the results end now.
    public struct Iterator: IteratorProtocol {
        let loader: BatchLoader<Element>
        var position = 0

        /// The next result, or `nil` past the last one left.
        public mutating func next() -> Element? {
            guard let element = loader.elementIfPresent(at: position) else { return nil }
            position += 1
            return element
        }
    }

    /// An iterator over the results that skips models deleted since the fetch.
    public func makeIterator() -> Iterator { Iterator(loader: loader) }

    /// The position of the first result.
    public var startIndex: Int { 0 }
    /// The position after the last result.
    public var endIndex: Int { loader.count }

    /// The result at `position`, loading its batch if needed.
    public subscript(position: Int) -> Element {
        loader.element(at: position)
    }

    /// The results left, in order: what `Array(results)` and `sorted()` copy. Unlike the
    /// standard library's copy, it does not require as many results as `count` said first.
    public func _copyToContiguousArray() -> ContiguousArray<Element> {
        var copy = ContiguousArray<Element>()
        copy.reserveCapacity(count)
        for element in self { copy.append(element) }
        return copy
    }

    /// The results left, each transformed, in order; a model deleted since the fetch is
    /// skipped, as iteration skips it.
    ///
    /// - Throws: What `transform` throws.
    public func map<T, E: Error>(_ transform: (Element) throws(E) -> T) throws(E) -> [T] {
        var mapped: [T] = []
        mapped.reserveCapacity(count)
        for element in self { mapped.append(try transform(element)) }
        return mapped
    }
}

/// Loads and keeps the current batch of a ``FetchResultsCollection``.
///
/// When a batch comes back short (its models were deleted since the identifiers were
/// read), the missing identifiers are dropped and later positions move up.
final class BatchLoader<Element> {
    /// Loads the elements of some identifiers; `previous` names the batch being let go.
    typealias Load = ([PersistentIdentifier], _ previous: [PersistentIdentifier]) throws -> [Element]

    private var identifiers: [PersistentIdentifier]
    private let batchSize: Int
    private let load: Load
    private var batchStart = -1
    private var batch: [Element] = []

    init(identifiers: [PersistentIdentifier], batchSize: Int, load: @escaping Load) {
        self.identifiers = identifiers
        self.batchSize = batchSize
        self.load = load
    }

    var count: Int { identifiers.count }

    func element(at position: Int) -> Element {
        guard let element = elementIfPresent(at: position) else {
            preconditionFailure("Strata: position \(position) is past the end of the batched fetch's \(count) result(s); models deleted since the fetch are skipped, so iterate the results rather than indexing up to an earlier count")
        }
        return element
    }

    /// The element at `position`, or `nil` when the results, short of models deleted since
    /// the fetch, end before it.
    func elementIfPresent(at position: Int) -> Element? {
        guard position >= 0, position < identifiers.count else { return nil }
        let start = (position / batchSize) * batchSize
        if start != batchStart || position - start >= batch.count {
            loadBatch(at: start)
        }
        // Loading drops vanished models, and later positions move up into this batch.
        guard position - start < batch.count else { return nil }
        return batch[position - start]
    }

    /// The identifiers of the previous batch that the next one does not reload.
    private func released(_ previous: [PersistentIdentifier], keeping wanted: [PersistentIdentifier]) -> [PersistentIdentifier] {
        let kept = Set(wanted)
        return previous.filter { !kept.contains($0) }
    }

    private func loadBatch(at start: Int) {
        let previous = batchStart >= 0 ? Array(identifiers[batchStart..<min(batchStart + batch.count, identifiers.count)]) : []
        batch = []
        batchStart = start
        while start < identifiers.count {
            let wanted = Array(identifiers[start..<min(start + batchSize, identifiers.count)])
            let loaded: [Element]
            do {
                loaded = try load(wanted, self.released(previous, keeping: wanted))
            } catch {
                StrataLog.logger.error("a batched fetch ended early: loading \(wanted.count) model(s) failed: \(error)")
                identifiers.removeSubrange(start...)
                return
            }
            if loaded.count == wanted.count {
                batch = loaded
                return
            }
            // Some models are gone: keep the identifiers of what loaded and try the rest.
            let present = Set(loaded.compactMap { ($0 as? any PersistentModel)?.persistentModelID ?? ($0 as? PersistentIdentifier) })
            identifiers.removeSubrange(start..<start + wanted.count)
            identifiers.insert(contentsOf: wanted.filter { present.contains($0) }, at: start)
            if loaded.count > 0 || start >= identifiers.count {
                batch = loaded
                if batch.count < batchSize && start + batch.count < identifiers.count { continue }
                return
            }
        }
    }
}
