import Dispatch
import StoredKit

// What the listener tells a namespace. A notification is only a hint: any role that may connect
// can NOTIFY on the channel (see the threat model in <doc:SharingPreferencesAcrossMachines>), so
// one never carries a value, never moves the revision and never stops a read. It only asks for the
// catch-up read, and notices that keep asking for reads that find nothing are held back
// (``NoticeThrottle``), so a flood costs at most one read per ``idleReadInterval``.
extension PostgresBackend {
    /// Whether notices are asking for reads that find nothing; guarded by ``noticeThrottle``.
    struct NoticeThrottle {
        /// When a read a notice asked for last found nothing new (nil: the last one found something).
        var idleReadAt: ContinuousClock.Instant?
        /// A notice asked for the next load.
        var asked = false
        /// A signal is held back until ``idleReadInterval`` after ``idleReadAt``.
        var deferred = false
    }

    /// The least time between two reads asked for by notices when the first found nothing new:
    /// a flood of forged or replayed notices costs at most one read per namespace per interval,
    /// while a stream of real commits, each of whose reads finds something, is never held back.
    static let idleReadInterval = Duration.milliseconds(100)

    /// Calls the watcher about `revision` (`Int64.max`: anything may have changed), or keeps it
    /// for ``startWatching(_:)`` when none is set yet.
    func changed(_ revision: Int64) {
        let onChange = handlers.withLock { handlers in
            if handlers.onChange == nil { handlers.missed = max(handlers.missed, revision) }
            return handlers.onChange
        }
        onChange?()
    }

    /// What the listener tells this namespace. Called on its thread: the handlers only schedule work.
    func heard(_ signal: PostgresListener.Signal) {
        let onSignal = handlers.withLock { $0.onSignal }
        let server = { (try? PostgresAddress(self.url))?.description ?? self.location }
        switch signal {
        case .committed(let revision):
            // The revision is the sender's word: it only decides whether to look, never what is read.
            guard isNews(revision) else { return }
            noticed(revision)
        case .live(let afterOutage):
            // NOTIFY is lost while disconnected: anything may have changed.
            changed(.max)
            if afterOutage {
                onSignal?(.event(.connectionRestored(server: server())))
                onSignal?(.retryPending)
            }
        case .lost(let reason):
            onSignal?(.event(.connectionLost(server: server(), reason: reason)))
        }
    }

    /// Asks for a read now, or once ``idleReadInterval`` has passed since the last read a notice
    /// asked for found nothing (one deferred signal stands for every notice until then).
    private func noticed(_ revision: Int64) {
        let now = ContinuousClock.now
        let delay: Duration? = noticeThrottle.withLock { throttle in
            guard let idle = throttle.idleReadAt, now - idle < Self.idleReadInterval else {
                throttle.asked = true
                return .zero
            }
            guard !throttle.deferred else { return nil }
            throttle.deferred = true
            return Self.idleReadInterval - (now - idle)
        }
        guard let delay else { return }
        guard delay > .zero else { return changed(revision) }
        let nanoseconds = Int(delay.components.attoseconds / 1_000_000_000) + Int(delay.components.seconds) * 1_000_000_000
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            guard let self else { return }
            noticeThrottle.withLock { throttle in
                throttle.deferred = false
                throttle.asked = true
            }
            changed(.max)
        }
    }

    /// Records whether the read a notice asked for found something (`moved`): see ``NoticeThrottle``.
    func readAfterNotice(moved: Bool) {
        noticeThrottle.withLock { throttle in
            guard throttle.asked else { return }
            throttle.asked = false
            throttle.idleReadAt = moved ? nil : ContinuousClock.now
        }
    }

    /// Whether a commit of `revision` may be someone else's that this backend has not seen.
    private func isNews(_ revision: Int64) -> Bool {
        revision > seenRevision.load(ordering: .acquiring) && revision != ownCommit.load(ordering: .acquiring)
    }

    /// Tells the listener the namespace's notification token the last read or write found, so it
    /// hands this namespace only the notices that name it (once it has subscribers here).
    func learnToken(_ state: inout State) {
        guard let token = state.notifyToken, let listener = state.server?.startedListener else { return }
        listener.learn(token: token, for: namespace)
    }
}
