import Foundation

extension JSONModelReader {
    /// Where in the model a JSON object sits, for error messages.
    struct Location {
        var source: ModelSource
        var entity: String?
        var property: String?
    }

    /// A JSON object with typed accessors whose errors name the entity and property.
    struct Object {
        let values: [String: Any]
        let location: Location

        init(_ value: Any, at location: Location, what: String) throws {
            guard let values = value as? [String: Any] else {
                throw ModelError.invalid(
                    "\(what) must be a JSON object", source: location.source,
                    entity: location.entity, property: location.property)
            }
            self.values = values
            self.location = location
        }

        func within(entity: String) -> Object {
            var location = location
            location.entity = entity
            return Object(values: values, location: location)
        }

        func within(property: String) -> Object {
            var location = location
            location.property = property
            return Object(values: values, location: location)
        }

        private init(values: [String: Any], location: Location) {
            self.values = values
            self.location = location
        }

        func error(_ message: String) -> ModelError {
            .invalid(message, source: location.source, entity: location.entity, property: location.property)
        }

        func allowKeys(_ allowed: Set<String>) throws {
            let unknown = values.keys.filter { !allowed.contains($0) }.sorted()
            if let key = unknown.first {
                throw error("unknown key \"\(key)\"; allowed keys are \(allowed.sorted().joined(separator: ", "))")
            }
        }

        func string(_ key: String) throws -> String {
            guard let value = try optionalString(key) else { throw error("missing \"\(key)\"") }
            return value
        }

        func optionalString(_ key: String) throws -> String? {
            guard let value = values[key] else { return nil }
            guard let string = value as? String else { throw error("\"\(key)\" must be a string") }
            return string
        }

        func bool(_ key: String, default defaultValue: Bool) throws -> Bool {
            guard let value = values[key] else { return defaultValue }
            guard let number = value as? NSNumber, Self.isBoolean(number) else {
                throw error("\"\(key)\" must be true or false")
            }
            return number.boolValue
        }

        /// - Parameter minimum: the least value allowed; -1 for a maximum count, which compiled
        ///   models may write for "no maximum" and Core Data hashes as it is.
        func int(_ key: String, minimum: Int = 0) throws -> Int? {
            guard let value = values[key] else { return nil }
            guard let number = value as? NSNumber, !Self.isBoolean(number),
                let int = Int(exactly: number.doubleValue), int >= minimum
            else { throw error("\"\(key)\" must be a whole number, \(minimum) or more") }
            return int
        }

        /// JSONSerialization gives NSNumber for booleans and numbers alike; booleans carry the `c` type code.
        static func isBoolean(_ number: NSNumber) -> Bool {
            String(cString: number.objCType) == "c"
        }

        func array(_ key: String, required: Bool = true) throws -> [Any] {
            guard let value = values[key] else {
                if required { throw error("missing \"\(key)\"") }
                return []
            }
            guard let array = value as? [Any] else { throw error("\"\(key)\" must be a list") }
            return array
        }

        func strings(_ key: String, required: Bool = true) throws -> [String] {
            guard let strings = try array(key, required: required) as? [String] else {
                throw error("\"\(key)\" must be a list of strings")
            }
            return strings
        }

        func objects(_ key: String, required: Bool = true) throws -> [Object] {
            var objects: [Object] = []
            for value in try array(key, required: required) {
                objects.append(try Object(value, at: location, what: "each item of \"\(key)\""))
            }
            return objects
        }

        func stringMap(_ key: String) throws -> [String: String] {
            guard let value = values[key] else { return [:] }
            guard let map = value as? [String: String] else {
                throw error("\"\(key)\" must be an object of string values")
            }
            return map
        }
    }
}
