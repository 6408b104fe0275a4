/// One problem found in a model, located by model file, entity and property.
public struct ModelDiagnostic: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable {
        case error
        case warning
    }

    public var severity: Severity
    public var source: ModelSource?
    public var entity: String?
    public var property: String?
    /// What is wrong and what to do about it.
    public var message: String

    public init(
        _ severity: Severity,
        _ message: String,
        source: ModelSource?,
        entity: String? = nil,
        property: String? = nil
    ) {
        self.severity = severity
        self.source = source
        self.entity = entity
        self.property = property
        self.message = message
    }

    /// `PostCodesModel.xcdatamodeld (version "PostCodesModel 2"): Postcode.county: error: …`
    public var description: String {
        var location = source?.description ?? "<model>"
        switch (entity, property) {
        case let (entity?, property?): location += ": \(entity).\(property)"
        case let (entity?, nil): location += ": entity \(entity)"
        default: break
        }
        return "\(location): \(severity.rawValue): \(message)"
    }
}

/// A model that cannot be found, read or used.
///
/// Carries every diagnostic found, so a user sees all the problems of a model at once.
public struct ModelError: Error, Sendable, CustomStringConvertible {
    private enum Kind: Sendable {
        case notFound
        case invalid
    }

    private let kind: Kind
    /// Every problem found; warnings included.
    public let diagnostics: [ModelDiagnostic]

    private init(kind: Kind, diagnostics: [ModelDiagnostic]) {
        self.kind = kind
        self.diagnostics = diagnostics
    }

    /// The model path does not exist.
    public static func notFound(_ path: String, detail: String? = nil) -> ModelError {
        let message =
            detail
            ?? "no model at this path; give an .xcdatamodeld bundle, an .xcdatamodel folder, a JSON model, or a compiled .momd or .mom"
        return ModelError(kind: .notFound, diagnostics: [ModelDiagnostic(.error, message, source: ModelSource(file: path))])
    }

    /// The model exists but is unreadable or invalid.
    public static func invalid(_ diagnostics: [ModelDiagnostic]) -> ModelError {
        ModelError(kind: .invalid, diagnostics: diagnostics)
    }

    /// One invalid-model problem.
    public static func invalid(
        _ message: String, source: ModelSource?, entity: String? = nil, property: String? = nil
    ) -> ModelError {
        .invalid([ModelDiagnostic(.error, message, source: source, entity: entity, property: property)])
    }

    /// True when the model path does not exist (exit status 66 rather than 65).
    public var isNotFound: Bool { kind == .notFound }

    public var errors: [ModelDiagnostic] { diagnostics.filter { $0.severity == .error } }

    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}
