import Foundation
import PVTFLite
import PVThreads
import Synchronization
import PVCore

/// The shape and name of a model input or output.
public struct TensorDescription: Sendable, Hashable {
    /// The tensor's name in the model.
    public let name: String
    /// The shape, outermost dimension first (NHWC for images).
    public let shape: [Int]
    /// Number of float elements.
    public var elementCount: Int { shape.reduce(1, *) }
}

/// A model loaded, checked and lowered once per process, shared by every ``Interpreter`` created from it.
///
/// Loading parses the `.tflite` file with our bounds-checked reader, folds fp16 DEQUANTIZE and
/// DENSIFY into float32 constants, resolves padding and fused activations, checks every shape and
/// splits the graph into XNNPACK subgraphs and Swift kernels. The constant weights are held here,
/// once, whatever the number of interpreters.
///
/// ```swift
/// let model = try CompiledModel.load(named: "selfie_segmentation.tflite")
/// let interpreter = try Interpreter(model: model)
/// ```
public final class CompiledModel: Sendable {
    /// Graph inputs, in the model's order.
    public let inputs: [TensorDescription]
    /// Graph outputs, in the order an interpreter reports them.
    public let outputs: [TensorDescription]
    /// The model's name: its file name without extension, or `model` when it was lowered from a parsed model.
    public let name: String
    /// How the graph was split: XNNPACK subgraphs, operators run by Swift kernels (concatenation,
    /// strided slice), and convolutions run by our own C kernels (few-channel shapes XNNPACK is slow at).
    public let partitionSummary: (subgraphs: Int, swiftOperators: Int, nativeOperators: Int)
    let plan: Plan

    /// Lowers a parsed model.
    /// - Throws: ``InferenceError`` naming the operator or tensor that cannot be run.
    public convenience init(model: Model) throws {
        try self.init(model: model, ownKernels: NativeKernel.enabled)
    }

    /// Lowers a parsed model, with or without our own C kernels (for comparisons in one process).
    package init(model: Model, ownKernels: Bool, fuseDepthwise: Bool = true, name: String = "model") throws {
        self.name = name
        let plan = try Plan(model: model, ownKernels: ownKernels, fuseDepthwise: fuseDepthwise)
        self.plan = plan
        inputs = plan.inputs.map { TensorDescription(name: plan.tensorNames[$0], shape: plan.shapes[$0]) }
        outputs = plan.outputs.map { TensorDescription(name: plan.tensorNames[$0], shape: plan.shapes[$0]) }
        let offXNNPACK = plan.stages.reduce(0) { $0 + $1.swiftNodes.count }
        partitionSummary = (
            plan.stages.filter { !$0.xnnNodes.isEmpty }.count, offXNNPACK - plan.nativeKernels.count, plan.nativeKernels.count
        )
    }

    /// Loads a model file.
    public convenience init(contentsOf url: URL) throws {
        try self.init(contentsOf: url, ownKernels: NativeKernel.enabled)
    }

    /// Loads a model file, with or without our own C kernels (and with or without the fused depthwise kernel).
    package convenience init(contentsOf url: URL, ownKernels: Bool, fuseDepthwise: Bool = true) throws {
        let model: Model
        do { model = try Model(contentsOf: url) } catch let e as ModelError {
            throw InferenceError(e.code == .notFound ? .modelNotFound : .invalidModel, "\(url.lastPathComponent): \(e.message)")
        }
        try self.init(
            model: model, ownKernels: ownKernels, fuseDepthwise: fuseDepthwise, name: url.deletingPathExtension().lastPathComponent)
    }

    private static let cache = OncePerKey<String, CompiledModel>()

    /// The process-wide shared instance of an installed model, loading it on first use.
    /// - Parameter store: where to look (default: `$PEOPLEVISION_MODELS` or `~/.cache/peoplevision/models`).
    /// - Throws: ``InferenceError`` `.modelNotFound` naming the file and the command that installs it.
    public static func load(named name: String, store: ModelStore = .default) throws -> CompiledModel {
        let url = try store.url(for: name)
        let key = url.standardizedFileURL.path
        return try cache.value(for: key) { try CompiledModel(contentsOf: url) }
    }
}
