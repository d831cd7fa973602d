import Foundation
import StoredKit

/// What the kill and contention scenarios run against: a store file of one kind, or a
/// PostgreSQL server, started on first use so that the file runs come first and cost no server.
enum TortureBackend {
    case file(StoreKind)
    case postgres(server: () throws -> TortureServer)

    /// A server is shared by every client: the races of creating one file do not apply to it.
    var isFile: Bool {
        if case .file = self { true } else { false }
    }
}

/// Where one run of a scenario writes: a scratch directory holding one store file, emptied for
/// each trial, or a PostgreSQL server, where each trial gets a namespace of its own.
///
/// ```swift
/// let target = try TrialTarget(.file(.sqlite), label: "kill")
/// let argument = try target.fresh(trial: 0)  //=> "/tmp/stored-torture-kill-…/prefs.sqlite"
/// let store = try target.reopen(argument)     // as a user would open it next
/// ```
struct TrialTarget {
    private enum Place {
        case file(StoreKind, ScratchDirectory)
        case server(url: String, namespacePrefix: String)
    }

    private let place: Place

    init(_ backend: TortureBackend, label: String) throws {
        switch backend {
        case .file(let kind):
            place = .file(kind, try ScratchDirectory(label))
        case .postgres(let server):
            place = .server(url: try server().url, namespacePrefix: "torture-\(label)-\(UUID().uuidString.prefix(8))")
        }
    }

    /// The backend's name in a figure line: `plist`, `sqlite` or `postgres`.
    var name: String {
        switch place {
        case .file(let kind, _): kind.rawValue
        case .server: "postgres"
        }
    }

    var isFile: Bool {
        if case .file = place { true } else { false }
    }

    /// The child's ``TortureTarget`` argument for `trial`, with nothing stored there yet.
    func fresh(trial: Int) throws -> String {
        switch place {
        case .file(let kind, let directory):
            try directory.clear()
            return directory.file(kind.fileName)
        case .server(let url, let prefix):
            return TortureTarget.postgres(url: url, namespace: "\(prefix)-\(trial)")
        }
    }

    /// Opens what the children wrote as a user would next; a damaged file fails the open.
    func reopen(_ argument: String) throws -> PreferenceStore {
        try TortureTarget(argument).open(corruption: .fail)
    }

    /// Files a killed writer left behind (see ``ScratchDirectory/leftovers(besides:)``); none on a server.
    func leftovers() throws -> [String] {
        guard case .file(let kind, let directory) = place else { return [] }
        return try directory.leftovers(besides: kind.fileName)
    }
}
