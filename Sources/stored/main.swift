import Foundation
import StoredKit

// `stored`: the inspection CLI of StoredKit. Everything happens in StoredCLI; see `stored help`.
// SIGINT and SIGTERM end it through the exit sequence (flush, close connections): 130 and 143.
TerminationSignals.endThroughExitSequence()
exit(StoredCLI.run(Array(CommandLine.arguments.dropFirst())))
