import CXNNPack
import PVThreads
import PVCore

/// Calls into XNNPACK go through here: one place turns a status into a Swift error.
@inline(__always)
func xnnCheck(_ status: xnn_status, _ what: @autoclosure () -> String) throws {
    guard status == xnn_status_success else {
        throw InferenceError(.backendFailure, "XNNPACK failed to \(what()) (status \(status.rawValue))")
    }
}

/// Initialises XNNPACK once per process.
enum XNNPACK {
    static let initialized: Result<Void, InferenceError> = {
        let status = xnn_initialize(nil)
        if status == xnn_status_success { return .success(()) }
        return .failure(InferenceError(.backendFailure, "XNNPACK could not initialise (status \(status.rawValue)); the CPU may lack SSE2"))
    }()

    static func ensureInitialized() throws { try initialized.get() }
}

/// A thread pool for XNNPACK. One per thread count per process, shared by every interpreter: separate
/// pools would each keep worker threads spinning and compete for the same cores. pthreadpool serialises
/// concurrent parallel sections, so sharing is safe.
final class ThreadPool: @unchecked Sendable {
    let handle: pthreadpool_t?
    let threads: Int

    private init(threads: Int) {
        self.threads = threads
        handle = threads > 1 ? pthreadpool_create(threads) : nil
    }

    /// Puts the pool's worker threads to sleep now. After a run they spin-wait for the next one, which keeps
    /// back-to-back inferences fast but holds the cores they sit on; the next run wakes them again (a fraction of a
    /// millisecond), so parking them between the models of one pipeline costs more than it saves.
    func park() {
        guard let handle else { return }
        // An empty task on every worker, with the flag that makes them wait on a futex when it ends.
        pthreadpool_parallelize_1d(handle, { _, _ in }, nil, threads, UInt32(PTHREADPOOL_FLAG_YIELD_WORKERS))
    }

    static let pools = Locked<[Int: ThreadPool]>([:])

    /// The process-wide pool with `threads` threads (nil handle, i.e. the calling thread, for 1).
    static func shared(threads: Int) -> ThreadPool {
        pools.withLock { pools in
            if let p = pools[threads] { return p }
            let p = ThreadPool(threads: threads)
            pools[threads] = p
            if p.handle != nil { SpinningPools.register(.inference) { p.park() } }
            return p
        }
    }
}

/// One XNNPACK subgraph compiled into a runtime, with its external values bound to interpreter buffers.
final class XNNPACKStage {
    private var runtime: xnn_runtime_t?

    /// Builds the subgraph for `nodeIndices` of `plan` and binds its boundary tensors to `buffers`.
    init(plan: Plan, nodeIndices: [Int], buffers: [Int: FloatBuffer], pool: ThreadPool, flags: UInt32) throws {
        // External ids: every boundary tensor touched by these nodes.
        var externalIds: [Int: UInt32] = [:]
        var produced = Set<Int>()
        for n in nodeIndices { for o in plan.nodes[n].outputs { produced.insert(o) } }
        for n in nodeIndices {
            for t in plan.nodes[n].inputs + plan.nodes[n].outputs where buffers[t] != nil && externalIds[t] == nil {
                externalIds[t] = UInt32(externalIds.count)
            }
        }
        var subgraph: xnn_subgraph_t?
        try xnnCheck(xnn_create_subgraph(UInt32(externalIds.count), 0, &subgraph), "create a subgraph")
        defer { xnn_delete_subgraph(subgraph) }
        var builder = SubgraphBuilder(subgraph: subgraph, plan: plan, externalIds: externalIds, produced: produced)
        for n in nodeIndices { try builder.define(plan.nodes[n]) }

        var rt: xnn_runtime_t?
        try xnnCheck(xnn_create_runtime_v2(subgraph, pool.handle, flags, &rt), "create a runtime")
        runtime = rt
        var externals = externalIds.map { t, id in xnn_external_value(id: id, data: UnsafeMutableRawPointer(buffers[t]!.pointer)) }
        try xnnCheck(xnn_setup_runtime(rt, externals.count, &externals), "set up a runtime")
    }

    func invoke() throws {
        try xnnCheck(xnn_invoke_runtime(runtime), "run a subgraph")
    }

    deinit { if let runtime { xnn_delete_runtime(runtime) } }
}

/// Defines a plan's nodes in an XNNPACK subgraph, each tensor value once.
private struct SubgraphBuilder {
    let subgraph: xnn_subgraph_t?
    let plan: Plan
    /// The boundary tensors' external ids, and which of them these nodes produce.
    let externalIds: [Int: UInt32]
    let produced: Set<Int>
    private var values: [Int: UInt32] = [:]

