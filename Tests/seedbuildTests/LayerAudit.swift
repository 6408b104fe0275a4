import Foundation

/// A lexical check of the layers inside one target: an index of the names each folder declares for
/// other files (types, free functions, global constants, operators, and every member and nested type
/// an `extension` adds), then the names each file uses. A file uses a name declared only in a folder
/// of a higher layer: that is a use running up.
///
/// Names, not types: a name also declared in the file itself (a local, a parameter, a member) or in
/// a folder at or below the file's layer is taken to mean that declaration, so a use can go unseen
/// only when a lower layer declares the same name in the same position (a free function for a bare
/// use; any member for `.name`). `private` and `fileprivate` declarations are not indexed: no
/// other file can use them.
struct LayerAudit {
    /// Where a name is declared, for other files to use.
    enum Kind: String {
        /// A type (or a type alias) at the top level, or nested in an extension.
        case type
        /// A function, constant or variable at the top level.
        case free
        /// A method, property or static member an extension adds.
        case extensionMember = "extension member"
        /// A custom operator, declared or implemented.
        case `operator`
    }

    struct Declaration: Hashable {
        var name: String
        var kind: Kind
        /// For what an extension adds: the type it extends.
        var extended: String? = nil
    }

    struct Finding: Equatable, CustomStringConvertible {
        var file: String
        var name: String
        var kind: Kind
        var declaredIn: String

        var description: String {
            "\(file) uses \(kind.rawValue) \(name), declared in \(declaredIn)/, a layer above: move it down, or the use up"
        }
    }

    /// Each folder of the target, lowest layer first; folders of one layer may use each other.
    var layers: [[String]]

