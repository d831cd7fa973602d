import Foundation
import StoredKit

/// The exit statuses `stored` documents in `stored help`.
///
/// ```swift
/// ExitCode.keyNotFound.rawValue  //=> 1
/// ```
enum ExitCode: Int32, Sendable {
    case success = 0
    case keyNotFound = 1
    case usage = 2
    case invalidInput = 3
    case corruptStore = 4
    case inputOutput = 5
    /// A PostgreSQL server that could not be reached (not running, wrong host or port, network
    /// down, starting up): unlike 5, trying again later may work.
    case serverUnreachable = 6
    /// A write of a key that an administrator's forced file holds: nothing was written.
    case forced = 7
    /// `stored sync`: the server refused some of the replica's writes (each is listed); they left
    /// the outbox and their keys went back to the server's values. The rest was synchronized.
    case refusedByServer = 8
}

/// A failure that ends the command: its exit status and one line for stderr that names the file
/// or key and says what to do.
///
/// ```swift
/// throw CLIError(.keyNotFound, "Key 'volume' not found in 'prefs.plist'.")
/// ```
struct CLIError: Error, Sendable, CustomStringConvertible {
    let exitCode: ExitCode
    let message: String

    init(_ exitCode: ExitCode, _ message: String) {
        self.exitCode = exitCode
        // One line, whatever the underlying library said.
        self.message = message.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    var description: String { message }

    /// A command line that cannot be run as written.
    static func usage(_ command: String?, _ problem: String) -> CLIError {
        let help = command.map { "Run 'stored help \($0)'." } ?? "Run 'stored help'."
        return CLIError(.usage, "\(problem). \(help)")
    }

    static func keyNotFound(_ key: String, in store: StoreLocation) -> CLIError {
        CLIError(.keyNotFound, "Key '\(key)' not found in '\(store.path)'. Run 'stored keys \(store.argument)' to list the keys.")
    }

    /// Any error a command let through, as the exit status and message the user sees.
    init(_ error: any Error) {
        switch error {
        case let error as CLIError: self = error
        case let error as StoreError: self = CLIError(Self.exitCode(for: error), error.description)
        default: self = CLIError(.inputOutput, "\(error)")
        }
    }

    private static func exitCode(for error: StoreError) -> ExitCode {
        if error.isCorruption { return .corruptStore }
        switch error {
        // SQLSTATE class 08 is a connection failure; 57P01-57P03, a server shutting down or starting up.
        case .postgres(_, let code, _) where code.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(code):
            return .serverUnreachable
        case .backendFailed(_, _, let underlying as StoreError): return exitCode(for: underlying)
        case .forced: return .forced
        // A replica that could not reach its server in time: nothing was lost, the writes wait.
        case .notSynchronized: return .serverUnreachable
        case .typeMismatch, .unrepresentable, .refused, .keyExists, .unsupportedFile, .notStoredKitDatabase,
            .restoredWithoutHeader:
            return .invalidInput
        default: return .inputOutput
        }
    }
}
