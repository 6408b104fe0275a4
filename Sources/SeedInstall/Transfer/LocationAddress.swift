import Foundation

/// Reads the address of a release channel or a publish destination: a folder, or a URL whose
/// scheme the caller supports.
///
/// A scheme is case-insensitive ([RFC 3986 §3.1](https://www.rfc-editor.org/rfc/rfc3986#section-3.1)),
/// so `HTTP://host/` is `http://host/`. Anything else that starts like a URL (`gs://…`, `ftp://…`, or
/// `https:/host` with one slash) is refused rather than taken for a folder of that name, which would
/// "publish" to a local folder called `gs:` and report success.
package enum LocationAddress {
    /// `text` with its scheme lower-cased when it is one of `schemes`; `text` as it is when it is a path.
    /// - Throws: ``TransferError`` naming the address and the schemes that work.
    package static func normalized(_ text: String, schemes: [String], method: String) throws(TransferError) -> String {
        guard let colon = text.firstIndex(of: ":") else { return text }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) })
        else { return text }
        let rest = text[text.index(after: colon)...]
        // "name:thing" without a slash after the colon is a folder name with a colon in it.
        guard rest.hasPrefix("/") else { return text }
        let supported = schemes.map { "\($0)://" }.joined(separator: ", ")
        let lower = scheme.lowercased()
        guard schemes.contains(lower) else {
            throw TransferError(
                .file("\(lower):// is not supported; use a folder, or \(supported) (for a folder whose name has a colon, write ./\(text))"),
                method: method, url: text)
        }
        guard rest.hasPrefix("//") else {
            throw TransferError(.file("one slash after \(lower):; did you mean \(lower):/\(rest)?"), method: method, url: text)
        }
        return lower + ":" + rest
    }
}
