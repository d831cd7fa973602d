/// A local write waiting for the next commit: the value (`nil`: a removal) and, for a backend
/// that merges by when writes were made (``Backend/writeClock``), the stamp its `set` took.
struct PendingChange {
    var value: StoredValue?
    var stamp: HybridTimestamp?

    init(_ value: StoredValue?, stamp: HybridTimestamp?) {
        self.value = value
        self.stamp = stamp
    }
}
