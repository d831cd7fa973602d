import Foundation
import StoredKit
import StoredKitConformance
import Testing

/// The conformance suite shipped in `StoredKitConformance`, run on every built-in backend.
@Suite("Every backend passes the conformance suite")
struct BackendConformanceTests {
    @Test(arguments: BuiltInSubject.Kind.allCases, BackendConformance.checks)
    func conforms(_ kind: BuiltInSubject.Kind, _ check: BackendConformance.Check) async throws {
        let subject = try BuiltInSubject(kind)
        try await check.run(on: subject)
    }

    /// A check that no built-in backend can run would pass everywhere without proving anything.
    @Test(arguments: BackendConformance.checks)
    func everyCheckRunsOnSomeBuiltInBackend(_ check: BackendConformance.Check) throws {
        let subjects = try BuiltInSubject.Kind.allCases.map(BuiltInSubject.init)
        #expect(subjects.contains { check.applies(to: $0.capabilities) })
    }

    /// The file backends take every check: only memory skips corruption, and XML sub-second dates.
    @Test func fileBackendsSkipOnlyWhatTheirFormatCannotDo() throws {
        let skipped = { (kind: BuiltInSubject.Kind) throws -> Int in
            let subject = try BuiltInSubject(kind)
            return BackendConformance.checks.filter { !$0.applies(to: subject.capabilities) }.count
        }
        #expect(try skipped(.sqlite) == 0)
        #expect(try skipped(.plistBinary) == 0)
        #expect(try skipped(.plistXML) == 1)
    }
}

/// A built-in backend over a fresh temporary directory (or a fresh shared memory store).
struct BuiltInSubject: ConformanceSubject {
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case memory, plistXML = "plist XML", plistBinary = "plist binary", sqlite = "SQLite"
        var testDescription: String { rawValue }
    }

    let kind: Kind
    let directory: TemporaryDirectory
    private let memory = MemoryBackend()

    init(_ kind: Kind) throws {
        self.kind = kind
        directory = try TemporaryDirectory()
    }

    var file: URL { directory.file(kind == .sqlite ? "prefs.sqlite" : "prefs.plist") }

    var capabilities: BackendCapabilities {
        switch kind {
        case .memory: [.persistent, .sharedBetweenInstances, .subSecondDates]
        case .plistXML: [.persistent, .sharedBetweenInstances, .detectsCorruption]
        case .plistBinary, .sqlite: [.persistent, .sharedBetweenInstances, .subSecondDates, .detectsCorruption]
        }
    }

    func openBackend(corruption: CorruptionPolicy) throws -> any Backend { backend(corruption: corruption) }

    /// A new backend over the data: opening one cannot fail (the file is read on `load`).
    func backend(corruption: CorruptionPolicy = .quarantine) -> any Backend {
        switch kind {
        case .memory: MemoryBackend(sharing: memory)
        case .plistXML: PlistBackend(at: file, format: .xml, corruption: corruption)
        case .plistBinary: PlistBackend(at: file, format: .binary, corruption: corruption)
        case .sqlite: SQLiteBackend(at: file, corruption: corruption)
        }
    }

    var valuesItCannotHold: [(key: String, value: StoredValue)] {
        switch kind {
        case .memory, .sqlite: []
        case .plistBinary: [("StoredKit.metadata", .int(1))]
        case .plistXML: [("StoredKit.metadata", .int(1)), ("far future", .date(Date(timeIntervalSinceReferenceDate: 1e300)))]
        }
    }

    /// Overwrites the start of the file, where both formats keep what identifies them.
    func damage() throws {
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 512))
    }
}
