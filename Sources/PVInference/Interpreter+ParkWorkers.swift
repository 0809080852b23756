import PVThreads

extension Interpreter {
    /// Puts the worker threads of the executor's XNNPACK pools to sleep now (``SpinningPools/quiet(_:)`` with
    /// `.inference`): for code that follows a burst of inferences with multi-threaded work of its own.
    package static func parkWorkers() {
        SpinningPools.quiet(.inference)
    }
}
