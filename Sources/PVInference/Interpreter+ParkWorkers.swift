import CXNNPack
import Synchronization

extension Interpreter {
    /// Puts the worker threads of the process-wide XNNPACK pool to sleep now.
    ///
    /// After a run the workers spin-wait for the next one, which keeps back-to-back inferences fast but
    /// holds the cores the spinning threads sit on. Code that follows a burst of inferences with its own
    /// multi-threaded work (rendering, filtering a full-size mask) calls this first; the next run wakes the
    /// workers again (a fraction of a millisecond), so calling it between the models of one pipeline
    /// costs more than it saves.
    /// Pools that do not exist yet are left alone (none is created).
    package static func parkWorkers(threads: Int? = nil) {
        let n = threads ?? defaultThreadCount
        guard let pool = ThreadPool.pools.withLock({ $0[n] }), let handle = pool.handle else { return }
        // An empty task on every worker, with the flag that makes them wait on a futex when it ends.
        pthreadpool_parallelize_1d(handle, { _, _ in }, nil, pool.threads, UInt32(PTHREADPOOL_FLAG_YIELD_WORKERS))
    }
}
