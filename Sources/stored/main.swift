import Foundation

// `stored`: the inspection CLI of StoredKit. Everything happens in StoredCLI; see `stored help`.
exit(StoredCLI.run(Array(CommandLine.arguments.dropFirst())))
