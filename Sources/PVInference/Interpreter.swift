import CInferenceKernels
import CXNNPack
import Foundation
import PVThreads
import Synchronization
import PVCore

/// Runs a ``CompiledModel``: write the inputs, ``invoke()``, read the outputs.
///
/// Each interpreter owns its activation buffers (allocated once, reused by every run) and its
/// XNNPACK runtimes; the weights belong to the shared model. An interpreter is used by one thread
/// at a time; create one per thread (they are cheap next to the model) to run in parallel.
///
/// ```swift
/// let interpreter = try Interpreter(model: model, threads: 2)
/// interpreter.withInput(0) { tensor in fill(tensor) }
/// try interpreter.invoke()
/// let scores = interpreter.output(1)
/// ```
public final class Interpreter {
    /// The model this interpreter runs.
    public let model: CompiledModel
    /// Threads XNNPACK uses.
    public let threads: Int

    private let pool: ThreadPool
    private let buffers: [Int: FloatBuffer]
    /// Storage of every tensor the Swift and C kernels touch, by tensor index (interpreter-owned or constant), and
    /// each node's own kernel: resolved once, since a model can run a hundred such nodes per inference.
    private let storage: [UnsafeMutablePointer<Float>?]
    private let native: [NativeKernel?]
    private let nodes: [Node]
    private let shapes: [[Int]]
    private let stages: [(xnn: XNNPACKStage?, swift: [Int], node: Int)]

    /// Default thread count: the cores this process may use (its affinity mask and CPU quota, ``CPUBudget``).
    public static var defaultThreadCount: Int { CPUBudget.available }

    /// Creates an interpreter.
    /// - Parameters:
    ///   - threads: XNNPACK threads (default: ``defaultThreadCount``).
    ///   - sparseInference: let XNNPACK run 1×1 convolutions with sparse weights in its sparse (NCHW) mode.
    public convenience init(model: CompiledModel, threads: Int? = nil, sparseInference: Bool = false) throws {
        try self.init(model: model, threads: threads, sparseInference: sparseInference, profiling: false)
    }

    /// With `profiling`, every XNNPACK node becomes its own runtime so that ``profile(iterations:)`` can time it.
    init(model: CompiledModel, threads: Int?, sparseInference: Bool, profiling: Bool) throws {
        try XNNPACK.ensureInitialized()
        let n = threads ?? Self.defaultThreadCount
        guard n >= 1, n <= 256 else { throw InferenceError(.invalidArgument, "thread count \(n) is out of range 1…256") }
        self.model = model
        self.threads = n
        let pool = ThreadPool.shared(threads: n)
        self.pool = pool
        let plan = model.plan
        var buffers: [Int: FloatBuffer] = [:]
        let owned = profiling ? Set(plan.nodes.flatMap { $0.inputs + $0.outputs }).filter { plan.constants[$0] == nil }.sorted() : plan.boundaryTensors
        if profiling {
            for t in owned { buffers[t] = FloatBuffer(count: plan.shapes[t].reduce(1, *)) }
        } else {
            // One arena in which tensors with disjoint lifetimes share memory: each own-kernel node splits a
            // subgraph, and a buffer per boundary tensor would spread the activations far beyond the caches.
            let layout = plan.arenaLayout(owned)
            let arena = FloatBuffer(count: layout.count)
            for t in owned {
                buffers[t] = FloatBuffer(viewing: arena, offset: layout.offsets[t]!, count: plan.shapes[t].reduce(1, *))
            }
        }
        self.buffers = buffers
        var storage = [UnsafeMutablePointer<Float>?](repeating: nil, count: plan.shapes.count)
        for (t, c) in plan.constants { storage[t] = c.pointer }
        for (t, b) in buffers { storage[t] = b.pointer }
        self.storage = storage
        native = plan.nodes.indices.map { plan.nativeKernels[$0] }
        nodes = plan.nodes
        shapes = plan.shapes
        // Workers are not yielded after a run (XNN_FLAG_YIELD_WORKERS): waking them again costs more than a small
        // model's whole inference, and the shared pool keeps them from competing with other interpreters.
        var flags: UInt32 = 0
        if sparseInference { flags |= UInt32(XNN_FLAG_SPARSE_INFERENCE) }
        if profiling {
            stages = try plan.nodes.indices.map { n in
                plan.runsOnXNNPACK(n)
                    ? (try XNNPACKStage(plan: plan, nodeIndices: [n], buffers: buffers, pool: pool, flags: flags), [], n)
                    : (nil, [n], n)
            }
        } else {
            stages = try plan.stages.map { stage in
                let xnn = stage.xnnNodes.isEmpty
                    ? nil : try XNNPACKStage(plan: plan, nodeIndices: stage.xnnNodes, buffers: buffers, pool: pool, flags: flags)
                return (xnn, stage.swiftNodes, -1)
            }
        }
    }

