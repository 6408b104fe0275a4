import SeedStore
import Testing

@Suite("Predicate format parsing")
struct PredicateParserTests {
    @Test(arguments: [
        ("name == 'Apple'", "name == \"Apple\""),
        ("name = \"Apple\"", "name == \"Apple\""),
        ("price != nil", "price != nil"),
        ("price <> 3", "price != 3"),
        (
            "stock < 3 AND stock <= 4 OR stock > 5 && stock >= 6 || stock =< 1 AND stock => 2",
            "(stock < 3 AND stock <= 4) OR (stock > 5 AND stock >= 6) OR (stock <= 1 AND stock >= 2)"
        ),
        ("NOT (a == 1 OR b == 2)", "NOT (a == 1 OR b == 2)"),
        ("!a == TRUE", "NOT a == 1"),
        ("a == YES AND b == NO AND c == FALSE AND d == NULL", "a == 1 AND b == 0 AND c == 0 AND d == nil"),
        ("sku IN {'A-1', 'B-1'}", "sku IN {\"A-1\", \"B-1\"}"),
        ("sku in $SKUS", "sku IN $SKUS"),
        ("name BEGINSWITH[c] 'ap'", "name BEGINSWITH[c] \"ap\""),
        ("name ENDSWITH[cd] 'W'", "name ENDSWITH[cd] \"W\""),
        ("name CONTAINS[d] 'aw'", "name CONTAINS[d] \"aw\""),
        ("name LIKE 'A*e?'", "name LIKE \"A*e?\""),
        ("price BETWEEN {1, 12.5}", "price BETWEEN {1, 12.5}"),
        ("category.name == $FETCH_SOURCE.category.name", "category.name == $FETCH_SOURCE.category.name"),
        ("stock > -3", "stock > -3"),
        ("x == 1.5e3", "x == 1500.0"),
        ("!-42E-9 => s", "NOT -4.2e-08 >= s"),
        ("x == 0.30000000000000004", "x == 0.30000000000000004"),
        ("x IN {-1, -2.5}", "x IN {-1, -2.5}"),
        ("TRUEPREDICATE", "TRUEPREDICATE"),
        ("name == 'it\\'s'", "name == \"it's\""),
        ("age == 0x1E", "age == 30"),
        ("age == 0XfF OR age == -0x10", "age == 255 OR age == -16"),
        ("age IN {0o17, 0O7, 0b101, 0B0}", "age IN {15, 7, 5, 0}"),
        ("age == 0x7fffffffffffffff", "age == 9223372036854775807"),
        ("age == -0x8000000000000000", "age == -9223372036854775808"),
        ("name LIKE 'a\\\\*b'", "name LIKE \"a\\\\*b\""),
        // To-many forms (issue 15, item 2).
        ("any tags.label == 'sale'", "ANY tags.label == \"sale\""),
        ("SOME tags.label ==[c] 'x'", "ANY tags.label ==[c] \"x\""),
        ("ALL products.price >= 1 AND NONE products.name LIKE[cd] 'a*'", "ALL products.price >= 1 AND NONE products.name LIKE[cd] \"a*\""),
        ("ANY products.price BETWEEN {1, 2}", "ANY products.price BETWEEN {1, 2}"),
        ("NOT ANY tags.label IN {'a', 'b'}", "NOT ANY tags.label IN {\"a\", \"b\"}"),
        ("products.@count > 2", "products.@count > 2"),
        ("products.name.@count == 3 OR @sum.products.stock < 10", "products.name.@count == 3 OR @sum.products.stock < 10"),
        (
            "products.@avg.price > 1 AND products.@min.price < products.@max.price",
            "products.@avg.price > 1 AND products.@min.price < products.@max.price"
        ),
        (
            "subquery(products, $p, $p.stock > 1 AND (name MATCHES 'A.*' OR SELF == $p)).@count == 2",
            "SUBQUERY(products, $p, $p.stock > 1 AND (name MATCHES \"A.*\" OR SELF == $p)).@count == 2"
        ),
        (
            "SUBQUERY(a, $x, SUBQUERY($x.b, $y, $y.c == $x.d).@count > 0).@count == 1",
            "SUBQUERY(a, $x, SUBQUERY($x.b, $y, $y.c == $x.d).@count > 0).@count == 1"
        ),
        ("SELF == $OBJECT OR SELF IN $LIST", "SELF == $OBJECT OR SELF IN $LIST"),
        ("SELF.name == 'x'", "name == \"x\""),
        ("name MATCHES[cd] '^a\\\\d+$'", "name MATCHES[cd] \"^a\\\\d+$\""),
        ("'new' IN tags.label", "\"new\" IN tags.label"),
        ("tags CONTAINS $TAG", "tags CONTAINS $TAG"),
        // A keyword as a name is escaped with #, and prints escaped.
        ("#IN == 1 AND a.#any == 2 AND #self.#SUBQUERY == 3", "#IN == 1 AND a.#any == 2 AND #self.#SUBQUERY == 3"),
        ("#name == 1", "name == 1"),
    ])
    func parsesAndPrints(format: String, printed: String) throws {
        let predicate = try FetchPredicate(format)
        #expect(predicate.description == printed)
        #expect(try FetchPredicate(predicate.description) == predicate, "the printed form parses to the same predicate")
    }

