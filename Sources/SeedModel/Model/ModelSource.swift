/// Where a model (or one of its entities) was read from, for error messages.
public struct ModelSource: Sendable, Hashable, CustomStringConvertible {
    /// The path of the model file or bundle as the user gave it.
    public var file: String
    /// The model version inside a bundle (`PostCodesModel 2`), if any.
    public var version: String?

    public init(file: String, version: String? = nil) {
        self.file = file
        self.version = version
    }

    public var description: String {
        if let version { return "\(file) (version \"\(version)\")" }
        return file
    }
}
