import Foundation
import StoredKit

// `stored`: the inspection CLI of StoredKit. Everything happens in StoredCLI; see `stored help`.
// SIGINT and SIGTERM end it through the exit sequence (flush, close connections): 130 and 143.
TerminationSignals.endThroughExitSequence()
do {
    exit(StoredCLI.run(try RawArguments.current()))
} catch {
    Console().error(error.message)
    exit(error.exitCode.rawValue)
}
