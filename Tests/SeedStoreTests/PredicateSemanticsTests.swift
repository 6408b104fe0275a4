import Foundation
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

/// NSPredicate's results on real rows where a naive SQL translation differs: Decimals compared and
/// sorted as numbers, `LIKE` escapes, integer literals in other bases, and empty strings after the
/// string operators. Every expected result is worked out by hand from the rows below.
@Suite("Predicate semantics: NSPredicate's results on real rows")
struct PredicateSemanticsTests {
    /// sku, name, cost (a Decimal: text, or a Double given to the context), stock.
    static let rows: [(String, String?, StoreValue, Int64)] = [
        ("P-1", "a*b", .text("10.5"), 30),
        ("P-2", "axxb", .text("5"), 15),
        ("P-3", "a\\b", .real(9.75), 5),
        ("P-4", nil, .text("100"), 0),
        ("P-5", "ab?", .null, 2),
        ("P-6", "", .text("-2.5"), 1),
    ]

    static let forms: [(String, [String])] = [
        // As text, "10.5" and "100" sort before "5" and "9.75" after it: text would find only P-3.
        ("cost > 5", ["P-1", "P-3", "P-4"]),
        ("cost < 10", ["P-2", "P-3", "P-6"]),
        ("cost >= 9.75", ["P-1", "P-3", "P-4"]),
        ("cost <= -2.5", ["P-6"]),
        ("cost == 5", ["P-2"]),
        ("cost == 10.5", ["P-1"]),
        ("cost != 5", ["P-1", "P-3", "P-4", "P-5", "P-6"]),
        ("cost == nil", ["P-5"]),
        ("cost BETWEEN {5, 10}", ["P-2", "P-3"]),
        ("cost IN {100, 9.75}", ["P-3", "P-4"]),
        ("cost IN {5, nil}", ["P-2", "P-5"]),
        ("NOT cost > 5", ["P-2", "P-5", "P-6"]),
        // A backslash makes the next character of a LIKE pattern literal.
        ("name LIKE 'a*b'", ["P-1", "P-2", "P-3"]),
        ("name LIKE 'a\\\\*b'", ["P-1"]),
        ("name LIKE[c] 'A\\\\*B'", ["P-1"]),
        ("name LIKE 'ab\\\\?'", ["P-5"]),
        ("name LIKE 'ab?'", ["P-5"]),
        ("name LIKE 'a\\\\\\\\b'", ["P-3"]),
        ("'ab?' LIKE name", ["P-5"]),
        // Integer literals in other bases.
        ("stock == 0x1E", ["P-1"]),
        ("stock == 0XF OR stock == 0o17", ["P-2"]),
        ("stock == 0b101", ["P-3"]),
        ("stock > -0x1 AND stock < 0b10", ["P-4", "P-6"]),
        // NSString answers NO for an empty prefix, suffix or substring, and nil matches nothing.
        ("name BEGINSWITH ''", []),
        ("name ENDSWITH ''", []),
        ("name CONTAINS ''", []),
        ("name CONTAINS[cd] ''", []),
        ("NOT name ENDSWITH ''", ["P-1", "P-2", "P-3", "P-4", "P-5", "P-6"]),
        ("name == ''", ["P-6"]),
        ("name ENDSWITH 'b'", ["P-1", "P-2", "P-3"]),
        ("sku BEGINSWITH name", []),
        ("sku ENDSWITH name", []),
        ("sku CONTAINS name", []),
        // A literal on the left binds its value before the key path's.
        ("'a*b!' BEGINSWITH name", ["P-1"]),
        ("'xa*b' ENDSWITH name", ["P-1"]),
        ("'-axxb-' CONTAINS name", ["P-2"]),
    ]

    @Test(arguments: [StoreType.sqlite, .inMemory])
    func matchesNSPredicate(type: StoreType) throws {
        let directory = TemporaryDirectory()
        let context = try Self.populated(directory, type: type)
        for (format, expected) in Self.forms {
            let predicate = try FetchPredicate(format)
            #expect(try context.strings("Product", format, key: "sku") == expected, "\(format)")
            #expect(try context.count(FetchRequest(entity: "Product", predicate: predicate)) == expected.count, "count \(format)")
            #expect(
                try FetchPredicate(predicate.description) == predicate, "\(format) prints as \(predicate.description), which parses back")
        }
    }

    @Test(arguments: [StoreType.sqlite, .inMemory])
    func decimalsSortAsNumbers(type: StoreType) throws {
        let directory = TemporaryDirectory()
        let context = try Self.populated(directory, type: type)
        #expect(
            try context.strings("Product", key: "sku", sort: [FetchSortDescriptor("cost")]) == ["P-5", "P-6", "P-2", "P-3", "P-1", "P-4"])
        #expect(
            try context.strings("Product", key: "sku", sort: [FetchSortDescriptor("cost", ascending: false)]) == [
                "P-4", "P-1", "P-3", "P-2", "P-6", "P-5",
            ])
        #expect(try context.strings("Product", "cost > 0", key: "sku", sort: [FetchSortDescriptor("cost")], limit: 2) == ["P-2", "P-3"])
        // Text that reads as a number (a command line's --arg) compares with a Decimal as that number.
        let fromText = FetchRequest(
            entity: "Product", predicate: try FetchPredicate("cost > %@ OR cost == %@", textArguments: ["500", "x"]))
        #expect(try context.fetch(fromText).isEmpty, "\"x\" stays text, which no Decimal equals")
        let between = FetchRequest(
            entity: "Product", predicate: try FetchPredicate("cost BETWEEN {%@, %@}", textArguments: ["5", "50"]),
            sortDescriptors: [FetchSortDescriptor("sku")])
        #expect(try context.fetch(between).map { try $0.string("sku") } == ["P-1", "P-2", "P-3"])
        let cost = try context.fetch(FetchRequest(entity: "Product", predicate: FetchPredicate("sku == 'P-1'"))).first?["cost"]
        #expect(cost == .text("10.5"), "the stored text is read back unchanged")
    }

    /// Products with a Decimal `cost`, in a catalog store of the given type.
    static func populated(_ directory: TemporaryDirectory, type: StoreType) throws -> ObjectContext {
        let coordinator = StoreCoordinator(model: try shopModel(productExtras: #", {"name": "cost", "type": "Decimal"}"#))
        try coordinator.addStore(
            StoreDescription(type: type, url: type == .inMemory ? nil : directory.url("catalog.\(type.rawValue)"), configuration: "Catalog")
        )
        let context = ObjectContext(coordinator: coordinator)
        for (sku, name, cost, stock) in rows {
            let product = try context.insert(entity: "Product")
            product["sku"] = .text(sku)
            product["name"] = StoreValue(name)
            product["cost"] = cost
            product["stock"] = .integer(stock)
        }
        try context.save()
        return context
    }
}
