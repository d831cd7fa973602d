import StoredKit

// What the listener tells a namespace, and the commits whose changes came in their notification
// (``PostgresCommitNotice``), which ``PostgresBackend/load()`` applies instead of reading when
// they continue the revision it has without a gap.
extension PostgresBackend {
    /// What the listener heard since the last ``load()`` took it; guarded by ``heardSinceLoad``.
    struct HeardCommits {
        /// Commits that carried their changes, in the order heard (commit order).
        var notices: [PostgresCommitNotice] = []
        /// The newest revision signalled to the watcher (`Int64.max`: anything may have changed,
        /// 0: nothing): a load that applies notices must reach it, or read.
        var newest: Int64 = 0
        /// The revision of the last notice heard: its `<revision> <namespace>` twin, which comes
        /// right after it, is then no news.
        var lastNoticed: Int64 = 0
    }

    /// More commits heard than this before a load takes them: drop them and read (a store that
    /// stopped loading must not keep an ever longer list).
    static let heardCommitsLimit = 256

    /// Calls the watcher about `revision` (`Int64.max`: anything may have changed), or keeps it
    /// for ``startWatching(_:)`` when none is set yet.
    func changed(_ revision: Int64) {
        heardSinceLoad.withLock { $0.newest = max($0.newest, revision) }
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
        case .changes(let notice):
            guard isNews(notice.revision) else { return }
            heardSinceLoad.withLock { heard in
                if heard.notices.count >= Self.heardCommitsLimit {
                    heard.notices = []
                    heard.newest = .max
                } else {
                    heard.notices.append(notice)
                }
                heard.lastNoticed = notice.revision
            }
            changed(notice.revision)
        case .committed(let revision):
            guard isNews(revision), heardSinceLoad.withLock({ $0.lastNoticed }) != revision else { return }
            changed(revision)
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

    /// Whether a commit of `revision` is someone else's that this backend has not seen.
    private func isNews(_ revision: Int64) -> Bool {
        revision > seenRevision.load(ordering: .acquiring) && revision != ownCommit.load(ordering: .acquiring)
    }

    /// Takes what the listener heard and applies the notices that continue `state.revision`
    /// without a gap, each only on top of exactly the revision it follows. Returns whether that
    /// brought the cache up to every revision signalled, so no read is needed; otherwise the
    /// caller reads what changed after the revision reached (a gap, a notice that does not read,
    /// a commit that came without one, a reconnect, or nothing heard at all: a load asked for
    /// by no signal reads, as it always did).
    func applyHeardCommits(_ state: inout State) -> Bool {
        let heard = heardSinceLoad.withLock { heard in
            defer {
                heard.notices = []
                heard.newest = 0
            }
            return heard
        }
        // Nothing heard beyond what the cache holds (a commit that was news when heard, caught up
        // since by a commit's own read): no signal asked for this load, so it reads. Taken for
        // current, it would miss a commit whose notification has not come yet.
        guard heard.newest > state.revision, heard.newest < .max, var snapshot = state.cached else { return false }
        // Moved out, so applying mutates the only reference instead of copying every value.
        state.cached = nil
        var revision = state.revision
        for notice in heard.notices.sorted(by: { $0.revision < $1.revision }) where notice.revision > revision {
            guard notice.previous == revision, let changes = notice.changes() else { break }
            snapshot.apply(changes)
            revision = notice.revision
        }
        state.cached = snapshot
        if revision != state.revision {
            state.revision = revision
            seenRevision.store(revision, ordering: .releasing)
        }
        return revision >= heard.newest
    }
}
