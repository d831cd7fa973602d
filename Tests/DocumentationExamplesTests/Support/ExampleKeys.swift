import StoredKit

// The keys the articles declare, once for the whole target (a key declared in two files of one
// module would clash). Each article shows the declaration it needs.
extension StoredKeys {
    static let volume = StoredKey<Double>("volume", default: 0.5)
    static let launchCount = StoredKey<Int>("launchCount", default: 0)
}
