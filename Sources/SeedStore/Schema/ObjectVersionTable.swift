internal import GRDB

/// The plain layout's version counters for optimistic locking, one row per object changed since it
/// was built (absent rows mean version 1); Core Data's layout keeps them in each row's `Z_OPT`.
enum ObjectVersionTable {
    static let name = "seed_object_version"

    static func create(_ db: Database) throws {
        try db.execute(
            sql:
                "CREATE TABLE \(name) (entity TEXT NOT NULL, key NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (entity, key)) WITHOUT ROWID"
        )
    }
}
