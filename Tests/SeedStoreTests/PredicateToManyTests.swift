import Foundation
import GRDB
import SeedModel
import SeedTestSupport
import Testing

@testable import SeedStore

/// To-many key paths, `ANY`/`ALL`/`NONE`, aggregates, `SUBQUERY`, `SELF`, objects as arguments and
/// `MATCHES` on the shop's rows (see `populateShop`): Fruit holds A-1 (Apple, 0.5, stock 10),
/// A-2 (Apricot, 1.25, 0) and B-1 (Banana, no price, 3); Tools holds H-1 (Hammer, 12.0, 2) and
/// S-1 (Śaw, 20.0, 1). Tag sale is on A-1 and H-1, tag new on H-1. Products → category is a
/// foreign-key column; products ↔ tags a join table. Every expected result is worked out by hand.
@Suite("Predicates through to-many relationships")
struct PredicateToManyTests {
    static let categoryForms: [(String, [String])] = [
        ("ANY products.price > 10", ["Tools"]),
        ("SOME products.name BEGINSWITH 'Ap'", ["Fruit"]),
        ("products.price > 15", ["Tools"]),
        ("ALL products.price > 1", ["Tools"]),
        ("ALL products.stock >= 0", ["Fruit", "Tools"]),
        ("NONE products.price > 10", ["Fruit"]),
        ("NOT ANY products.price > 10", ["Fruit"]),
        ("ANY products.name ==[cd] 'saw'", ["Tools"]),
        ("ANY products.name == 'saw'", []),
        ("ANY products.name IN {'Hammer', 'Kiwi'}", ["Tools"]),
        ("ANY products.name IN[c] {'HAMMER'}", ["Tools"]),
        ("ANY products.price BETWEEN {1, 2}", ["Fruit"]),
        ("ALL products.price BETWEEN {10, 20}", ["Tools"]),
        ("ANY products.name CONTAINS[c] 'RIC'", ["Fruit"]),
        ("ANY products.name ENDSWITH 'er'", ["Tools"]),
        ("ANY products.name LIKE '?a*'", ["Fruit", "Tools"]),
        ("ANY products.sku == 'B-1' AND ANY products.sku == 'A-1'", ["Fruit"]),
        ("products.@count == 3", ["Fruit"]),
        ("products.@count < 3", ["Tools"]),
        ("products.@sum.stock == 13", ["Fruit"]),
        ("@sum.products.stock == 3", ["Tools"]),
        // @avg counts a nil price as 0: (0.5 + 1.25 + 0) / 3.
        ("products.@avg.price < 0.6", ["Fruit"]),
        ("products.@avg.price == 16", ["Tools"]),
        ("products.@min.stock == 0", ["Fruit"]),
        ("products.@max.price == 20", ["Tools"]),
        ("products.@max.price > products.@min.price", ["Fruit", "Tools"]),
        // Distinct non-nil values, as a set of values is.
        ("products.name.@count == 3", ["Fruit"]),
        ("products.price.@count == 2", ["Fruit", "Tools"]),
        // After the attribute, an aggregate reads the distinct non-nil values: Fruit's 0.5 and 1.25.
        ("products.price.@sum == 1.75", ["Fruit"]),
        ("products.price.@avg == 0.875", ["Fruit"]),
        ("products.stock.@max == products.@max.stock", ["Fruit", "Tools"]),
        ("SUBQUERY(products, $p, $p.stock > 1).@count == 2", ["Fruit"]),
        // Inside SUBQUERY, plain key paths are the element.
        ("SUBQUERY(products, $p, $p.price > 10 AND stock < 2).@count > 0", ["Tools"]),
        ("SUBQUERY(products, $p, ANY $p.tags.label == 'new').@count == 1", ["Tools"]),
        ("SUBQUERY(products, $p, $p.tags.@count == 0).@count == 2", ["Fruit"]),
        // Through two to-many relationships (the second a join table); ALL over every tag reached.
        ("ANY products.tags.label == 'new'", ["Tools"]),
        ("ALL products.tags.label == 'sale'", ["Fruit"]),
        ("products.tags.@count == 1", ["Fruit"]),
        ("products.tags.label.@count == 2", ["Tools"]),
        // Each element once, as key-value coding collects a set: Tools reaches H-1 through both
        // its tags, yet counts A-1 and H-1 once each (3 and 14 if counted per path).
        ("products.tags.products.@count == 2", ["Fruit", "Tools"]),
        ("products.tags.products.@sum.stock == 12", ["Fruit", "Tools"]),
        ("SUBQUERY(products.tags.products, $p, $p.stock > 1).@count == 2", ["Fruit", "Tools"]),
        // MATCHES is an ICU expression over the whole string.
        ("ANY products.name MATCHES 'A.*t'", ["Fruit"]),
        ("ANY products.name MATCHES 'pp'", []),
        ("ANY products.name MATCHES[c] 'h.*R'", ["Tools"]),
        ("ANY products.name MATCHES[cd] 's.w'", ["Tools"]),
    ]

