import Foundation
import SeedModel
import SeedStore
import Testing

/// `[c]`, `[d]` and `[cd]` decide equality as Foundation's `compare(_:options:)` does on the same
/// strings: every stored name is fetched with every other as the value, and the rows found must be
/// those Foundation calls the same.
@Suite("Predicate case and diacritic folding against Foundation")
struct PredicateFoldingTests {
    static let names = [
        "Straße", "STRASSE", "strasse", "Café", "CAFE", "cafe\u{301}", "İstanbul", "istanbul", "ǅ", "ǆ", "Ǆ", "ﬁ", "fi", "FI",
        "Ångström", "angstrom", "Æon", "æon", "Øre", "ore", "ı", "I", "i", "Σίσυφος", "ΣΊΣΥΦΟΣ", "σίσυφοσ", "Å", "A\u{30A}",
    ]

    @Test(arguments: ["[c]", "[d]", "[cd]"])
    func equalityMatchesFoundation(modifier: String) throws {
        var options: String.CompareOptions = []
        if modifier.contains("c") { options.insert(.caseInsensitive) }
        if modifier.contains("d") { options.insert(.diacriticInsensitive) }
        let context = try Self.populated()
        for value in Self.names {
            let expected = Self.names.indices.filter { Self.names[$0].compare(value, options: options) == .orderedSame }
            for format in ["name ==\(modifier) %@", "name IN\(modifier) {%@}"] {
                let request = FetchRequest(entity: "Product", predicate: try FetchPredicate(format, value))
                let found = try context.fetch(request).compactMap { try $0.string("sku").flatMap(Int.init) }.sorted()
                #expect(
                    found == expected,
                    "\(format) with \"\(value)\": found \(found.map { Self.names[$0] }), Foundation: \(expected.map { Self.names[$0] })")
            }
        }
    }

    /// A prefix folds as the whole string does: `BEGINSWITH[cd]` agrees with Foundation's anchored search.
    @Test func prefixesMatchFoundation() throws {
        let context = try Self.populated()
        for prefix in ["STR", "caf", "Å", "ang", "æ", "σί", "i"] {
            let expected = Self.names.indices.filter {
                Self.names[$0].range(of: prefix, options: [.anchored, .caseInsensitive, .diacriticInsensitive]) != nil
            }
            let request = FetchRequest(entity: "Product", predicate: try FetchPredicate("name BEGINSWITH[cd] %@", prefix))
            let found = try context.fetch(request).compactMap { try $0.string("sku").flatMap(Int.init) }.sorted()
            #expect(
                found == expected,
                "BEGINSWITH[cd] \"\(prefix)\": found \(found.map { Self.names[$0] }), Foundation: \(expected.map { Self.names[$0] })")
        }
    }

    /// Without modifiers, a constant prefix becomes an index range alone: it must find exactly the
    /// names whose UTF-8 starts with the prefix's, for prefixes ending inside and across multi-byte
    /// characters and at the last characters below U+10FFFF.
    @Test func literalPrefixesAreExactlyTheirRange() throws {
        let context = try Self.populated(extra: [
            "A", "AB", "AB\u{FFFF}", "AB\u{10FFFE}z", "ABa", "AC", "Ab", "cafe", "caf\u{E9}s", "Stra", "Straßburg",
        ])
        let names = Self.names + ["A", "AB", "AB\u{FFFF}", "AB\u{10FFFE}z", "ABa", "AC", "Ab", "cafe", "caf\u{E9}s", "Stra", "Straßburg"]
        for prefix in ["A", "AB", "AB\u{FFFF}", "AB\u{10FFFE}", "caf", "café", "cafe", "Straß", "Σί", "\u{10FFFE}", "ǅ", "z"] {
            let expected = names.indices.filter { Array(names[$0].utf8).starts(with: prefix.utf8) }
            let request = FetchRequest(entity: "Product", predicate: try FetchPredicate("name BEGINSWITH %@", prefix))
            let found = try context.fetch(request).compactMap { try $0.string("sku").flatMap(Int.init) }.sorted()
            #expect(
                found == expected, "BEGINSWITH \"\(prefix)\": found \(found.map { names[$0] }), by bytes: \(expected.map { names[$0] })")
        }
    }

    /// An in-memory catalog with one product per name, its sku the name's index.
    static func populated(extra: [String] = []) throws -> ObjectContext {
        let coordinator = StoreCoordinator(model: try shopModel())
        try coordinator.addStore(StoreDescription(type: .inMemory, configuration: "Catalog"))
        let context = ObjectContext(coordinator: coordinator)
        for (index, name) in (names + extra).enumerated() {
            let product = try context.insert(entity: "Product")
            product["sku"] = .text(String(index))
            product["name"] = .text(name)
        }
        try context.save()
        return context
    }
}
