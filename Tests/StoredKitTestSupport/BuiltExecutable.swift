import Foundation

/// An executable of this package (`stored`, `stored-demo`, `stored-torture`, `stored-test-helper`)
/// that SwiftPM built into the directory of the test bundle, found from the running test process.
///
/// ```swift
/// let stored = try BuiltExecutable.url(named: "stored")  //=> file:///…/.build/debug/stored
/// ```
public enum BuiltExecutable {
    /// The executable called `name` in the directory of this process or one of its parents (a test
    /// bundle can sit a few levels below the build directory); throws when none is there.
    ///
    /// ```swift
    /// process.executableURL = try BuiltExecutable.url(named: "stored-demo")
    /// ```
    public static func url(named name: String) throws -> URL {
        let starts = [Bundle.main.executableURL, URL(fileURLWithPath: CommandLine.arguments[0])].compactMap { $0 }
        for start in starts {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<5 {
                let candidate = directory.appending(path: name)
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                    FileManager.default.isExecutableFile(atPath: candidate.path)
                {
                    return candidate
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        throw BuiltExecutableNotFound(name: name, searchedFrom: starts.map(\.path))
    }
}

/// No executable of that name near the test process: it was not built.
///
/// ```swift
/// "\(error)"  //=> "No 'stored' executable near [\"/…/StoredKitPackageTests.xctest\"]; run 'swift build --build-tests' first."
/// ```
public struct BuiltExecutableNotFound: Error, CustomStringConvertible {
    /// The executable looked for.
    ///
    /// ```swift
    /// error.name  //=> "stored"
    /// ```
    public let name: String
    /// Where the search started.
    ///
    /// ```swift
    /// error.searchedFrom  //=> ["/…/StoredKitPackageTests.xctest"]
    /// ```
    public let searchedFrom: [String]

    /// What to tell the person running the tests.
    ///
    /// ```swift
    /// error.description  //=> "No 'stored' executable near …; run 'swift build --build-tests' first."
    /// ```
    public var description: String { "No '\(name)' executable near \(searchedFrom); run 'swift build --build-tests' first." }
}