    init(subgraph: xnn_subgraph_t?, plan: Plan, externalIds: [Int: UInt32], produced: Set<Int>) {
        self.subgraph = subgraph
        self.plan = plan
        self.externalIds = externalIds
        self.produced = produced
    }

    /// The subgraph value of tensor `t`, defined on first use (constant data bound, external flags set).
    mutating func value(_ t: Int, xnnShape: [Int]? = nil, staticShape: [Int]? = nil) throws -> UInt32 {
        if let v = values[t] { return v }
        let shape = (xnnShape ?? staticShape ?? plan.shapes[t]).map { $0 }
        var dims = shape.map { Int($0) }
        var id: UInt32 = 0
        let data: UnsafeRawPointer? = plan.constants[t].map { UnsafeRawPointer($0.pointer) }
        var flags: UInt32 = 0
        var external = XNN_INVALID_VALUE_ID
        if let e = externalIds[t] {
            external = e
            flags = produced.contains(t) ? UInt32(XNN_VALUE_FLAG_EXTERNAL_OUTPUT) : UInt32(XNN_VALUE_FLAG_EXTERNAL_INPUT)
        }
        let subgraph = self.subgraph
        try dims.withUnsafeMutableBufferPointer { d in
            try xnnCheck(
                xnn_define_tensor_value(subgraph, xnn_datatype_fp32, d.count, d.baseAddress, data, external, flags, &id),
                "define tensor '\(plan.tensorNames[t])' \(shape)")
        }
        values[t] = id
        return id
    }

    /// Defines one node.
    mutating func define(_ node: Node) throws {
        if try defineWindowed(node) { return }
        let ins = node.inputs
        let out = node.outputs[0]
        let what = "define \(node.name)"
        switch node.kind {
        case .globalAveragePool:
            // The output may be declared [N, C]; XNNPACK wants [N, 1, 1, C], which has the same memory layout.
            let s = plan.shapes[ins[0]]
            try xnnCheck(
                xnn_define_global_average_pooling_2d(
                    subgraph, -.infinity, .infinity, try value(ins[0]),
                    try value(out, xnnShape: [s[0], 1, 1, s[3]]), 0), what)
        case .add(let c), .multiply(let c), .subtract(let c), .divide(let c):
            let a = try value(ins[0]), b = try value(ins[1]), o = try value(out)
            let status: xnn_status
            switch node.kind {
            case .add: status = xnn_define_add2(subgraph, c.min, c.max, a, b, o, 0)
            case .multiply: status = xnn_define_multiply2(subgraph, c.min, c.max, a, b, o, 0)
            case .subtract: status = xnn_define_subtract(subgraph, c.min, c.max, a, b, o, 0)
            default: status = xnn_define_divide(subgraph, c.min, c.max, a, b, o, 0)
            }
            try xnnCheck(status, what)
        case .clamp(let c):
            try xnnCheck(xnn_define_clamp(subgraph, c.min, c.max, try value(ins[0]), try value(out), 0), what)
        case .sigmoid:
            try xnnCheck(xnn_define_sigmoid(subgraph, try value(ins[0]), try value(out), 0), what)
        case .hardSwish:
            try xnnCheck(xnn_define_hardswish(subgraph, try value(ins[0]), try value(out), 0), what)
        case .prelu:
            let channels = plan.shapes[ins[0]].last ?? 1
            let slope = try value(ins[1], staticShape: [channels])
            try xnnCheck(xnn_define_prelu(subgraph, try value(ins[0]), slope, try value(out), 0), what)
        case .pad(let before, let after):
            var pre = before.map { Int($0) } + Array(repeating: 0, count: Int(XNN_MAX_TENSOR_DIMS) - before.count)
            var post = after.map { Int($0) } + Array(repeating: 0, count: Int(XNN_MAX_TENSOR_DIMS) - after.count)
            let x = try value(ins[0]), o = try value(out)
            try pre.withUnsafeMutableBufferPointer { p in
                try post.withUnsafeMutableBufferPointer { q in
                    try xnnCheck(xnn_define_static_constant_pad(subgraph, p.baseAddress, q.baseAddress, 0, x, o, 0), what)
                }
            }
        case .reshape:
            var dims = plan.shapes[out].map { Int($0) }
            let x = try value(ins[0]), o = try value(out)
            try dims.withUnsafeMutableBufferPointer { d in
                try xnnCheck(xnn_define_static_reshape(subgraph, d.count, d.baseAddress, x, o, 0), what)
            }
        case .resizeBilinear(let h, let w, let alignCorners, let halfPixel):
            var flags: UInt32 = 0
            if alignCorners { flags |= UInt32(XNN_FLAG_ALIGN_CORNERS) } else if !halfPixel { flags |= UInt32(XNN_FLAG_TENSORFLOW_LEGACY_MODE) }
            try xnnCheck(xnn_define_static_resize_bilinear_2d(subgraph, h, w, try value(ins[0]), try value(out), flags), what)
        case .depthToSpace(let block):
            try xnnCheck(xnn_define_depth_to_space(subgraph, try value(ins[0]), try value(out), UInt32(block), 0), what)
        case .convolution, .depthwiseConvolution, .deconvolution, .fullyConnected, .maxPool, .averagePool:
            break  // defined above
        case .concatenation, .stridedSlice, .landmarksToTransformMatrix, .transformTensorBilinear, .transformLandmarks:
            preconditionFailure("\(node.name) is a Swift node")
        }
    }

