import Foundation
import StoredKit

/// A backend under test and the data it keeps, made fresh for each conformance check.
///
/// ``openBackend(corruption:)`` is called several times per check: each call is a new launch of
/// the app, or another process on the same data, so it must return a new backend instance over
/// the same data every time.
///
/// ```swift
/// struct RedisSubject: ConformanceSubject {
///     let namespace = "conformance-\(UUID())"
///     var capabilities: BackendCapabilities { [.persistent, .sharedBetweenInstances, .subSecondDates] }
///     func openBackend(corruption: CorruptionPolicy) throws -> any Backend {
///         RedisBackend(url: "redis://127.0.0.1", namespace: namespace)
///     }
/// }
/// ```
public protocol ConformanceSubject: Sendable {
    /// What the backend can do; checks that need something else are skipped, and say so.
    var capabilities: BackendCapabilities { get }

    /// A new backend instance over this subject's data.
    func openBackend(corruption: CorruptionPolicy) throws -> any Backend

    /// Damages the stored data as a crash or a failing disk would, so that the next open finds
    /// it unreadable. Required with ``BackendCapabilities/detectsCorruption``.
    func damage() throws

    /// Values within the nesting limit that this backend cannot hold (a reserved key, a date its
    /// format has no text for), each of which it must refuse alone. Empty when it holds everything.
    var valuesItCannotHold: [(key: String, value: StoredValue)] { get }
}

extension ConformanceSubject {
    /// A new backend instance with the default corruption policy.
    ///
    /// ```swift
    /// let backend = try subject.openBackend()
    /// ```
    public func openBackend() throws -> any Backend {
        try openBackend(corruption: .quarantine)
    }

    /// A backend that holds every value within the nesting limit.
    ///
    /// ```swift
    /// subject.valuesItCannotHold  //=> []
    /// ```
    public var valuesItCannotHold: [(key: String, value: StoredValue)] { [] }

    /// Subjects without ``BackendCapabilities/detectsCorruption`` have nothing to damage.
    ///
    /// ```swift
    /// try subject.damage()  // throws ConformanceFailure for a memory subject
    /// ```
    public func damage() throws {
        throw ConformanceFailure("\(type(of: self)) declares no way to damage its data")
    }
}

/// What a backend can do, so the suite runs only the checks that apply to it.
///
/// ```swift
/// let capabilities: BackendCapabilities = [.persistent, .sharedBetweenInstances]
/// ```
public struct BackendCapabilities: OptionSet, Sendable, CustomStringConvertible {
    /// The raw bits.
    ///
    /// ```swift
    /// BackendCapabilities.persistent.rawValue  //=> 1
    /// ```
    public let rawValue: Int

    /// Creates a set from raw bits.
    ///
    /// ```swift
    /// BackendCapabilities(rawValue: 3)  //=> [.persistent, .sharedBetweenInstances]
    /// ```
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// A new instance over the same data reads what an earlier one committed.
    public static let persistent = BackendCapabilities(rawValue: 1 << 0)
    /// Two instances open at once see each other's commits, as two processes would.
    public static let sharedBetweenInstances = BackendCapabilities(rawValue: 1 << 1)
    /// Dates keep fractions of a second (an XML property list keeps whole seconds only).
    public static let subSecondDates = BackendCapabilities(rawValue: 1 << 2)
    /// Damaged data is recognised at open and handled by the ``CorruptionPolicy``.
    public static let detectsCorruption = BackendCapabilities(rawValue: 1 << 3)

    /// The names of the capabilities in the set.
    ///
    /// ```swift
    /// BackendCapabilities.persistent.description  //=> "persistent"
    /// ```
    public var description: String {
        let names: [(BackendCapabilities, String)] = [
            (.persistent, "persistent"), (.sharedBetweenInstances, "sharedBetweenInstances"),
            (.subSecondDates, "subSecondDates"), (.detectsCorruption, "detectsCorruption"),
        ]
        return names.filter { contains($0.0) }.map(\.1).joined(separator: ", ")
    }
}

/// A conformance check that found the backend misbehaving, with what it expected.
///
/// ```swift
/// throw ConformanceFailure("a second instance never saw key 'a'")
/// ```
public struct ConformanceFailure: Error, CustomStringConvertible {
    /// What went wrong.
    ///
    /// ```swift
    /// failure.description  //=> "a second instance never saw key 'a'"
    /// ```
    public let description: String

    /// Creates a failure.
    ///
    /// ```swift
    /// ConformanceFailure("the commit was partly applied")
    /// ```
    public init(_ description: String) { self.description = description }
}