    static let productForms: [(String, [String])] = [
        ("ANY tags.label == 'sale'", ["A-1", "H-1"]),
        ("tags.label == 'new'", ["H-1"]),
        ("tags.@count == 0", ["A-2", "B-1", "S-1"]),
        ("tags.@count >= 2", ["H-1"]),
        ("NONE tags.label == 'sale'", ["A-2", "B-1", "S-1"]),
        ("ALL tags.label == 'sale'", ["A-1", "A-2", "B-1", "S-1"]),
        ("'new' IN tags.label", ["H-1"]),
        ("'NEW' IN[c] tags.label", ["H-1"]),
        ("category.products.@count == 2", ["H-1", "S-1"]),
        ("ANY category.products.sku == 'B-1'", ["A-1", "A-2", "B-1"]),
        ("category.#name == 'Fruit' AND SELF.stock > 2", ["A-1", "B-1"]),
        ("name MATCHES 'A.*'", ["A-1", "A-2"]),
        ("name MATCHES 'Ap|Apple'", ["A-1"]),
        ("name MATCHES '[a-z]+'", []),
        ("name MATCHES[c] '[a-z]+'", ["A-1", "A-2", "B-1", "H-1"]),
        ("name MATCHES[cd] '[a-z]+'", ["A-1", "A-2", "B-1", "H-1", "S-1"]),
        ("NOT name MATCHES 'A.*'", ["B-1", "H-1", "S-1"]),
    ]

    static let tagForms: [(String, [String])] = [
        // The other side of the join table.
        ("ANY products.sku == 'H-1'", ["new", "sale"]),
        ("products.@count == 2", ["sale"]),
        ("ANY products.category.name == 'Fruit'", ["sale"]),
        ("products.@sum.price == 12.5", ["sale"]),
        // A to-one between two to-many relationships joins inside the subquery.
        ("ANY products.category.products.sku == 'B-1'", ["sale"]),
        ("products.category.products.@count == 5", ["sale"]),
    ]

    /// Atomic (binary) stores keep the plain layout, whatever the description asks.
    static let storesAndLayouts: [(StoreType, StoreLayout)] = [
        (.sqlite, .plain), (.sqlite, .coreData), (.inMemory, .plain), (.inMemory, .coreData), (.binary, .plain),
    ]

