/// How a store file lays its entities out in SQLite.
///
/// - ``coreData``: Apple Core Data's own layout (`Z`-prefixed tables, `Z_PK`/`Z_ENT`/`Z_OPT`,
///   `Z_PRIMARYKEY`, `Z_METADATA`), which a Core Data app can add to its coordinator.
/// - ``plain``: seedbuild's compact layout: tables and columns named as the model names them,
///   keyed tables `WITHOUT ROWID`, metadata in `seed_metadata`.
///
/// `docs/store-format.md` describes both.
public enum StoreLayout: String, Sendable, CaseIterable, Codable {
    case plain
    case coreData = "coredata"

    /// The name users type: `plain` or `coredata`.
    public var name: String { rawValue }
}
