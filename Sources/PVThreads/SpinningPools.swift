import PVCore

/// The one way a thread pool yields the cores to another.
///
/// Two kinds of pools keep their idle threads checking for work for a while after their last job, so that back-to-back
/// jobs start at once: ``WorkerPool`` (side-by-side work of every layer) and the executor's XNNPACK pools (the threads
/// of a multi-threaded model run). While they check, they hold cores. Code about to run threads of another kind (a
/// multi-threaded model run after side-by-side work, a full-size image kernel after a burst of model runs) makes the
/// other kind quiet first; the quiet pool's next job wakes it again.
package enum SpinningPools {
    /// A kind of pool.
    package enum Pool: Hashable, Sendable {
        /// ``WorkerPool/shared``.
        case workers
        /// The executor's XNNPACK thread pools.
        case inference
    }

    private static let quieters = Locked<[Pool: [@Sendable () -> Void]]>([.workers: [{ WorkerPool.shared.stopSpinning() }]])

    /// Makes `pool`'s idle threads sleep now (it does nothing to pools not made yet).
    package static func quiet(_ pool: Pool) {
        for quiet in quieters.withLock({ $0[pool] ?? [] }) { quiet() }
    }

    /// Registers how to quiet one pool of a kind (called once per pool, when it is made).
    package static func register(_ pool: Pool, quiet: @escaping @Sendable () -> Void) {
        quieters.withLock { $0[pool, default: []].append(quiet) }
    }
}
