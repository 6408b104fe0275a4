import Foundation
import SeedModel
import SeedStore
import SeedTestSupport

/// A shop: a catalog configuration (categories, products, tags) and a notes configuration whose
/// notes a product finds through the fetched property `notes`, as app data links to seed data.
func shopModelJSON(productExtras: String = "", name: String = "Shop") -> String {
    """
    {
      "name": "\(name)", "versionIdentifiers": ["1"],
      "configurations": [{"name": "Catalog", "entities": ["Category", "Product", "Tag"]},
                         {"name": "Archive", "entities": ["Category", "Product", "Tag"]},
                         {"name": "Notes", "entities": ["Note"]}],
      "entities": [
        {"name": "Category",
         "attributes": [{"name": "name", "type": "String", "optional": false}],
         "relationships": [{"name": "products", "destination": "Product", "inverse": "category", "toMany": true, "deleteRule": "Cascade"}],
         "uniquenessConstraints": [["name"]]},
        {"name": "Product",
         "attributes": [{"name": "sku", "type": "String", "optional": false},
                        {"name": "name", "type": "String"},
                        {"name": "price", "type": "Double", "min": "0"},
                        {"name": "stock", "type": "Integer 16", "optional": false, "default": "0"},
                        {"name": "active", "type": "Boolean", "optional": false, "default": "YES"},
                        {"name": "added", "type": "Date"}\(productExtras)],
         "relationships": [{"name": "category", "destination": "Category", "inverse": "products"},
                           {"name": "tags", "destination": "Tag", "inverse": "products", "toMany": true}],
         "fetchedProperties": [{"name": "notes", "entity": "Note", "predicate": "productSKU == $FETCH_SOURCE.sku"}],
         "uniquenessConstraints": [["sku"]]},
        {"name": "Tag",
         "attributes": [{"name": "label", "type": "String", "optional": false}],
         "relationships": [{"name": "products", "destination": "Product", "inverse": "tags", "toMany": true}]},
        {"name": "Note",
         "attributes": [{"name": "productSKU", "type": "String", "optional": false},
                        {"name": "text", "type": "String", "optional": false},
                        {"name": "stars", "type": "Integer 16", "min": "1", "max": "5"}],
         "indexes": [{"name": "bySKU", "elements": [{"property": "productSKU"}]}]}
      ]
    }
    """
}

func shopModel(productExtras: String = "") throws -> Model {
    try ModelLoader.load(json: Data(shopModelJSON(productExtras: productExtras).utf8), source: ModelSource(file: "shop.json"))
}

/// A coordinator over the shop model with a catalog store and a notes store of the given types.
/// SQLite and in-memory stores are laid out in `layout` (atomic stores keep the plain one).
func shopCoordinator(
    _ directory: TemporaryDirectory, catalog: StoreType = .sqlite, notes: StoreType = .sqlite, layout: StoreLayout = .plain
) throws -> StoreCoordinator {
    let coordinator = StoreCoordinator(model: try shopModel())
    try coordinator.addStore(
        StoreDescription(
            type: catalog, url: catalog == .inMemory ? nil : directory.url("catalog.\(catalog.rawValue)"), configuration: "Catalog",
            storeLayout: layout))
    try coordinator.addStore(
        StoreDescription(
            type: notes, url: notes == .inMemory ? nil : directory.url("notes.\(notes.rawValue)"), configuration: "Notes",
            storeLayout: layout))
    return coordinator
}

/// Two categories, five products, two tags, three notes.
@discardableResult
func populateShop(_ context: ObjectContext) throws -> [String: ManagedObject] {
    var objects: [String: ManagedObject] = [:]
    let fruit = try context.insert(entity: "Category")
    fruit["name"] = "Fruit"
    let tools = try context.insert(entity: "Category")
    tools["name"] = "Tools"
    let sale = try context.insert(entity: "Tag")
    sale["label"] = "sale"
    let new = try context.insert(entity: "Tag")
    new["label"] = "new"
    let products: [(String, String?, Double?, Int64, ManagedObject)] = [
        ("A-1", "Apple", 0.5, 10, fruit), ("A-2", "Apricot", 1.25, 0, fruit), ("B-1", "Banana", nil, 3, fruit),
        ("H-1", "Hammer", 12.0, 2, tools), ("S-1", "Śaw", 20.0, 1, tools),
    ]
    for (sku, name, price, stock, category) in products {
        let product = try context.insert(entity: "Product")
        product["sku"] = .text(sku)
        product["name"] = StoreValue(name)
        product["price"] = price.map(StoreValue.real) ?? .null
        product["stock"] = .integer(stock)
        product["added"] = StoreValue(Date(timeIntervalSince1970: 1_700_000_000 + Double(stock) * 86_400))
        try product.setObject(category, forRelationship: "category")
        objects[sku] = product
    }
    try objects["A-1"]!.addObject(sale, toRelationship: "tags")
    try objects["H-1"]!.addObject(sale, toRelationship: "tags")
    try objects["H-1"]!.addObject(new, toRelationship: "tags")
    for (sku, text, stars) in [("A-1", "crisp", 5), ("A-1", "sour", 2), ("H-1", "solid", 4)] {
        let note = try context.insert(entity: "Note")
        note["productSKU"] = .text(sku)
        note["text"] = .text(text)
        note["stars"] = .integer(Int64(stars))
    }
    try context.save()
    return objects
}

extension ObjectContext {
    /// The values of one attribute of the objects a predicate finds, in sort order.
    func strings(
        _ entity: String, _ format: String? = nil, key: String, sort: [FetchSortDescriptor]? = nil, limit: Int? = nil, offset: Int = 0
    ) throws -> [String] {
        let request = FetchRequest(
            entity: entity, predicate: try format.map { try FetchPredicate($0) }, sortDescriptors: sort ?? [FetchSortDescriptor(key)],
            fetchLimit: limit, fetchOffset: offset)
        return try fetch(request).map { try $0.string(key) ?? "nil" }
    }
}

/// A value shared between tasks and threads in a test, behind a lock (`Mutex` needs macOS 15).
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// The shop store with its sample rows, a context on it, and the folder to keep alive while they are used.
func populatedShop() throws -> (ObjectContext, StoreCoordinator, TemporaryDirectory) {
    let directory = TemporaryDirectory()
    let coordinator = try shopCoordinator(directory)
    let context = ObjectContext(coordinator: coordinator)
    try populateShop(context)
    return (context, coordinator, directory)
}
