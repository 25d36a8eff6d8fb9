import Foundation

/// Which properties of a table a snapshot lists, and their values: every property for an
/// insert or a full update, only the changed ones for a partial update.
package struct SnapshotColumns {
    package let snapshot: DefaultSnapshot
    /// The listed columns, as indices into `table.columns`, in increasing order.
    package let columns: [Int]
    /// For each slot of the table, the index of its value in the snapshot, or `nil` when not listed.
    private let positions: [Int?]
    /// The slot of each column of the table.
    private let columnSlots: [Int]

    /// Which of a table's properties and columns a list of property names holds.
    package struct Listing {
        /// For each slot of the table, the index of its value in the snapshot, or `nil` when not listed.
        package let positions: [Int?]
        /// The listed columns, as indices into `table.columns`, in increasing order.
        package let columns: [Int]

        package init(_ names: [String], table: RelationalSchemaMapping.Table) {
            if names == table.propertyNames {
                // Shared with the table, so a snapshot of every property allocates nothing here.
                positions = table.everySlot
                columns = table.everyColumn
            } else {
                var index: [String: Int] = [:]
                for (position, name) in names.enumerated() where index[name] == nil { index[name] = position }
                let listed = table.propertyNames.map { index[$0] }
                positions = listed
                columns = table.columns.indices.filter { listed[table.columns[$0].slot] != nil }
            }
        }
    }

    package init(_ snapshot: DefaultSnapshot, table: RelationalSchemaMapping.Table, listing: Listing? = nil) {
        self.snapshot = snapshot
        columnSlots = table.columnSlots
        let listing = listing ?? Listing(snapshot.propertyNames, table: table)
        positions = listing.positions
        columns = listing.columns
    }

    /// The value of property `slot`, or `nil` when the snapshot does not list it.
    package func value(ofProperty slot: Int) -> PersistentValue? {
        positions[slot].map { snapshot[index: $0] }
    }

    /// The value of column `index` of the table, or `nil` when the snapshot does not list it.
    package func value(ofColumn index: Int) -> PersistentValue? {
        value(ofProperty: columnSlots[index])
    }
}