    /// Defines a convolution, fully connected or pooling node; false for other kinds.
    private mutating func defineWindowed(_ node: Node) throws -> Bool {
        let ins = node.inputs
        let out = node.outputs[0]
        let what = "define \(node.name)"
        switch node.kind {
        case .convolution(let w, let groups, let ic, let oc, let c):
            let x = try value(ins[0]), f = try value(ins[1])
            let b = ins.count > 2 ? try value(ins[2]) : XNN_INVALID_VALUE_ID
            try xnnCheck(
                xnn_define_convolution_2d(
                    subgraph, UInt32(w.padTop), UInt32(w.padRight), UInt32(w.padBottom), UInt32(w.padLeft),
                    UInt32(w.kernelH), UInt32(w.kernelW), UInt32(w.strideH), UInt32(w.strideW),
                    UInt32(w.dilationH), UInt32(w.dilationW), UInt32(groups), ic, oc, c.min, c.max,
                    x, f, b, try value(out), 0), what)
        case .depthwiseConvolution(let w, let multiplier, let ic, let c):
            let x = try value(ins[0]), f = try value(ins[1])
            let b = ins.count > 2 ? try value(ins[2]) : XNN_INVALID_VALUE_ID
            try xnnCheck(
                xnn_define_depthwise_convolution_2d(
                    subgraph, UInt32(w.padTop), UInt32(w.padRight), UInt32(w.padBottom), UInt32(w.padLeft),
                    UInt32(w.kernelH), UInt32(w.kernelW), UInt32(w.strideH), UInt32(w.strideW),
                    UInt32(w.dilationH), UInt32(w.dilationW), UInt32(multiplier), ic, c.min, c.max,
                    x, f, b, try value(out), 0), what)
        case .deconvolution(let w, let ic, let oc, let c):
            let x = try value(ins[0]), f = try value(ins[1]), b = try value(ins[2])
            try xnnCheck(
                xnn_define_deconvolution_2d(
                    subgraph, UInt32(w.padTop), UInt32(w.padRight), UInt32(w.padBottom), UInt32(w.padLeft),
                    0, 0, UInt32(w.kernelH), UInt32(w.kernelW), UInt32(w.strideH), UInt32(w.strideW), 1, 1,
                    1, ic, oc, c.min, c.max, x, f, b, try value(out), 0), what)
        case .fullyConnected(let reshape2D, let c):
            let x = try value(ins[0]), f = try value(ins[1])
            let b = ins.count > 2 ? try value(ins[2]) : XNN_INVALID_VALUE_ID
            try xnnCheck(
                xnn_define_fully_connected(
                    subgraph, c.min, c.max, x, f, b, try value(out),
                    reshape2D ? UInt32(XNN_FLAG_TENSORFLOW_RESHAPE_2D) : 0), what)
        case .maxPool(let w, let c):
            try xnnCheck(
                xnn_define_max_pooling_2d(
                    subgraph, UInt32(w.padTop), UInt32(w.padRight), UInt32(w.padBottom), UInt32(w.padLeft),
                    UInt32(w.kernelH), UInt32(w.kernelW), UInt32(w.strideH), UInt32(w.strideW), 1, 1, c.min, c.max,
                    try value(ins[0]), try value(out), 0), what)
        case .averagePool(let w, let c):
            try xnnCheck(
                xnn_define_average_pooling_2d(
                    subgraph, UInt32(w.padTop), UInt32(w.padRight), UInt32(w.padBottom), UInt32(w.padLeft),
                    UInt32(w.kernelH), UInt32(w.kernelW), UInt32(w.strideH), UInt32(w.strideW), c.min, c.max,
                    try value(ins[0]), try value(out), 0), what)
        default:
            return false
        }
        return true
    }
}