    @Test(arguments: [
        ("", 0, "expected a predicate"),
        ("name ==", 7, "expected a key path, a literal or a $VARIABLE, found the end"),
        ("name 'x'", 5, "expected a comparison operator"),
        ("(a == 1", 7, "expected a closing )"),
        ("a == 1 b == 2", 7, "expected AND, OR or the end"),
        ("a == 'open", 5, "unterminated string"),
        ("a IN {1, 2", 10, "expected a comma or a closing }"),
        ("a BETWEEN 1", 10, "expected a pair {lower, upper}"),
        ("SUBQUERY(a, b, c == 1).@count == 0", 12, "a $VARIABLE naming each element"),
        ("ANY NOT a == 1", 4, "expected a key path, a literal or a $VARIABLE, found NOT"),
        ("a ==[x] 'b'", 4, "string modifier"),
        ("a == $", 5, "variable name"),
        ("a == #", 5, "a property name after #"),
        ("a == ALL", 5, "expected a key path"),
        ("a. == 1", 3, "a property name after ."),
        ("a == 0 OR \u{65D}I == 0", 9, "unexpected character"),
        ("a == 0x", 5, "is not a base-16 integer"),
        ("a == 0b102", 5, "is not a base-2 integer"),
        ("a == 0o8", 5, "is not a base-8 integer"),
        ("a == 0x1G", 5, "is not a base-16 integer"),
        ("a == 0x8000000000000000", 5, "does not fit in a 64-bit integer"),
    ])
    func reportsPositionAndExpectation(format: String, position: Int, message: String) {
        let error = #expect(throws: FetchPredicateError.self) { try FetchPredicate(format) }
        #expect(error?.position == position, "\(format): \(error.map(String.init(describing:)) ?? "")")
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        #expect(error?.description.contains("^") == true, "the description points at the position")
    }

    /// Apple's BNF leaves precedence open; NOT binds tightest, then AND, then OR, both grouping
    /// from the left, as in C and SQL.
    @Test func precedenceAndAssociativity() throws {
        let a = FetchPredicate.comparison(.keyPath(["a"]), .equal, .value(.integer(1)), [])
        let b = FetchPredicate.comparison(.keyPath(["b"]), .equal, .value(.integer(2)), [])
        let c = FetchPredicate.comparison(.keyPath(["c"]), .equal, .value(.integer(3)), [])
        #expect(try FetchPredicate("a == 1 OR b == 2 AND c == 3") == .or([a, .and([b, c])]))
        #expect(try FetchPredicate("a == 1 AND b == 2 OR c == 3") == .or([.and([a, b]), c]))
        #expect(try FetchPredicate("NOT a == 1 AND b == 2") == .and([.not(a), b]))
        #expect(try FetchPredicate("NOT a == 1 OR b == 2 AND NOT c == 3") == .or([.not(a), .and([b, .not(c)])]))
        #expect(try FetchPredicate("(a == 1 OR b == 2) AND c == 3") == .and([.or([a, b]), c]))
        #expect(
            try FetchPredicate("ANY t.x == 1 AND b == 2")
                == .and([.quantified(.any, .comparison(.keyPath(["t", "x"]), .equal, .value(.integer(1)), [])), b]))
        #expect(
            try FetchPredicate("NOT ANY t.x == 1")
                == .not(.quantified(.any, .comparison(.keyPath(["t", "x"]), .equal, .value(.integer(1)), []))))
    }

    @Test func hostileNestingIsRefusedNotACrash() {
        let deep = String(repeating: "(", count: 10_000) + "a == 1" + String(repeating: ")", count: 10_000)
        let error = #expect(throws: FetchPredicateError.self) { try FetchPredicate(deep) }
        #expect(error?.message.contains("nests deeper than 64 levels") == true)
        let nots = String(repeating: "NOT ", count: 5_000) + "a == 1"
        #expect(throws: FetchPredicateError.self) { try FetchPredicate(nots) }
        #expect(throws: Never.self) { try FetchPredicate(String(repeating: "(", count: 30) + "a == 1" + String(repeating: ")", count: 30)) }
    }

    @Test func substitutesVariables() throws {
        let predicate = try FetchPredicate("sku IN $SKUS AND price < $MAX AND name == $SOURCE.name")
        #expect(predicate.variableNames == ["SKUS", "MAX", "SOURCE"])
        let bound = try predicate.substituting(["SKUS": .list(["A-1"]), "MAX": .value(3), "SOURCE": .object(["name": "Apple"])])
        #expect(bound.description == "sku IN {\"A-1\"} AND price < 3 AND name == \"Apple\"")
        #expect(bound.variableNames.isEmpty)
        let missing = #expect(throws: FetchPredicateError.self) { try predicate.substituting(["SKUS": .list([])]) }
        #expect(missing?.message.contains("no value for $MAX") == true)
    }

    // Bugs a review found, each kept from coming back.
    @Test func nestedListsAreDepthLimited() {
        let error = #expect(throws: FetchPredicateError.self) { try FetchPredicate("a IN " + String(repeating: "{", count: 100_000)) }
        #expect(error?.message.contains("nests deeper") == true)
    }
}
