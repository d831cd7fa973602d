import Testing

extension Trait where Self == TimeLimitTrait {
    /// For the articles' suites that await a change with no deadline of their own
    /// (`await changes.next()`): a change that never comes cancels the test after 5 minutes, which
    /// ends the wait, instead of hanging the whole run.
    static var awaitsChanges: Self { .timeLimit(.minutes(5)) }
}
