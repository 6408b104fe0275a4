import ArgumentParser
import Foundation
import SeedModel

/// Turns library errors into messages on stderr and `sysexits` exit statuses.
enum CommandFailure {
    /// Runs `body`; on an error prints it and exits with its status.
    static func exitOnError<T, E: Error>(_ body: () throws(E) -> T) throws -> T {
        do {
            return try body()
        } catch {
            printError(message(for: error))
            throw ExitCode(status(for: error))
        }
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func message(for error: Error) -> String {
        if let error = error as? ModelError { return error.description }
        return "\(error)"
    }

    /// The `sysexits` status: 66 missing input, 65 bad input data, 70 internal error.
    static func status(for error: Error) -> Int32 {
        if let error = error as? ModelError { return error.isNotFound ? 66 : 65 }
        return 70
    }
}
