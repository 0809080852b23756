import CThreads
import Foundation

/// How many cores this process may really use: the CPUs of its affinity mask (`taskset`, `docker --cpuset-cpus`),
/// bounded by its cgroup's CPU quota (`docker --cpus`, Kubernetes limits). `ProcessInfo.activeProcessorCount` reports
/// the machine's cores on Linux, so a process limited to one core would start worker threads that can only take turns
/// with it, or spin against it.
package enum CPUBudget {
    /// The usable core count (at least 1), read once per process.
    package static let available: Int = {
        var cores = ProcessInfo.processInfo.activeProcessorCount
        #if os(Linux)
        if let mask = affinityCount() { cores = min(cores, mask) }
        if let quota = (try? String(contentsOfFile: "/sys/fs/cgroup/cpu.max", encoding: .utf8)).flatMap(quotaCores(cgroupV2:)) {
            cores = min(cores, quota)
        }
        #endif
        return max(1, cores)
    }()

    /// XNNPACK threads per model run in the pipelines: one. Side-by-side work uses the other cores (two passes at once,
    /// several requests at once); a second thread inside a run saves about a third of a large model's time on an idle
    /// machine, but on a busy one the threads of a multi-threaded run wait for each other between operators, and runs
    /// became 5–20 times slower (`peoplevision bench bodies`: 52 ms with one thread, 978 ms with two, at load 6).
    package static let modelThreads = 1

    /// Cores a cgroup v2 `cpu.max` line grants ("max 100000": no limit; "150000 100000": 1.5, rounded up to 2).
    package static func quotaCores(cgroupV2 line: String) -> Int? {
        let fields = line.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, let quota = Double(fields[0]), let period = Double(fields[1]), quota > 0, period > 0 else {
            return nil
        }
        return max(1, Int((quota / period).rounded(.up)))
    }

    /// CPUs in the calling thread's affinity mask (the process's, unless a thread narrowed its own).
    package static func affinityCount() -> Int? {
        let count = Int(pvt_affinity_cpu_count())
        return count > 0 ? count : nil
    }
}
