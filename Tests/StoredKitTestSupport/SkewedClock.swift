import Foundation

/// A wall clock a fixed offset ahead of or behind this machine's, for a child process: the
/// environment that makes its `Date()` (every `CLOCK_REALTIME` read, `time`, `gettimeofday`,
/// and the file times it reads with `stat`, as on a machine whose clock is off) shifted, through
/// libfaketime (Debian's `faketime` package, which `make test` installs). Its monotonic clocks stay
/// real (`FAKETIME_DONT_FAKE_MONOTONIC`), so its timeouts and `ContinuousClock` are untouched.
///
/// ```swift
/// let process = Process()
/// process.executableURL = try BuiltExecutable.url(named: "stored-test-helper")
/// process.arguments = ["print-time"]
/// process.environment = ProcessInfo.processInfo.environment.merging(try SkewedClock.days(1).environment()) { $1 }
/// try process.run()  // prints tomorrow's time
/// ```
public struct SkewedClock: Sendable, Equatable {
    /// How far the child's wall clock is ahead of this machine's, in whole seconds (libfaketime's
    /// unit); negative when it is behind.
    ///
    /// ```swift
    /// SkewedClock.days(-1).seconds  //=> -86400
    /// ```
    public let seconds: Int

    /// A clock `seconds` ahead (negative: behind).
    ///
    /// ```swift
    /// let clock = SkewedClock(seconds: 90)  // a minute and a half ahead
    /// ```
    public init(seconds: Int) {
        self.seconds = seconds
    }

    /// A clock `days` days ahead (negative: behind).
    ///
    /// ```swift
    /// let behind = SkewedClock.days(-1)
    /// ```
    public static func days(_ days: Int) -> SkewedClock { SkewedClock(seconds: days * 86_400) }

    /// A clock `hours` hours ahead (negative: behind).
    ///
    /// ```swift
    /// let ahead = SkewedClock.hours(3)
    /// ```
    public static func hours(_ hours: Int) -> SkewedClock { SkewedClock(seconds: hours * 3_600) }

    /// The variables to add to a child's environment: libfaketime preloaded (after whatever this
    /// process preloads), the offset, real monotonic clocks, and a placeholder that keeps a Swift
    /// child's arguments. Throws when libfaketime is not installed. A child killed with SIGKILL
    /// leaves two small files in `/dev/shm`: ``removeLeftovers(of:)`` removes them.
    ///
    /// ```swift
    /// try SkewedClock.days(1).environment()
    /// //=> ["LD_PRELOAD": "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1", "FAKETIME": "+86400",
    /// //    "FAKETIME_DONT_FAKE_MONOTONIC": "1", "FAKETIME_SHARED": "/storedkit-faketime-unset …"]
    /// ```
    public func environment() throws -> [String: String] {
        guard let library = Self.library else { throw SkewedClockUnavailable() }
        let preloaded = ProcessInfo.processInfo.environment["LD_PRELOAD"].map { $0.isEmpty ? [] : [$0] } ?? []
        return [
            "LD_PRELOAD": (preloaded + [library]).joined(separator: ":"),
            // libfaketime's relative form: a sign and seconds; the clock then runs on at the real rate.
            "FAKETIME": seconds < 0 ? "\(seconds)" : "+\(seconds)",
            // Monotonic clocks are a process's timeouts and deadlines: they stay the machine's own.
            "FAKETIME_DONT_FAKE_MONOTONIC": "1",
            // Names no semaphore: libfaketime then makes its own and overwrites this variable in
            // place. Were the variable missing, the `setenv` adding it would move `environ` off the
            // stack before the Swift runtime finds `argv` through it, and the child's
            // `CommandLine.arguments` would be empty (swiftlang/swift#76080).
            "FAKETIME_SHARED": Self.placeholder,
        ]
    }

    /// What ``environment()`` sets `FAKETIME_SHARED` to: a semaphore and a shared memory no one has.
    static let placeholder = "/storedkit-faketime-unset /storedkit-faketime-unset"

    /// Removes what libfaketime left in `/dev/shm` for the process `pid` once it is gone: it makes a
    /// semaphore and a shared memory object for each process (`faketime_sem_PID`, `faketime_shm_PID`)
    /// and removes them at exit, which a SIGKILL skips. Nothing happens for a process that made none.
    ///
    /// ```swift
    /// kill(child.processIdentifier, SIGKILL)
    /// child.waitUntilExit()
    /// SkewedClock.removeLeftovers(of: child.processIdentifier)
    /// ```
    public static func removeLeftovers(of pid: Int32) {
        guard pid > 0 else { return }
        for name in ["faketime_shm_\(pid)", "sem.faketime_sem_\(pid)"] {
            try? FileManager.default.removeItem(atPath: "/dev/shm/" + name)
        }
    }

    /// libfaketime's library on this machine, or nil when it is not installed: Debian puts it in
    /// `faketime/` beside the C library (`/usr/lib/<multiarch>/`, which the dynamic loader knows as
    /// `$LIB`), so it is looked for next to the libc this process runs with, whatever the
    /// architecture; a build from source (`make install`) puts it in `/usr/local/lib/faketime/`.
    ///
    /// ```swift
    /// SkewedClock.library  //=> "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
    /// ```
    public static let library: String? = {
        var directories = ["/usr/local/lib"]
        if let libc = loadedLibC() { directories.insert(libc, at: 0) }
        return directories.map { $0 + "/faketime/libfaketime.so.1" }.first { FileManager.default.fileExists(atPath: $0) }
    }()

    /// The directory of the C library this process was loaded with (`/usr/lib/x86_64-linux-gnu`),
    /// as the kernel's map of this process's memory names it.
    private static func loadedLibC() -> String? {
        // Read to the end, not by the file's size: /proc reports a size of 0.
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/maps") else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        let maps = String(decoding: data, as: UTF8.self)
        let path = maps.split(separator: "\n").lazy.compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init)
        }.first { $0.hasPrefix("/") && $0.hasSuffix("/libc.so.6") }
        return path.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().deletingLastPathComponent().path }
    }
}

/// libfaketime is not installed, so no child can be started with a skewed clock.
///
/// ```swift
/// "\(SkewedClockUnavailable())"  //=> "libfaketime is not installed: run `make test` (it installs it), or `apt-get install faketime`."
/// ```
public struct SkewedClockUnavailable: Error, CustomStringConvertible {
    /// The error ``SkewedClock/environment()`` throws.
    ///
    /// ```swift
    /// throw SkewedClockUnavailable()
    /// ```
    public init() {}

    /// What to tell the person running the tests.
    ///
    /// ```swift
    /// SkewedClockUnavailable().description  //=> "libfaketime is not installed: …"
    /// ```
    public var description: String {
        "libfaketime is not installed: run `make test` (it installs it), or `apt-get install faketime`."
    }
}