    @Test(arguments: storesAndLayouts)
    func formsOnRealRows(type: StoreType, layout: StoreLayout) throws {
        let directory = TemporaryDirectory()
        let context = ObjectContext(coordinator: try shopCoordinator(directory, catalog: type, notes: type, layout: layout))
        try populateShop(context)
        for (entity, key, forms) in [
            ("Category", "name", Self.categoryForms), ("Product", "sku", Self.productForms), ("Tag", "label", Self.tagForms),
        ] {
            for (format, expected) in forms {
                let predicate = try FetchPredicate(format)
                #expect(try context.strings(entity, format, key: key) == expected, "\(entity): \(format)")
                #expect(try context.count(FetchRequest(entity: entity, predicate: predicate)) == expected.count, "count \(format)")
                #expect(
                    try FetchPredicate(predicate.description) == predicate,
                    "\(format) prints as \(predicate.description), which parses back")
            }
        }
    }

    @Test(arguments: [StoreType.sqlite, .inMemory], StoreLayout.allCases)
    func objectsAsArguments(type: StoreType, layout: StoreLayout) throws {
        let directory = TemporaryDirectory()
        let context = ObjectContext(coordinator: try shopCoordinator(directory, catalog: type, notes: type, layout: layout))
        let products = try populateShop(context)
        func skus(_ format: String, _ arguments: any PredicateArgumentConvertible...) throws -> [String] {
            let predicate = try FetchPredicate(format, arguments: arguments.map(\.predicateArgument))
            return try context.fetch(FetchRequest(entity: "Product", predicate: predicate, sortDescriptors: [FetchSortDescriptor("sku")]))
                .map { try $0.string("sku") ?? "nil" }
        }
        let hammer = products["H-1"]!
        let tools = try hammer.object(forRelationship: "category")!
        let new = try context.fetch(FetchRequest(entity: "Tag", predicate: FetchPredicate("label == 'new'")))[0]
        #expect(try skus("SELF == %@", hammer) == ["H-1"])
        #expect(try skus("SELF != %@", hammer) == ["A-1", "A-2", "B-1", "S-1"])
        #expect(try skus("SELF IN %@", [products["A-1"]!, products["S-1"]!]) == ["A-1", "S-1"])
        #expect(try skus("SELF IN %@ OR sku == %@", [products["A-2"]!.objectID], "B-1") == ["A-2", "B-1"])
        #expect(try skus("category == %@", tools) == ["H-1", "S-1"])
        #expect(try skus("category != %@", tools) == ["A-1", "A-2", "B-1"])
        #expect(try skus("%@ IN tags", new) == ["H-1"])
        #expect(try skus("tags CONTAINS %@", new) == ["H-1"])
        #expect(try skus("ANY tags == %@", new) == ["H-1"])
        #expect(try skus("NONE tags == %@", new) == ["A-1", "A-2", "B-1", "S-1"])
        #expect(try skus("SUBQUERY(tags, $t, $t == %@).@count == 1", new) == ["H-1"])
        // An object of another entity, or not yet saved, equals nothing here.
        #expect(try skus("SELF == %@", tools) == [])
        #expect(try skus("category == %@", hammer) == [])
        let unsaved = try context.insert(entity: "Product")
        #expect(try skus("SELF == %@", unsaved) == [])
        #expect(try skus("SELF != %@", unsaved).count == 5)
        #expect(try skus("SELF IN %@", [unsaved, hammer]) == ["H-1"])
        let wrong = #expect(throws: FetchPredicateError.self) { try skus("sku == %@", hammer) }
        #expect(wrong?.message.contains("sku is not an object") == true, "\(wrong?.message ?? "")")
        let order = #expect(throws: FetchPredicateError.self) { try skus("SELF > %@", hammer) }
        #expect(order?.message.contains("objects can only be compared with ==, != or IN") == true)
    }

    @Test(arguments: StoreLayout.allCases)
    func errorsNameTheProblem(_ layout: StoreLayout) throws {
        let directory = TemporaryDirectory()
        let context = ObjectContext(coordinator: try shopCoordinator(directory, layout: layout))
        try populateShop(context)
        let cases: [(String, String)] = [
            ("ALL category.name == 'x'", "ALL needs a key path through a to-many relationship"),
            ("name.@count == 1", "@count needs a key path through a to-many relationship"),
            ("tags.@sum == 1", "@sum needs an attribute of the elements after it, as in items.@sum.price"),
            ("tags.@count.label == 1", "@count ends a key path"),
            ("SUBQUERY(tags, $t, $t.label == 'x') == 1", "follow it with .@count"),
            (
                "SUBQUERY(category, $c, $c.name == 'x').@count == 1",
                "the collection of SUBQUERY must be a key path ending at a to-many relationship"
            ),
            (
                "SUBQUERY(tags.@count.products, $c, $c.sku == 'x').@count == 1",
                "the collection of SUBQUERY must be a key path ending at a to-many relationship"
            ),
            ("tags.@sum.label.@max == 1", "has more than one aggregate"),
            ("tags.colour == 'x'", "Tag has no attribute or relationship named \"colour\""),
            ("sku IN name", "IN needs a list"),
        ]
        for (format, message) in cases {
            let error = #expect(throws: FetchPredicateError.self, "\(format)") { try context.strings("Product", format, key: "sku") }
            #expect(error?.message.contains(message) == true, "\(format): \(error?.message ?? "")")
        }
        let sort = #expect(throws: FetchPredicateError.self) {
            try context.strings("Product", key: "sku", sort: [FetchSortDescriptor("tags.label")])
        }
        #expect(sort?.message.contains("goes through a to-many relationship") == true)
        let regex = #expect(throws: (any Error).self) { try context.strings("Product", "name MATCHES 'a('", key: "sku") }
        #expect("\(regex.map { String(describing: $0) } ?? "")".contains("not a valid ICU regular expression"))
    }

    /// A sort key may be an aggregate of a to-many: categories by how many products they hold.
    @Test(arguments: StoreLayout.allCases)
    func sortingByAnAggregate(_ layout: StoreLayout) throws {
        let directory = TemporaryDirectory()
        let context = ObjectContext(coordinator: try shopCoordinator(directory, layout: layout))
        try populateShop(context)
        #expect(try context.strings("Category", key: "name", sort: [FetchSortDescriptor("products.@count")]) == ["Tools", "Fruit"])
        #expect(
            try context.strings("Category", key: "name", sort: [FetchSortDescriptor("products.@max.price", ascending: false)]) == [
                "Tools", "Fruit",
            ])
        #expect(
            try context.strings("Tag", key: "label", sort: [FetchSortDescriptor("products.@sum.stock", ascending: false)]) == [
                "sale", "new",
            ])
    }

    /// `$FETCH_SOURCE` alone is the object, so a fetched property can ask for its own to-many.
    @Test func fetchedPropertiesUseTheSameForms() throws {
        let json = shopModelJSON().replacingOccurrences(
            of: #""uniquenessConstraints": [["name"]]},"#,
            with:
                #""fetchedProperties": [{"name": "taggedProducts", "entity": "Product", "predicate": "category == $FETCH_SOURCE AND tags.@count > 0"}, {"name": "busyTags", "entity": "Tag", "predicate": "SUBQUERY(products, $p, $p.category == $FETCH_SOURCE AND $p.stock < 5).@count > 0"}], "uniquenessConstraints": [["name"]]},"#
        )
        let model = try ModelLoader.load(json: Data(json.utf8), source: ModelSource(file: "shop.json"))
        let directory = TemporaryDirectory()
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(StoreDescription(type: .sqlite, url: directory.url("catalog.sqlite"), configuration: "Catalog"))
        try coordinator.addStore(StoreDescription(type: .sqlite, url: directory.url("notes.sqlite"), configuration: "Notes"))
        let context = ObjectContext(coordinator: coordinator)
        try populateShop(context)
        let categories = try context.fetch(FetchRequest(entity: "Category", sortDescriptors: [FetchSortDescriptor("name")]))
        #expect(
            try categories.map { try $0.fetchedObjects("taggedProducts").compactMap { try $0.string("sku") }.sorted() } == [
                ["A-1"], ["H-1"],
            ])
        // Fruit's tagged product A-1 has stock 10; Tools' tagged product H-1 has stock 2 and both tags.
        #expect(
            try categories.map { try $0.fetchedObjects("busyTags").compactMap { try $0.string("label") }.sorted() } == [
                [], ["new", "sale"],
            ])
    }

    /// The subqueries read the to-many's foreign-key index and the join table's key, as a
    /// hand-written query would.
    @Test func subqueriesUseTheIndexes() throws {
        let directory = TemporaryDirectory()
        let context = ObjectContext(coordinator: try shopCoordinator(directory))
        try populateShop(context)
        let schema = try StoreSchema(model: try shopModel(), configuration: "Catalog")
        func plan(_ entity: String, _ format: String) throws -> String {
            let table = try #require(schema.table(for: entity))
            let compiled = try PredicateSQL(try FetchPredicate(format), table: table, schema: schema, format: format)
            let sql =
                "SELECT t0.* FROM \(quoteIdentifier(table.name)) AS t0 " + compiled.joins.joined(separator: " ") + " WHERE "
                + compiled.whereClause
            let queue = try DatabaseQueue(path: directory.url("catalog.SQLite").path)
            defer { try? queue.close() }
            return try queue.read { db in
                PredicateFunctions.register(in: db)
                return try Row.fetchAll(
                    db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(compiled.arguments.map(\.databaseValue))
                )
                .map { $0["detail"] as String? ?? "" }.joined(separator: "\n")
            }
        }
        let foreignKey = try plan("Category", "ANY products.price > 10")
        #expect(foreignKey.contains("USING INDEX Product_category_index"), "\(foreignKey)")
        let count = try plan("Category", "products.@count == 3")
        #expect(count.contains("USING COVERING INDEX Product_category_index"), "\(count)")
        let join = try plan("Product", "ANY tags.label == 'new'")
        #expect(join.contains("USING PRIMARY KEY (source=?)"), "\(join)")
        let inverse = try plan("Tag", "products.@count == 2")
        #expect(inverse.contains("Product_tags_destination"), "\(inverse)")
    }
}

