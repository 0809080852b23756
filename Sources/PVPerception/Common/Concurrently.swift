import Dispatch
import Synchronization

/// Runs independent jobs side by side (each on its own thread, as many at once as there are cores) and
/// returns their results in the jobs' order; the first error, by order, is thrown. The pipelines' models
/// run single-threaded, so two passes that do not depend on each other finish in the time of the longer.
package func concurrently<T: Sendable>(_ jobs: [@Sendable () throws -> T]) throws -> [T] {
    if jobs.count == 1 { return [try jobs[0]()] }
    let results = Mutex<[Int: Result<T, any Error>]>([:])
    DispatchQueue.concurrentPerform(iterations: jobs.count) { k in
        let r = Result { try jobs[k]() }
        results.withLock { $0[k] = r }
    }
    return try results.withLock { done in try (0..<jobs.count).map { try done[$0]!.get() } }
}
