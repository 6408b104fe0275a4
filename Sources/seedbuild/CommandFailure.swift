import ArgumentParser
import Foundation
import SeedModel
import SeedPipeline
import SeedStore

/// Turns library errors into messages on stderr and `sysexits` exit statuses.
enum CommandFailure {
    /// Runs `body`; on an error prints it and exits with its status.
    /// - Parameter status: the exit status whatever the error (a usage error's 64); by default the error's own.
    static func exitOnError<T, E: Error>(status fixed: Int32? = nil, _ body: () throws(E) -> T) throws -> T {
        do {
            return try body()
        } catch let held as ChangeBudgetExceeded {
            // Kept whole, so a report (--json) can carry its changes; ``reportingFailure`` exits 65.
            printError(message(for: held))
            throw held
        } catch {
            printError(message(for: error))
            throw ExitCode(fixed ?? status(for: error))
        }
    }

    /// Runs a command's body; with `--json`, a failure also prints one object on stdout,
    /// `{"outcome": "failed", "exitCode": N}`, as `run --json` records a failed stage, so a
    /// script reading stdout always gets JSON. The message stays on stderr.
    static func reportingFailure<T>(asJSON json: Bool, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let exit as ExitCode where json {
            print(RunReport.text(["outcome": "failed", "exitCode": Int(exit.rawValue)]))
            throw exit
        } catch let held as ChangeBudgetExceeded {
            let exit = ExitCode(status(for: held))
            if json {
                print(RunReport.text(["outcome": "held", "exitCode": Int(exit.rawValue), "changes": BuildReport.changes(held.report)]))
            }
            throw exit
        }
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func message(for error: Error) -> String {
        switch error {
        case let error as ModelError: error.description
        case let error as IngestError:
            error.rejectedRows.map { "rejected: \($0)\n" }.joined() + "error: \(error)"
        case let error as StoreError where error.kind == .noModel: "error: \(error); pass it with --model PATH"
        case let error as StoreError: "error: \(error)"
        case let error as MigrationRefusal: "error: \(error)"
        case let error as PublishError: "error: \(error)"
        case let error as InstallError: "error: \(error)"
        case let error as TransferError: "error: \(error)"
        case let error as GzipError: "error: \(error)"
        case let error as FetchPredicateError: "error: \(error)"
        case let error as ContextError: "error: \(error)"
        case let error as CoordinatorError: "error: \(error)"
        case let error as ChangeBudgetExceeded:
            "error: \(error)\nIf the change is expected, rerun with --accept-change (this run only), or raise the budget in \(ProjectFile.fileName): "
                + "\"changeBudget\": {\"removed\": 0.05, \"changed\": 0.25, \"entities\": {\"\(error.breaches.first?.entity ?? "Entity")\": {\"removed\": 0.5}}}"
        default: "error: \(error)"
        }
    }

    /// The `sysexits` status: 64 usage, 65 bad input data, 66 missing input, 70 internal error,
    /// 73 cannot create output, 74 I/O error.
    static func status(for error: Error) -> Int32 {
        switch error {
        case let error as ModelError:
            return error.isNotFound ? 66 : 65
        case let error as IngestError:
            switch error.kind {
            case .missingInput: return 66
            case .badData, .badProjectFile, .tooManyRejects: return 65
            case .cannotCreateOutput: return 73
            case .ioFailure: return 74
            case .inputChanged, .busy, .unavailable: return 75
            }
        case let error as InstallError where error.kind == .noRelease:
            // Nothing published at that channel: the input is missing.
            return 66
        case is MigrationRefusal, is InstallError:
            return 70
        case let error as PublishError:
            return error.isRefusal ? 65 : error.isTransient ? 75 : 74
        case let error as TransferError:
            return error.isTransient ? 75 : 74
        case is FetchPredicateError, is ContextError, is ChangeBudgetExceeded:
            return 65
        case let error as GzipError:
            if case .io = error.kind { return 74 }
            return 65
        case let error as CoordinatorError:
            return error.kind == .incompatibleStore || error.kind == .crossStoreRelationship ? 70 : 65
        case let error as StoreError:
            switch error.kind {
            case .notFound: return 66
            case .notASeedStore: return 65
            case .noModel: return 66
            case .io: return 74
            case .refused: return 65
            case .sqlite: return 70
            }
        default:
            return 70
        }
    }
}