/// An inheritance tree shares one table: a to-many whose destination is a sub-entity reads only
/// that entity's rows, though its sibling's rows sit in the same table and column.
@Suite("Predicates through to-many relationships into an inheritance tree")
struct PredicateTreeTests {
    static let json = """
        {
          "name": "Library", "versionIdentifiers": ["1"],
          "entities": [
            {"name": "Shelf", "attributes": [{"name": "label", "type": "String", "optional": false}],
             "relationships": [{"name": "novels", "destination": "Novel", "inverse": "shelf", "toMany": true},
                               {"name": "manuals", "destination": "Manual", "inverse": "shelf", "toMany": true}]},
            {"name": "Book", "abstract": true, "attributes": [{"name": "title", "type": "String", "optional": false},
                                                              {"name": "pages", "type": "Integer 32"}]},
            {"name": "Novel", "parentEntity": "Book",
             "relationships": [{"name": "shelf", "destination": "Shelf", "inverse": "novels"}]},
            {"name": "Manual", "parentEntity": "Book",
             "relationships": [{"name": "shelf", "destination": "Shelf", "inverse": "manuals"}]}
          ]
        }
        """

    @Test(arguments: [StoreType.sqlite, .inMemory])
    func toManyIntoASubEntityReadsOnlyItsRows(type: StoreType) throws {
        let directory = TemporaryDirectory()
        let model = try ModelLoader.load(json: Data(Self.json.utf8), source: ModelSource(file: "library.json"))
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(StoreDescription(type: type, url: type == .inMemory ? nil : directory.url("library.sqlite")))
        let context = ObjectContext(coordinator: coordinator)
        let (a, b) = (try context.insert(entity: "Shelf"), try context.insert(entity: "Shelf"))
        a["label"] = "A"
        b["label"] = "B"
        // Shelf A: novels Emma (400 pages), manuals Unix (900) and Vi (50). Shelf B: manual Git (300).
        for (entity, title, pages, shelf) in [
            ("Novel", "Emma", 400, a), ("Manual", "Unix", 900, a), ("Manual", "Vi", 50, a), ("Manual", "Git", 300, b),
        ] {
            let book = try context.insert(entity: entity)
            book["title"] = .text(title)
            book["pages"] = .integer(Int64(pages))
            try book.setObject(shelf, forRelationship: "shelf")
        }
        try context.save()
        let forms: [(String, [String])] = [
            ("novels.@count == 1", ["A"]),
            ("manuals.@count == 2", ["A"]),
            ("novels.@count == 0", ["B"]),
            ("ANY novels.pages > 500", []),
            ("ANY manuals.pages > 500", ["A"]),
            ("ALL novels.pages > 100", ["A", "B"]),
            ("ALL manuals.pages > 100", ["B"]),
            ("novels.@sum.pages == 400", ["A"]),
            ("manuals.@max.pages == 300", ["B"]),
            ("SUBQUERY(manuals, $m, $m.title BEGINSWITH 'V').@count == 1", ["A"]),
            ("SUBQUERY(novels, $n, $n.title BEGINSWITH 'V').@count == 1", []),
        ]
        for (format, expected) in forms {
            #expect(try context.strings("Shelf", format, key: "label") == expected, "\(format)")
        }
    }
}
