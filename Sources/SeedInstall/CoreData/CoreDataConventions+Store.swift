extension CoreDataConventions {
    /// The store's tables and views named as Core Data names join tables (`Z_<n><REL>`), each a table
    /// or a view (``joinTableNames``); empty in the plain layout.
    package static func joinTableNames(in store: StoreConnection) throws(StoreError) -> [String: JoinTableObject] {
        var names: [String: JoinTableObject] = [:]
        try store.forEachRow("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') AND name GLOB 'Z_[0-9]*[A-Z]*'") { row in
            if case .text(let name) = row.value(0), case .text(let type) = row.value(1) { names[name] = type == "view" ? .view : .table }
        }
        return names
    }
}
