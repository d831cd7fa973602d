import Foundation

/// What `posix_spawn` children of the tests and tools need beyond their own descriptors: nothing.
///
/// ```swift
/// posix_spawn_file_actions_adddup2(&actions, pipeEnd, STDOUT_FILENO)
/// SpawnActions.closeEverythingElse(&actions)
/// ```
public enum SpawnActions {
    /// Adds glibc's `posix_spawn_file_actions_addclosefrom_np(actions, 3)` (glibc 2.34+; Swift's
    /// Glibc module leaves `_GNU_SOURCE` functions out, so it is looked up at run time). Without it
    /// a child inherits every descriptor of ours that lacks close-on-exec: another test's pipe,
    /// whose reader then waits for as long as this child runs, or the socket through which
    /// Foundation learns that one of its children ended. Returns whether the action was added.
    ///
    /// ```swift
    /// SpawnActions.closeEverythingElse(&actions)  //=> true
    /// ```
    @discardableResult
    public static func closeEverythingElse(_ actions: inout posix_spawn_file_actions_t) -> Bool {
        guard let closeFrom else { return false }
        return closeFrom(&actions, STDERR_FILENO + 1) == 0
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    private static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: CloseFrom.self)
    }
}
