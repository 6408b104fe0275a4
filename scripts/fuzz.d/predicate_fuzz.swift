// libFuzzer target for the predicate parser: whatever parses must print back to a format that
// parses to the same predicate, and nothing may crash. Built and run by scripts/fuzz-predicates.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    // Placeholders take text as a command line gives it: a number, a key path, a string; and a
    // key path of keywords, which prints escaped (#self.#IN).
    let parsed = [
        try? FetchPredicate(text), try? FetchPredicate(text, textArguments: ["1", "a.b", "%x'\\"]),
        try? FetchPredicate(text, textArguments: ["self.IN"]),
    ]
    for predicate in parsed.compactMap({ $0 }) {
        // Whatever parses must print back to a format that parses to the same predicate.
        let again = try? FetchPredicate(predicate.description)
        precondition(again == predicate, "round trip failed for \(text): \(predicate.description)")
        _ = try? predicate.substituting(["X": .value(1)])
    }
    return 0
}
