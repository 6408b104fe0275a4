import SeedStore
import Testing

@Suite("Predicate format parsing")
struct PredicateParserTests {
    @Test(arguments: [
        ("name == 'Apple'", "name == \"Apple\""),
        ("name = \"Apple\"", "name == \"Apple\""),
        ("price != nil", "price != nil"),
        ("price <> 3", "price != 3"),
        ("stock < 3 AND stock <= 4 OR stock > 5 && stock >= 6 || stock =< 1 AND stock => 2",
         "(stock < 3 AND stock <= 4) OR (stock > 5 AND stock >= 6) OR (stock <= 1 AND stock >= 2)"),
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
        ("a MATCHES 'x'", 2, "MATCHES"),
        ("a ==[x] 'b'", 4, "string modifier"),
        ("a == $", 5, "variable name"),
        ("a == #", 5, "unexpected character"),
        ("a IN b", 5, "IN takes a list"),
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
}
