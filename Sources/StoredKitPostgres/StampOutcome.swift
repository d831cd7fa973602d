import StoredKit

/// What the stamped writes of one commit came to, key by key, beyond taking effect: the keys
/// whose write lost to a later one the server holds (``PostgresSchema/stampedUpsert`` returned
/// nothing, and the key's stamp there is not this very write's), and those the server recorded
/// with a stamp below the one sent (clamped to its clock plus the skew).
///
/// ```swift
/// var outcome = StampOutcome()
/// outcome.lost.append("volume")
/// outcome.applied(BackendChanges(values: ["volume": .int(1), "mute": .bool(true)])).values.keys  //=> ["mute"]
/// ```
struct StampOutcome {
    /// Keys, as the batch names them, whose write a later one beat: not committed.
    var lost: [String] = []
    /// Keys whose write was recorded at the server's time plus the skew.
    var clamped: [String] = []

    /// Whether nothing is to be told: every write took effect as sent.
    var isQuiet: Bool { lost.isEmpty && clamped.isEmpty }

    /// `changes` less the writes that lost: what the cache takes as committed.
    func applied(_ changes: BackendChanges) -> BackendChanges {
        guard !lost.isEmpty else { return changes }
        var kept = changes
        for key in lost {
            kept.values.removeValue(forKey: key)
            kept.stamps.removeValue(forKey: key)
        }
        return kept
    }
}