    /// The uses running up in `files` (paths relative to the target's folder, and their text).
    /// Files at the target's root are above every folder.
    func findings(_ files: [String: String]) -> [Finding] {
        var layerOf: [String: Int] = [:]
        for (index, folders) in layers.enumerated() { for folder in folders { layerOf[folder] = index } }
        let top = layers.count
        func layer(_ file: String) -> Int { Self.folder(file).flatMap { layerOf[$0] } ?? top }

        var exported: [String: [(folder: String, layer: Int, declaration: Declaration)]] = [:]
        var lowestMember: [String: Int] = [:]
        var codes: [String: String] = [:]
        var ownTypes: Set<String> = []
        for (file, text) in files {
            let code = Self.code(text)
            codes[file] = code
            let index = Self.index(code)
            for declaration in index.exported {
                exported[declaration.name, default: []].append((Self.folder(file) ?? ".", layer(file), declaration))
                if declaration.kind == .type { ownTypes.insert(declaration.name) }
            }
            for name in index.members { lowestMember[name] = min(lowestMember[name] ?? .max, layer(file)) }
        }
        var findings: [Finding] = []
        for (file, code) in codes.sorted(by: { $0.key < $1.key }) {
            let own = layer(file)
            let local = Self.localNames(code)
            let words = Set(code.matches(of: #/\b[A-Za-z_]\w*\b/#.wordBoundaryKind(.simple)).map { String($0.output) })
            for use in Self.uses(code) where !local.contains(use.name) {
                guard let declarations = exported[use.name] else { continue }
                // What the use can mean. An extension's member, on a value: of a type from outside the
                // target, or of ours that this file names (a value of a type the file never names is
                // taken to be another's, so `.hash(…)` of Crypto is not `DeltaValue`'s). Bare: only
                // inside an extension or body of its type, which the file names. A free function,
                // constant, type or operator: bare (a type also as `Outer.Inner`).
                let candidates = declarations.filter { candidate in
                    let declaration = candidate.declaration
                    if let extended = declaration.extended {
                        return words.contains(extended) || (use.dotted && !ownTypes.contains(extended))
                    }
                    return !use.dotted || declaration.kind == .type
                }
                guard let lowest = candidates.min(by: { $0.layer < $1.layer }), lowest.layer > own else { continue }
                // An extension's member may be meant as any member of that name (`.insert` of a set); one
                // declared at or below this layer is the one meant. A free function or a type has no such double.
                if candidates.allSatisfy({ $0.declaration.extended != nil }), let member = lowestMember[use.name], member <= own {
                    continue
                }
                findings.append(Finding(file: file, name: use.name, kind: lowest.declaration.kind, declaredIn: lowest.folder))
            }
        }
        return findings
    }

    static func folder(_ file: String) -> String? {
        let parts = file.split(separator: "/")
        return parts.count > 1 ? String(parts[0]) : nil
    }

    // MARK: - Reading the code

    /// The code without comments and the text of string literals, where names would only be words;
    /// what a string interpolates (`"\\(sqlLiteral(name))"`) is code and stays.
    static func code(_ text: String) -> String {
        let characters = Array(text)
        var output = ""
        output.reserveCapacity(characters.count)
        var index = 0
        /// Open interpolations: the parenthesis depth inside each, and the string it returns to.
        var interpolations: [(depth: Int, delimiter: String, hashes: Int)] = []
        func starts(_ literal: String, at position: Int) -> Bool {
            var position = position
            for character in literal {
                guard position < characters.count, characters[position] == character else { return false }
                position += 1
            }
            return true
        }
        /// Skips a string's text from `index` (after its opening delimiter) to its end or to an
        /// interpolation, which it opens.
        func skipString(delimiter: String, hashes: Int) {
            let closing = delimiter + String(repeating: "#", count: hashes)
            let escape = "\\" + String(repeating: "#", count: hashes)
            while index < characters.count {
                if starts(escape + "(", at: index) {
                    index += escape.count + 1
                    output += "(("
                    interpolations.append((0, delimiter, hashes))
                    return
                }
                if hashes == 0, characters[index] == "\\" {
                    index += 2
                    continue
                }
                if starts(closing, at: index) {
                    index += closing.count
                    output += "\"\""
                    return
                }
                if characters[index] == "\n" { output.append("\n") }
                index += 1
            }
        }
        while index < characters.count {
            let character = characters[index]
            if starts("//", at: index) {
                while index < characters.count, characters[index] != "\n" { index += 1 }
            } else if starts("/*", at: index) {
                index += 2
                while index < characters.count, !starts("*/", at: index) {
                    if characters[index] == "\n" { output.append("\n") }
                    index += 1
                }
                index += 2
            } else if character == "#" || character == "\"" {
                var hashes = 0
                while index + hashes < characters.count, characters[index + hashes] == "#" { hashes += 1 }
                let quote = index + hashes
                guard quote < characters.count, characters[quote] == "\"" else {
                    output.append(character)
                    index += 1
                    continue
                }
                let delimiter = starts("\"\"\"", at: quote) ? "\"\"\"" : "\""
                index = quote + delimiter.count
                skipString(delimiter: delimiter, hashes: hashes)
            } else if !interpolations.isEmpty, character == "(" {
                interpolations[interpolations.count - 1].depth += 1
                output.append(character)
                index += 1
            } else if let open = interpolations.last, character == ")" {
                index += 1
                if open.depth == 0 {
                    output += "))"
                    interpolations.removeLast()
                    skipString(delimiter: open.delimiter, hashes: open.hashes)
                } else {
                    interpolations[interpolations.count - 1].depth -= 1
                    output.append(character)
                }
            } else {
                output.append(character)
                index += 1
            }
        }
        return output
    }

    static let modifiers =
        #"(?:@\w+(?:\([^)]*\))?\s+|(?:public|package|internal|open|final|static|class|mutating|nonmutating|override|convenience|required|lazy|indirect|dynamic|weak|unowned|nonisolated(?:\(unsafe\))?|(?:private|fileprivate|public|package|internal)\(set\))\s+)*"#
    /// The standard library's operators: their overloads for our types need values of those types,
    /// so their uses say nothing on their own.
    static let standardOperators: Set<String> = [
        "==", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "%", "+=", "-=", "*=", "/=", "%=", "!", "&&", "||",
        "&", "|", "^", "~", "<<", ">>", "&+", "&-", "&*", "...", "..<", "??", "===", "!==", "~=", "=", "?", ".", "->",
    ]

    /// What a file declares: for other files (top level, and what its extensions add), and every
    /// member name it declares at any depth (which a `.name` use may mean).
    static func index(_ code: String) -> (exported: [Declaration], members: Set<String>) {
        let header = try! Regex(
            #"^\s*(?<access>(?:"# + modifiers
                + #"))(?<keyword>struct|enum|class|protocol|actor|typealias|extension|func|var|let|case|init|subscript|(?:infix|prefix|postfix)\s+operator)\b\s*(?<name>`?[A-Za-z_][\w.]*`?|[/=\-+!*%<>&|^~?.]+)?"#
        )
        var exported: [Declaration] = []
        var members: Set<String> = []
        /// The open braces: whether each is an extension's body (and whether that extension is private).
        var scopes: [(extended: String?, isPrivate: Bool)] = []
        var pending: (extended: String?, isPrivate: Bool)? = nil
        for line in code.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = String(line)
            if let match = try? header.prefixMatch(in: text) {
                let access = String(match.output["access"]?.substring ?? "")
                let keyword = String(match.output["keyword"]?.substring ?? "")
                // `extension Outer.Inner` extends `Inner`; an operator keeps its dots (`..<`).
                let name = match.output["name"]?.substring.map { found -> String in
                    let identifier = found.replacingOccurrences(of: "`", with: "")
                    guard let first = identifier.first, first.isLetter || first == "_" else { return String(found) }
                    return String(identifier.split(separator: ".").last ?? "")
                }
                let isPrivate = access.contains("private") && !access.contains("private(set)") && !access.contains("fileprivate(set)")
                let isType = ["struct", "enum", "class", "protocol", "actor", "typealias"].contains(keyword)
                if keyword == "init" || keyword == "subscript" {
                    // Called through their type's name, which is indexed.
                    pending = (nil, false)
                } else if keyword == "extension" {
                    pending = (name, isPrivate)
                } else {
                    pending = (nil, false)
                    if let name, !isType || !scopes.isEmpty { members.insert(name) }
                    let enclosing = scopes.last
                    let extended = scopes.count == 1 ? enclosing?.extended : nil
                    let inExtension = extended != nil
                    let visible = !isPrivate && !(inExtension && enclosing?.isPrivate == true)
                    if let name, visible, scopes.isEmpty || inExtension {
                        if keyword.hasSuffix("operator") || (keyword == "func" && name.first.map { !$0.isLetter && $0 != "_" } == true) {
                            // An operator is found by its arguments, wherever it is declared.
                            if !standardOperators.contains(name) { exported.append(Declaration(name: name, kind: .operator)) }
                        } else if isType {
                            exported.append(Declaration(name: name, kind: .type, extended: extended))
                        } else if keyword != "case" {
                            exported.append(Declaration(name: name, kind: scopes.isEmpty ? .free : .extensionMember, extended: extended))
                        }
                    }
                }
            }
            for character in text {
                if character == "{" {
                    scopes.append(pending ?? (nil, false))
                    pending = nil
                } else if character == "}" {
                    _ = scopes.popLast()
                }
            }
        }
        return (exported, members)
    }

    /// Names the file declares for itself at any depth: locals, parameters and labels, closure
    /// parameters, members. A use of one of these means it.
    static func localNames(_ code: String) -> Set<String> {
        var names: Set<String> = []
        for match in code.matches(of: #/\b(?:let|var|func|case|for)\s+`?([A-Za-z_]\w*)/#) { names.insert(String(match.output.1)) }
        // `if let name`, tuples `let (a, b)`, closure parameters `{ a, b in`.
        for match in code.matches(of: #/\b(?:let|var)\s*\(([^)]*)\)/#) {
            for part in match.output.1.split(separator: ",") { names.insert(part.trimmingCharacters(in: .whitespaces)) }
        }
        for match in code.matches(of: #/\{\s*\[?[^{}\[\]]*?\]?\s*\(?([A-Za-z_][\w, ]*)\)?\s+in\b/#) {
            for part in match.output.1.split(separator: ",") { names.insert(part.trimmingCharacters(in: .whitespaces)) }
        }
        // Parameters: `(label name: Type`, `, name: Type`.
        for match in code.matches(of: #/[(,]\s*(?:[A-Za-z_]\w*\s+)?([A-Za-z_]\w*)\s*:(?!:)/#) { names.insert(String(match.output.1)) }
        return names
    }

    struct Use: Hashable {
        var name: String
        /// Written `.name` (a member of some value or type), rather than bare.
        var dotted: Bool
    }

    /// The names and custom operators a file uses, each once; argument labels (`name:`) are not uses.
    static func uses(_ code: String) -> [Use] {
        var seen: Set<Use> = []
        var uses: [Use] = []
        // Simple word boundaries: Unicode's would read `Manifest.fileName` as one word.
        for match in code.matches(of: #/(\.)?\s*\b([A-Za-z_]\w*)\b(:(?!:))?/#.wordBoundaryKind(.simple)) {
            guard match.output.3 == nil || match.output.1 != nil else { continue }
            let use = Use(name: String(match.output.2), dotted: match.output.1 != nil)
            if seen.insert(use).inserted { uses.append(use) }
        }
        for match in code.matches(of: #/[/=\-+!*%<>&|^~?.]+/#) {
            let use = Use(name: String(match.output), dotted: false)
            if !standardOperators.contains(use.name), seen.insert(use).inserted { uses.append(use) }
        }
        return uses
    }
}
