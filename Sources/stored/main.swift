import Foundation

// `stored`: the inspection CLI of StoredKit. Everything happens in StoredCLI; see `stored help`.
do {
    exit(StoredCLI.run(try RawArguments.current()))
} catch {
    Console().error(error.message)
    exit(error.exitCode.rawValue)
}