    /// Gives `body` the float storage of input `index` to fill (NHWC, row-major).
    public func withInput<R>(_ index: Int, _ body: (UnsafeMutableBufferPointer<Float>) throws -> R) rethrows -> R {
        try body(buffers[model.plan.inputs[index]]!.buffer)
    }

    /// Copies `values` into input `index`.
    /// - Throws: ``InferenceError`` `.invalidArgument` when the count does not match the input's shape.
    public func setInput(_ index: Int, _ values: [Float]) throws {
        guard index >= 0, index < model.inputs.count else {
            throw InferenceError(.invalidArgument, "input \(index) does not exist; the model has \(model.inputs.count)")
        }
        guard values.count == model.inputs[index].elementCount else {
            throw InferenceError(.invalidArgument, "input \(index) needs \(model.inputs[index].elementCount) values, got \(values.count)")
        }
        withInput(index) { dst in _ = dst.update(fromContentsOf: values) }
    }

    /// Runs the model on the current inputs.
    /// - Throws: ``InferenceError`` `.cancelled`, before running anything, when the current thread's work has been
    ///   asked to stop (``PVThreads/Cancellation``).
    public func invoke() throws {
        if Cancellation.isRequested { throw InferenceError(.cancelled, "stopped before running \(model.name): the work was cancelled") }
        Self.inFlight.add(1, ordering: .relaxed)
        defer { Self.inFlight.subtract(1, ordering: .relaxed) }
        let start = InferenceTimeline.isRecording ? DispatchTime.now().uptimeNanoseconds : 0
        for stage in stages {
            try stage.xnn?.invoke()
            for n in stage.swift { run(n) }
        }
        if start != 0 { InferenceTimeline.append(model: model.name, start: start, end: DispatchTime.now().uptimeNanoseconds) }
    }

    /// Model runs under way in this process, on any interpreter.
    private static let inFlight = Atomic<Int>(0)

    /// How many model runs are under way in this process right now: a pipeline about to run a model on several threads
    /// checks that nothing else would compete for the cores.
    package static var runsInFlight: Int { inFlight.load(ordering: .relaxed) }

    /// Per-operator timing: builds a profiling interpreter (one XNNPACK runtime per operator) and returns, per
    /// lowered operator, its description and its median time in milliseconds over `iterations` runs.
    public static func profile(model: CompiledModel, threads: Int, iterations: Int) throws -> [(operator: String, milliseconds: Double)] {
        let p = try Interpreter(model: model, threads: threads, sparseInference: false, profiling: true)
        var samples = [[Double]](repeating: [], count: p.stages.count)
        for run in 0..<(iterations + 2) {
            for (k, stage) in p.stages.enumerated() {
                let start = DispatchTime.now().uptimeNanoseconds
                try stage.xnn?.invoke()
                for n in stage.swift { p.run(n) }
                if run >= 2 { samples[k].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6) }
            }
        }
        return zip(p.stages, samples).map { stage, s in
            let node = model.plan.nodes[stage.node]
            let sorted = s.sorted()
            return ("\(node.kind.summary) \(model.plan.shapes[node.inputs[0]])→\(model.plan.shapes[node.outputs[0]])", sorted[sorted.count / 2])
        }
    }

    /// Gives `body` the float storage of output `index` (valid until the next ``invoke()``).
    public func withOutput<R>(_ index: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(buffers[model.plan.outputs[index]]!.buffer))
    }

    /// A copy of output `index`.
    public func output(_ index: Int) -> [Float] { withOutput(index) { Array($0) } }

    private func pointer(_ t: Int) -> UnsafeMutablePointer<Float> { storage[t]! }

    private func run(_ n: Int) {
        let node = nodes[n]
        if let native = native[n] {
            runNative(native, node)
            return
        }
        switch node.kind {
        case .concatenation(let axis, let clamp):
            SwiftKernels.concatenate(
                inputs: node.inputs.map { (UnsafePointer(pointer($0)), shapes[$0]) }, axis: axis, clamp: clamp,
                output: pointer(node.outputs[0]))
        case .stridedSlice(let begin, let end, let strides):
            SwiftKernels.stridedSlice(
                input: pointer(node.inputs[0]), shape: shapes[node.inputs[0]], begin: begin, end: end,
                strides: strides, output: pointer(node.outputs[0]))
        case .landmarksToTransformMatrix(let crop):
            SwiftKernels.landmarksToTransformMatrix(
                pointer(node.inputs[0]), stride: shapes[node.inputs[0]][2], crop: crop, output: pointer(node.outputs[0]))
        case .transformTensorBilinear:
            let xs = shapes[node.inputs[0]], ys = shapes[node.outputs[0]]
            SwiftKernels.transformTensorBilinear(
                pointer(node.inputs[0]), height: xs[1], width: xs[2], channels: xs[3], matrix: pointer(node.inputs[1]),
                output: pointer(node.outputs[0]), outputHeight: ys[1], outputWidth: ys[2])
        case .transformLandmarks:
            let xs = shapes[node.inputs[0]]
            SwiftKernels.transformLandmarks(
                pointer(node.inputs[0]), count: xs[1], dimensions: xs[2], matrix: pointer(node.inputs[1]),
                output: pointer(node.outputs[0]))
        default:
            preconditionFailure("\(node.name) runs on XNNPACK")
        }
    }
}

