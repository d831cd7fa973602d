import Foundation
import StoredKit
import Testing

/// The checks every ``Backend`` must pass: values round-trip through a new instance, commits are
/// all or nothing, exclusive access commits nothing when its body throws, other instances'
/// writes reach a store (observed or not), corruption follows the policy, the nesting limit
/// holds, and as the user's layer under forced, argument and defaults layers it holds the user's
/// writes only. Run them from a Swift Testing test, one test case per check:
///
/// ```swift
/// import StoredKitConformance
/// import Testing
///
/// @Test(arguments: BackendConformance.checks)
/// func redisBackendConforms(_ check: BackendConformance.Check) async throws {
///     try await check.run(on: RedisSubject())
/// }
/// ```
///
/// A check that needs a capability the subject lacks is skipped visibly: the test case records a
/// warning that names the missing capability, so the report shows what was not checked.
public enum BackendConformance {
    /// One check: a name, what it needs, and its body.
    ///
    /// ```swift
    /// BackendConformance.checks.map(\.name)  //=> ["values round-trip", ...]
    /// ```
    public struct Check: Sendable, CustomTestStringConvertible, CustomStringConvertible {
        /// What the check proves, as it appears in test reports.
        ///
        /// ```swift
        /// check.name  //=> "a commit is all or nothing"
        /// ```
        public let name: String
        /// The capabilities the subject must have for the check to apply.
        ///
        /// ```swift
        /// check.requires  //=> [.persistent]
        /// ```
        public let requires: BackendCapabilities
        let body: @Sendable (any ConformanceSubject) async throws -> Void

        init(
            _ name: String, requires: BackendCapabilities = [],
            _ body: @escaping @Sendable (any ConformanceSubject) async throws -> Void
        ) {
            self.name = name
            self.requires = requires
            self.body = body
        }

        /// The check's name, for test reports.
        ///
        /// ```swift
        /// check.testDescription  //=> "a commit is all or nothing"
        /// ```
        public var testDescription: String { name }
        /// The check's name.
        ///
        /// ```swift
        /// "\(check)"  //=> "a commit is all or nothing"
        /// ```
        public var description: String { name }

        /// Whether the check applies to a backend with `capabilities`.
        ///
        /// ```swift
        /// check.applies(to: [.persistent])  //=> true
        /// ```
        public func applies(to capabilities: BackendCapabilities) -> Bool {
            capabilities.isSuperset(of: requires)
        }

        /// Runs the check on `subject`; skips it (recording a warning with the reason) when the
        /// subject lacks a capability the check needs.
        ///
        /// ```swift
        /// try await check.run(on: SQLiteSubject())
        /// ```
        public func run(on subject: some ConformanceSubject) async throws {
            guard applies(to: subject.capabilities) else {
                let missing = requires.subtracting(subject.capabilities)
                Self.skip("'\(name)' needs \(missing), which \(type(of: subject)) does not declare")
                return
            }
            try await body(subject)
        }

        /// A skipped check shows in the report as a warning naming the missing capability (a
        /// cancelled test case would pass silently), and does not fail the run.
        private static func skip(_ reason: String) {
            #if compiler(>=6.3)
                Issue.record(Comment(rawValue: "skipped: \(reason)"), severity: .warning)
            #else
                print("skipped: \(reason)")
            #endif
        }
    }

    /// Every check, in a stable order.
    ///
    /// ```swift
    /// BackendConformance.checks.count  //=> 20
    /// ```
    public static let checks: [Check] =
        RoundTripChecks.all + CommitChecks.all + SharingChecks.all + CorruptionChecks.all + LimitChecks.all
        + ConnectivityChecks.all + LayerChecks.all
}
