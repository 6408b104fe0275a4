/// A gzip file that cannot be read or written, naming the file and what to do.
public struct GzipError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the gzip data or the file.
    public enum Kind: Sendable, Equatable {
        /// The file does not start with gzip's magic bytes.
        case notGzip
        /// The input ends before the end of the compressed stream, after this many bytes.
        case truncated(at: Int64)
        /// The CRC-32 or length in the trailer does not match the data.
        case checksumMismatch
        /// zlib found the deflate data invalid; the string says where or how.
        case corrupt(String)
        /// Bytes follow the gzip member.
        case trailingData
        /// Inflating would write more than the allowed number of bytes.
        case tooLarge(limit: Int64)
        /// Reading or writing a file failed; the string says which call and why.
        case io(String)
        /// zlib returned an unexpected code.
        case zlib(code: Int32, message: String)
    }

    /// What is wrong.
    public let kind: Kind
    /// The gzip file read or written.
    public let path: String

    /// An error of `kind` about the file at `path`.
    package init(_ kind: Kind, path: String) {
        self.kind = kind
        self.path = path
    }

    /// What is wrong and what to do, without the path.
    public var reason: String {
        String(description.dropFirst(path.count + 2))
    }

    /// `path: ` what is wrong and what to do (download or copy the file again, give another file).
    public var description: String {
        switch kind {
        case .notGzip: "\(path): not a gzip file; give a .sqlite.gz built by seedbuild"
        case .truncated(let at): "\(path): the gzip data ends early, at byte \(at); the file is truncated — download or copy it again"
        case .checksumMismatch:
            "\(path): the gzip trailer's CRC-32 or length does not match the data; the file is corrupt — download or copy it again"
        case .corrupt(let why): "\(path): corrupt gzip data (\(why)); download or copy it again"
        case .trailingData: "\(path): bytes follow the gzip data; the file is not a single gzip member"
        case .tooLarge(let limit):
            "\(path): inflating would write more than \(limit) bytes (the stated size); refusing a possible gzip bomb"
        case .io(let why): "\(path): \(why)"
        case .zlib(let code, let message): "\(path): zlib error \(code) (\(message))"
        }
    }
}