extension Interpreter {
    fileprivate func runNative(_ kernel: NativeKernel, _ node: Node) {
        let xs = shapes[node.inputs[0]]
        let input = UnsafePointer(pointer(node.inputs[0])), output = pointer(node.outputs[0])
        let weights = UnsafePointer(pointer(node.inputs[1]))
        let bias = node.inputs.count > 2 ? UnsafePointer(pointer(node.inputs[2])) : nil
        switch (kernel, node.kind) {
        case (.depthwise3x3(let expanded), .depthwiseConvolution(_, _, let channels, let clamp)):
            pvk_depthwise3x3(input, output, xs[1], xs[2], channels, weights, bias, expanded.pointer, clamp.min, clamp.max, pool.handle)
        case (.convolution3x3ToOne(let expanded), .convolution(_, _, let channels, _, let clamp)):
            pvk_conv3x3_to1(input, output, xs[1], xs[2], channels, weights, bias?.pointee ?? 0, expanded.pointer, clamp.min, clamp.max, pool.handle)
        case (.convolution1x1, .convolution(_, _, let inC, let outC, let clamp)):
            pvk_conv1x1(input, output, xs[1] * xs[2], inC, outC, weights, bias, clamp.min, clamp.max, pool.handle)
        case (.pointwise(let packed, let packedBias, let residual, let slopes, let clamp), .convolution(_, _, let inC, let outC, _)):
            let done = pvk_pointwise(
                input, output, xs[1] * xs[2], inC, outC, packed.pointer, packedBias.pointer,
                residual.map { UnsafePointer(pointer($0)) }, slopes.map { UnsafePointer($0.pointer) }, clamp.min, clamp.max,
                pool.handle)
            precondition(done != 0, "\(node.name): the pointwise kernel refused \(node.kind.summary)")
        case (.depthwisePointwise(let dw, let zeros, let packed, let packedBias, let residual, let slopes, let clamp),
            .convolution(_, _, let inC, let outC, _)):
            guard case .depthwiseConvolution(let w, _, _, let dwClamp) = dw.kind else { preconditionFailure("\(node.name): not a depthwise node") }
            let ys = shapes[dw.outputs[0]]
            let done = pvk_depthwise_pointwise(
                input, output, xs[1], xs[2], inC, ys[1], ys[2], w.kernelH, w.strideH, w.padTop, w.padLeft,
                UnsafePointer(pointer(dw.inputs[1])), dw.inputs.count > 2 && dw.inputs[2] >= 0 ? UnsafePointer(pointer(dw.inputs[2])) : nil,
                zeros.pointer, dwClamp.min, dwClamp.max, outC, packed.pointer, packedBias.pointer,
                residual.map { UnsafePointer(pointer($0)) }, slopes.map { UnsafePointer($0.pointer) }, clamp.min, clamp.max,
                pool.handle)
            precondition(done != 0, "\(node.name): the fused depthwise-pointwise kernel refused \(dw.kind.summary)")
        case (.depthwise(let zeros), .depthwiseConvolution(let w, _, let channels, let clamp)):
            let ys = shapes[node.outputs[0]]
            let level = pvk_depthwise(
                input, output, xs[1], xs[2], channels, ys[1], ys[2], w.kernelH, w.strideH, w.padTop, w.padLeft, weights, bias,
                zeros.pointer, clamp.min, clamp.max, 2, pool.handle)
            precondition(level > 0, "\(node.name): the depthwise kernel refused \(node.kind.summary)")
        default:
            preconditionFailure("\(node.name): no native kernel for \(node.kind.summary)")
        }
    }
}

@available(*, unavailable, message: "an Interpreter is used by one thread at a time; create one per thread")
extension Interpreter: Sendable {}
