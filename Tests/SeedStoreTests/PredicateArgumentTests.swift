import Foundation
import SeedStore
import SeedTestSupport
import Testing

@Suite("Predicate format arguments: %@, %K, %d, %f and positions")
struct PredicateArgumentTests {
    @Test func placeholdersBecomeLiteralsThatPrintAndParseBack() throws {
        let cases: [(FetchPredicate, String)] = [
            (try FetchPredicate("county.name == %@", "Kent"), "county.name == \"Kent\""),
            (try FetchPredicate("%K == %@", "county.name", "Kent"), "county.name == \"Kent\""),
            (
                try FetchPredicate("a > %d AND b > %i AND c > %ld AND d > %lld AND e > %u", 1, Int64(-2), Int32(3), Int16(4), 5),
                "a > 1 AND b > -2 AND c > 3 AND d > 4 AND e > 5"
            ),
            (try FetchPredicate("price < %f OR price > %lf", 1.5, 20), "price < 1.5 OR price > 20.0"),
            (try FetchPredicate("sku IN %@", ["A-1", "B-1"]), "sku IN {\"A-1\", \"B-1\"}"),
            (try FetchPredicate("price BETWEEN %@", [1, 12]), "price BETWEEN {1, 12}"),
            (try FetchPredicate("%2$K == %1$@ AND %2$K != %3$@", "Apple", "name", "Pear"), "name == \"Apple\" AND name != \"Pear\""),
            (try FetchPredicate("price == %@ AND active == %@", Double?.none, true), "price == nil AND active == 1"),
            (try FetchPredicate("added > %@", Date(timeIntervalSince1970: 1_700_100_000)), "added > 1700100000.0"),
            (
                try FetchPredicate("id == %@", UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
                "id == \"e621e1f8-c36c-495a-93fc-0c247a3e6e5f\""
            ),
            (try FetchPredicate("name == '%@' AND note LIKE '100%%'"), "name == \"%%@\" AND note LIKE \"100%%\""),
            (try FetchPredicate("name == %@", "50% off"), "name == \"50%% off\""),
            (try FetchPredicate("a == %@ AND b == %d", arguments: ["x", 3]), "a == \"x\" AND b == 3"),
            (
                try FetchPredicate("stock > %d AND %K BEGINSWITH %@", textArguments: ["2", "name", "Ap"]),
                "stock > 2 AND name BEGINSWITH \"Ap\""
            ),
            // %K goes on with more path; a keyword it names is printed escaped.
            (try FetchPredicate("%K.name == %@", "category", "Tools"), "category.name == \"Tools\""),
            (try FetchPredicate("ANY %K.sku == %@", "products", "A-1"), "ANY products.sku == \"A-1\""),
            (try FetchPredicate("%K == 1 AND %K.x == 2", "IN", "a.self"), "#IN == 1 AND a.#self.x == 2"),
        ]
        for (predicate, printed) in cases {
            #expect(predicate.description == printed)
            #expect(try FetchPredicate(predicate.description) == predicate, "\(printed) parses back to the same predicate")
        }
        #expect(try FetchPredicate("name == '%@'") == FetchPredicate("name == %@", "%@"), "a quoted placeholder is literal text")
        #expect(
            try FetchPredicate("data == %@", Data([1, 2])) == .comparison(.keyPath(["data"]), .equal, .value(.blob(Data([1, 2]))), []))
    }

    @Test(
        arguments: [
            ("a == %@ AND b == %@", ["x"], 17, "%@ (placeholder 2) has no argument: 1 given"),
            ("a == %d", ["x"], 5, "%d (placeholder 1) takes an integer, not the string \"x\""),
            ("a == %d", [1.5], 5, "%d (placeholder 1) takes an integer, not 1.5"),
            ("a == %f", ["x"], 5, "%f (placeholder 1) takes a number, not the string \"x\""),
            ("%K == 1", [5], 0, "%K (placeholder 1) takes a key path as a string"),
            ("%K == 1", ["a b"], 0, "\"a b\" is not a key path"),
            ("%K == 1", ["a..b"], 0, "\"a..b\" is not a key path"),
            ("%K == 1", ["1a"], 0, "\"1a\" is not a key path"),
            ("a IN %@", [[["x"]]], 5, "a list inside a list"),
            ("a == %0$@", ["x"], 5, "argument positions count from 1"),
            ("a == %3$@", ["x", "y"], 5, "%3$@ (placeholder 1) has no argument: 2 given"),
            ("a == %q", [], 5, "expected a placeholder %@"),
            ("a == %%", [], 5, "%% is a literal percent sign"),
            ("a == %1@", ["x"], 5, "expected $ after the argument position"),
            ("a == %@", [], 5, "has no argument: 0 given"),
        ] as [(String, [any PredicateArgumentConvertible & Sendable], Int, String)])
    func mismatchesNameThePlaceholder(
        format: String, arguments: [any PredicateArgumentConvertible & Sendable], position: Int, message: String
    ) {
        let error = #expect(throws: FetchPredicateError.self) { try FetchPredicate(format, arguments: arguments) }
        #expect(error?.position == position, "\(format): \(error.map(String.init(describing:)) ?? "")")
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }

    @Test func unusedArgumentsAreRefused() {
        let extra = #expect(throws: FetchPredicateError.self) { try FetchPredicate("a == %@", "x", "y") }
        #expect(extra?.message.contains("2 arguments given but argument 2 matches no placeholder") == true, "\(extra?.message ?? "")")
        let skipped = #expect(throws: FetchPredicateError.self) { try FetchPredicate("a == %2$@", "x", "y") }
        #expect(skipped?.message.contains("argument 1 matches no placeholder") == true, "\(skipped?.message ?? "")")
        let text = #expect(throws: FetchPredicateError.self) { try FetchPredicate("a == %d", textArguments: ["2.5"]) }
        #expect(text?.message.contains("%d (placeholder 1) takes an integer, not \"2.5\"") == true)
    }

    @Test(arguments: [StoreType.sqlite, .inMemory])
    func argumentsFetchRealRows(type: StoreType) throws {
        let directory = TemporaryDirectory()
        let context = ObjectContext(coordinator: try shopCoordinator(directory, catalog: type, notes: type))
        try populateShop(context)
        func skus(_ predicate: FetchPredicate) throws -> [String] {
            try context.fetch(FetchRequest(entity: "Product", predicate: predicate, sortDescriptors: [FetchSortDescriptor("sku")])).map {
                try $0.string("sku") ?? "nil"
            }
        }
        #expect(try skus(FetchPredicate("category.name == %@ AND price > %f", "Tools", 15)) == ["S-1"])
        #expect(try skus(FetchPredicate("sku IN %@", ["A-1", "H-1", "Z-9"])) == ["A-1", "H-1"])
        #expect(try skus(FetchPredicate("%K BEGINSWITH[c] %@", "name", "ap")) == ["A-1", "A-2"])
        #expect(try skus(FetchPredicate("price BETWEEN %@", [1, 12])) == ["A-2", "H-1"])
        #expect(try skus(FetchPredicate("added > %@", Date(timeIntervalSince1970: 1_700_100_000))) == ["A-1", "B-1", "H-1"])
        #expect(try skus(FetchPredicate("price == %@", Double?.none)) == ["B-1"])
        #expect(try skus(FetchPredicate("name == %@", String?.none)) == [])
        #expect(try skus(FetchPredicate("active == %@ AND stock >= %2$d", true, 3)) == ["A-1", "B-1"])
        #expect(try skus(FetchPredicate("stock >= %1$d AND stock <= %1$d", 3)) == ["B-1"], "one argument, used twice by position")
    }
}
