import Foundation
import GRDB
import SeedModel
import SeedPipeline
import SeedStore
import SeedTestSupport

/// Runs a query against a built store opened read-only, in the plain layout's tables: a store in
/// Core Data's layout (the builder's default) is read through its plain conversion in the runtime's
/// forms, so one query checks what either layout holds.
func query<T>(_ path: String, _ body: (Database) throws -> T) throws -> T {
    guard try StoreFile.layout(at: path) == .coreData else { return try StoreDatabase.openReadOnly(path).read(body) }
    let plain = FileManager.default.temporaryDirectory.appendingPathComponent("plain-view-\(UUID().uuidString).sqlite").path
    defer { try? FileManager.default.removeItem(atPath: plain) }
    try LayoutConversion.convert(path, to: .plain, output: plain, keepingCoreDataLayout: false)
    let queue = try StoreDatabase.openReadOnly(plain)
    defer { try? queue.close() }
    return try queue.read(body)
}

/// The content digest of a store's tables as they are, in its own layout, read back.
func storedDigest(_ path: String) throws -> String {
    try StoreDatabase.openReadOnly(path).read { db in try ContentDigest.compute(db, schema: StoreDatabase.embeddedSchema(db, path: path)) }
}
