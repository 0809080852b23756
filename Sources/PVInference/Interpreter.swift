import CXNNPack
import Foundation

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
    private let stages: [(xnn: XNNPACKStage?, swift: [Int])]

    /// Default thread count: every core of the machine.
    public static var defaultThreadCount: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// Creates an interpreter.
    /// - Parameters:
    ///   - threads: XNNPACK threads (default: all cores).
    ///   - sparseInference: let XNNPACK run 1×1 convolutions with sparse weights in its sparse (NCHW) mode.
    public init(model: CompiledModel, threads: Int? = nil, sparseInference: Bool = false) throws {
        try XNNPACK.ensureInitialized()
        let n = threads ?? Self.defaultThreadCount
        guard n >= 1, n <= 256 else { throw InferenceError(.invalidArgument, "thread count \(n) is out of range 1…256") }
        self.model = model
        self.threads = n
        let pool = ThreadPool(threads: n)
        self.pool = pool
        let plan = model.plan
        var buffers: [Int: FloatBuffer] = [:]
        for t in plan.boundaryTensors {
            let count = plan.shapes[t].reduce(1, *)
            buffers[t] = FloatBuffer(count: count)
        }
        self.buffers = buffers
        let flags: UInt32 = sparseInference ? UInt32(XNN_FLAG_SPARSE_INFERENCE) : 0
        stages = try plan.stages.map { stage in
            let xnn = stage.xnnNodes.isEmpty
                ? nil : try XNNPACKStage(plan: plan, nodeIndices: stage.xnnNodes, buffers: buffers, pool: pool, flags: flags)
            return (xnn, stage.swiftNodes)
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
    public func invoke() throws {
        let plan = model.plan
        for stage in stages {
            try stage.xnn?.invoke()
            for n in stage.swift { run(plan.nodes[n]) }
        }
    }

    /// Gives `body` the float storage of output `index` (valid until the next ``invoke()``).
    public func withOutput<R>(_ index: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(buffers[model.plan.outputs[index]]!.buffer))
    }

    /// A copy of output `index`.
    public func output(_ index: Int) -> [Float] { withOutput(index) { Array($0) } }

    private func pointer(_ t: Int) -> UnsafeMutablePointer<Float> {
        if let b = buffers[t] { return b.pointer }
        return model.plan.constants[t]!.pointer
    }

    private func run(_ node: Node) {
        let plan = model.plan
        switch node.kind {
        case .concatenation(let axis, let clamp):
            SwiftKernels.concatenate(
                inputs: node.inputs.map { (UnsafePointer(pointer($0)), plan.shapes[$0]) }, axis: axis, clamp: clamp,
                output: pointer(node.outputs[0]))
        case .stridedSlice(let begin, let end, let strides):
            SwiftKernels.stridedSlice(
                input: pointer(node.inputs[0]), shape: plan.shapes[node.inputs[0]], begin: begin, end: end,
                strides: strides, output: pointer(node.outputs[0]))
        default:
            preconditionFailure("\(node.name) runs on XNNPACK")
        }
    }
}

@available(*, unavailable, message: "an Interpreter is used by one thread at a time; create one per thread")
extension Interpreter: Sendable {}
