/// The snapshots of related models a fetch sent along: those of prefetched to-many
/// relationships in the order their owners list them, and any others by identifier.
///
/// A prefetch registers its destinations in the order the fetched models list them. A
/// store that reads each prefetched relationship's destination rows in that order (SQLite
/// reads them by owner key, then by their own key, and a fetch without a sort returns its
/// owners by key) hands them over as a list: the core then takes them one after another,
/// without a dictionary filled by the store and probed again by the core for every
/// destination (a hash of its identifier each time, and about 110 bytes of it per
/// destination; ``DataStoreStreamingRelatedInOrder``).
package struct RelatedSnapshots {
    /// Snapshots of destinations of prefetched to-many relationships, by relationship in
    /// the order of the entity's properties, then by owner and member as the owners' lists
    /// name them.
    package var listed: [DefaultSnapshot]
    /// The other related snapshots, by identifier.
    package var others: [PersistentIdentifier: DefaultSnapshot]

    /// Related snapshots as `DataStoreFetchResult` carries them.
    package init(_ others: [PersistentIdentifier: DefaultSnapshot] = [:]) {
        self.listed = []
        self.others = others
    }

    /// The number of snapshots.
    package var count: Int { listed.count + others.count }

    /// Every snapshot by identifier: the form of `DataStoreFetchResult/relatedSnapshots`.
    package var byIdentifier: [PersistentIdentifier: DefaultSnapshot] {
        guard !listed.isEmpty else { return others }
        var all = others
        all.reserveCapacity(count)
        for snapshot in listed { all[snapshot.persistentIdentifier] = snapshot }
        return all
    }

    /// Calls `body` with each snapshot, listed ones first.
    func forEach(_ body: (DefaultSnapshot) -> Void) {
        for snapshot in listed { body(snapshot) }
        for snapshot in others.values { body(snapshot) }
    }
}

/// A store whose streamed fetches hand over the destinations of prefetched to-many
/// relationships in the order their owners list them (``RelatedSnapshots``).
///
/// Within this package: the form of the related snapshots is the core's concern, and a
/// store written against the public protocols returns them by identifier.
package protocol DataStoreStreamingRelatedInOrder: DataStoreStreamingWithChangeCount {
    /// As ``DataStoreStreamingWithChangeCount/fetchWithExternalChangeCount(_:each:)``, with
    /// the related snapshots of prefetched to-many relationships listed in order. `body` may
    /// take each snapshot's values, and the store may reuse the snapshot for the next row.
    ///
    /// - Throws: As ``DataStoreStreaming/fetch(_:each:)``.
    func fetchRelatedInOrder<T: PersistentModel>(
        _ request: DataStoreFetchRequest<T>, each body: (inout DefaultSnapshot) throws -> Void
    ) throws -> (related: RelatedSnapshots, externalChangeCount: Int64?)
}
