import CInferenceKernels
import Foundation
import PVTFLite
import PVCore

/// One operator after load-time lowering: what to compute and on which tensors.
struct Node: Sendable {
    enum Kind: Sendable {
        // Run by XNNPACK.
        case convolution(Window, groups: Int, inputChannels: Int, outputChannels: Int, clamp: Clamp)
        case depthwiseConvolution(Window, multiplier: Int, inputChannels: Int, clamp: Clamp)
        case deconvolution(Window, inputChannels: Int, outputChannels: Int, clamp: Clamp)
        case fullyConnected(reshape2D: Bool, clamp: Clamp)
        case maxPool(Window, clamp: Clamp)
        case averagePool(Window, clamp: Clamp)
        case globalAveragePool
        case add(Clamp), multiply(Clamp), subtract(Clamp), divide(Clamp)
        case clamp(Clamp)
        case sigmoid, hardSwish, prelu
        case pad(before: [Int], after: [Int])
        case reshape
        case resizeBilinear(height: Int, width: Int, alignCorners: Bool, halfPixelCenters: Bool)
        case depthToSpace(blockSize: Int)
        // Run by Swift kernels (the Debian XNNPACK build has no such nodes).
        case concatenation(axis: Int, clamp: Clamp)
        case stridedSlice(begin: [Int], end: [Int], strides: [Int])
        // MediaPipe's custom operators of the attention face mesh (version 2), run by Swift kernels.
        case landmarksToTransformMatrix(LandmarkCrop)
        case transformTensorBilinear
        case transformLandmarks

        /// The operator family, for profiles.
        var summary: String {
            switch self {
            case .convolution(let w, _, _, _, _): return "CONV \(w.kernelH)x\(w.kernelW)/\(w.strideH)"
            case .depthwiseConvolution(let w, _, _, _): return "DWCONV \(w.kernelH)x\(w.kernelW)/\(w.strideH)"
            case .deconvolution: return "DECONV"
            case .fullyConnected: return "FC"
            case .maxPool: return "MAXPOOL"
            case .averagePool: return "AVGPOOL"
            case .globalAveragePool: return "GLOBALAVG"
            case .add: return "ADD"
            case .multiply: return "MUL"
            case .subtract: return "SUB"
            case .divide: return "DIV"
            case .clamp: return "CLAMP"
            case .sigmoid: return "SIGMOID"
            case .hardSwish: return "HARDSWISH"
            case .prelu: return "PRELU"
            case .pad: return "PAD"
            case .reshape: return "RESHAPE"
            case .resizeBilinear: return "RESIZE"
            case .depthToSpace: return "DEPTH_TO_SPACE"
            case .concatenation: return "CONCAT"
            case .stridedSlice: return "SLICE"
            case .landmarksToTransformMatrix: return "LANDMARKS_TO_MATRIX"
            case .transformTensorBilinear: return "TRANSFORM_TENSOR"
            case .transformLandmarks: return "TRANSFORM_LANDMARKS"
            }
        }

        var runsOnXNNPACK: Bool {
            switch self {
            case .concatenation, .stridedSlice, .landmarksToTransformMatrix, .transformTensorBilinear, .transformLandmarks:
                return false
            default: return true
            }
        }
    }

    /// What `Landmarks2TransformMatrix` (version 2) computes a crop from: the landmarks `subset` (indices into the
    /// input's points), levelled so that `left` → `right` points at `targetRotation`, their box scaled by
    /// `scaleX`, `scaleY` and mapped onto an `outputWidth` × `outputHeight` grid.
    struct LandmarkCrop: Sendable, Hashable {
        var subset: [Int]
        var left: Int, right: Int
        var targetRotation: Float
        var outputWidth: Int, outputHeight: Int
        var scaleX: Float, scaleY: Float
    }

    /// Spatial parameters of a convolution or pooling window, with padding resolved to explicit amounts.
    struct Window: Sendable, Hashable {
        var kernelH = 1, kernelW = 1, strideH = 1, strideW = 1, dilationH = 1, dilationW = 1
        var padTop = 0, padBottom = 0, padLeft = 0, padRight = 0
    }

    /// An output clamp (fused RELU / RELU6 / RELU_N1_TO_1, or none).
    struct Clamp: Sendable, Hashable {
        var min: Float = -.infinity
        var max: Float = .infinity
    }

    let kind: Kind
    /// Runtime inputs (constants included; XNNPACK defines them as static values).
    let inputs: [Int]
    let outputs: [Int]
    /// Index of the operator in the model, for error messages and profiling.
    let operatorIndex: Int
    let name: String
}

/// The load-time product shared by every interpreter of one model: folded constants, checked
/// shapes, lowered nodes and the split into XNNPACK subgraphs and Swift kernels.
struct Plan: Sendable {
    /// Shape of every tensor (as declared and checked).
    var shapes: [[Int]]
    /// Constant float data, by tensor index (weights, biases, folded DEQUANTIZE / DENSIFY results).
    var constants: [Int: FloatBuffer]
    /// Runtime nodes in execution order.
    var nodes: [Node]
    /// Execution stages: each runs its XNNPACK nodes as one subgraph, then its Swift nodes in order.
    var stages: [Stage]
    /// Tensors that cross a subgraph boundary or are graph inputs/outputs: each gets an interpreter-owned buffer.
    var boundaryTensors: [Int]
    var inputs: [Int]
    var outputs: [Int]
    var tensorNames: [String]

    /// Nodes that run on our own C kernels instead of XNNPACK, by node index.
    var nativeKernels: [Int: NativeKernel] = [:]

    struct Stage: Sendable {
        var xnnNodes: [Int] = []
        var swiftNodes: [Int] = []
    }

    /// Whether this CPU runs `pvk_pointwise` (AVX-512), which then takes the 1×1 convolutions.
    static let pointwiseAvailable = pvk_pointwise_supported(1, 8) != 0

    /// Whether node `n` runs inside an XNNPACK subgraph (otherwise a Swift or C kernel runs it).
    func runsOnXNNPACK(_ n: Int) -> Bool { nodes[n].kind.runsOnXNNPACK && nativeKernels[n] == nil }
}

/// A layer shape the Debian XNNPACK build runs slowly (≈ 10 GFLOP/s: its kernels are built for many
/// channels), run by `CInferenceKernels` instead.
enum NativeKernel: Sendable {
    /// 3×3 depthwise, stride 1, padding 1, multiplier 1; weights repeated along a row.
    case depthwise3x3(expanded: FloatBuffer)
    /// 3×3 convolution to one channel, stride 1, padding 1; weights repeated along a row.
    case convolution3x3ToOne(expanded: FloatBuffer)
    /// 1×1 convolution with few channels.
    case convolution1x1
    /// 1×1 convolution on AVX-512 register tiles (`pvk_pointwise`), with weights and bias packed; `residual`, when
    /// set, is the other input of the ADD fused into it, and `clamp` then that ADD's activation; `slopes`, when set,
    /// are the per-channel slopes of the PRELU fused after them.
    case pointwise(packed: FloatBuffer, bias: FloatBuffer, residual: Int?, slopes: FloatBuffer? = nil, clamp: Node.Clamp)
    /// 3×3 or 5×5 depthwise, stride 1 or 2, multiplier 1, channels a multiple of 8 (AVX-512 or AVX2); `zeros` is one
    /// input row of zeros, read for the padding.
    case depthwise(zeros: FloatBuffer)

    /// A `depthwise` node followed by the `pointwise` node that alone reads its output, run as one kernel
    /// (`pvk_depthwise_pointwise`): `depthwise` is the folded node (its inputs are the depthwise input, weights
    /// and bias), and the rest is the pointwise kernel's.
    case depthwisePointwise(
        depthwise: Node, zeros: FloatBuffer, packed: FloatBuffer, bias: FloatBuffer, residual: Int?, slopes: FloatBuffer?,
        clamp: Node.Clamp)

    /// Set `PEOPLEVISION_XNNPACK_ONLY=1` to run every supported node on XNNPACK (for comparisons).
    static let enabled = ProcessInfo.processInfo.environment["PEOPLEVISION_XNNPACK_ONLY"] != "1"
}

extension Plan {
    /// Lowers a parsed model: folds constants, resolves padding and activations, checks shapes, and stages the nodes.
    /// `fuseDepthwise: false` leaves the depthwise and 1×1 kernels separate (for comparisons in one process).
    init(model: Model, ownKernels: Bool = NativeKernel.enabled, fuseDepthwise: Bool = true) throws {
        shapes = model.tensors.map(\.shape)
        tensorNames = model.tensors.map(\.name)
        inputs = model.inputs
        outputs = model.outputs
        constants = [:]
        nodes = []
        stages = []
        boundaryTensors = []

        for i in model.inputs where model.tensors[i].type != .float32 {
            throw InferenceError(.unsupportedOperator, "graph input '\(model.tensors[i].name)' is \(model.tensors[i].type); only FLOAT32 is supported")
        }

        // Constant float tensors as stored (sparse ones are expanded when their DENSIFY is folded).
        var stored: [Int: [Float]] = [:]
        func constant(_ t: Int) throws -> [Float]? {
            if let c = constants[t] { return Array(c.buffer) }
            if let s = stored[t] { return s }
            guard model.constantBytes(of: t) != nil else { return nil }
            let tensor = model.tensors[t]
            guard tensor.type == .float32 || tensor.type == .float16 else { return nil }
            let v = try wrap { try model.floatValues(of: t) }
            stored[t] = v
            return v
        }

        var producedAtRuntime = Set(model.inputs)
        for (index, op) in model.operators.enumerated() {
            let name = "operator #\(index) \(op.code)"
            guard let out = op.outputs.first else { throw InferenceError(.invalidModel, "\(name) has no output") }
            let lowering = OperatorLowering(model: model, shapes: shapes, op: op, name: name, out: out)

            // Load-time folding of weight decompression.
            if case .builtin(let b) = op.code, b == .dequantize || b == .densify {
                let src = try lowering.input(0)
                guard !producedAtRuntime.contains(src), let values = try constant(src) else {
                    throw InferenceError(.unsupportedOperator, "\(name) on a runtime tensor is not supported")
                }
                var dense = values
                if b == .densify {
                    guard let sparsity = model.tensors[src].sparsity else {
                        throw InferenceError(.invalidModel, "\(name): input '\(model.tensors[src].name)' has no sparsity description")
                    }
                    dense = try wrap { try sparsity.densify(values, shape: shapes[out]) }
                }
                guard dense.count == shapes[out].reduce(1, *) else {
                    throw InferenceError(.invalidModel, "\(name): \(dense.count) values for output shape \(shapes[out])")
                }
                constants[out] = FloatBuffer(dense)
                continue
            }

            let (kind, runtimeInputs) = try lowering.lowered()
            // Constant inputs must be float data the executor can hand to XNNPACK or a Swift kernel.
            for t in runtimeInputs where !producedAtRuntime.contains(t) {
                guard let values = try constant(t) else {
                    throw InferenceError(.invalidModel, "\(name): input '\(model.tensors[t].name)' is neither computed nor constant")
                }
                if constants[t] == nil { constants[t] = FloatBuffer(values) }
            }
            for o in op.outputs { producedAtRuntime.insert(o) }
            nodes.append(Node(kind: kind, inputs: runtimeInputs, outputs: op.outputs, operatorIndex: index, name: name))
        }
        for o in model.outputs where !producedAtRuntime.contains(o) {
            throw InferenceError(.invalidModel, "graph output '\(model.tensors[o].name)' is never computed")
        }
        fuseSpatialPadding()
        if ownKernels {
            chooseNativeKernels()
            fuseResidualAdds()
            fusePReLUs()
            if fuseDepthwise { fuseDepthwisePointwise() }
        }
        try stage()
    }

    /// Folds a zero PAD of the spatial dimensions into the convolutions that consume it: they pad implicitly
    /// with zeros anyway, so the padded copy of the activation is never materialised.
    private mutating func fuseSpatialPadding() {
        let consumers = consumersByTensor()
        var removed = Set<Int>()
        for (i, n) in nodes.enumerated() {
            guard case .pad(let before, let after) = n.kind, before.count == 4, before[0] == 0, after[0] == 0,
                before[3] == 0, after[3] == 0, let users = consumers[n.outputs[0]], !outputs.contains(n.outputs[0])
            else { continue }
            let fusable = users.allSatisfy { u in
                switch nodes[u].kind {
                case .convolution, .depthwiseConvolution: return nodes[u].inputs[0] == n.outputs[0]
                default: return false
                }
            }
            guard fusable else { continue }
            func widen(_ w: Node.Window) -> Node.Window {
                var w = w
                w.padTop += before[1]; w.padBottom += after[1]; w.padLeft += before[2]; w.padRight += after[2]
                return w
            }
            for u in users {
                let old = nodes[u]
                let kind: Node.Kind
                switch old.kind {
                case .convolution(let w, let g, let ic, let oc, let c): kind = .convolution(widen(w), groups: g, inputChannels: ic, outputChannels: oc, clamp: c)
                case .depthwiseConvolution(let w, let m, let ic, let c): kind = .depthwiseConvolution(widen(w), multiplier: m, inputChannels: ic, clamp: c)
                default: continue
                }
                nodes[u] = Node(kind: kind, inputs: [n.inputs[0]] + old.inputs.dropFirst(), outputs: old.outputs,
                                operatorIndex: old.operatorIndex, name: old.name + " (+ fused PAD)")
            }
            removed.insert(i)
        }
        removeNodes(removed)
    }

    /// The nodes that read each tensor, by node index in execution order.
    private func consumersByTensor() -> [Int: [Int]] {
        var consumers: [Int: [Int]] = [:]
        for (i, n) in nodes.enumerated() { for t in n.inputs { consumers[t, default: []].append(i) } }
        return consumers
    }

    /// The node that computes each tensor (graph inputs and constants have none).
    private func producerByTensor() -> [Int: Int] {
        var producer: [Int: Int] = [:]
        for (i, n) in nodes.enumerated() { for t in n.outputs { producer[t] = i } }
        return producer
    }

    /// Picks the nodes our C kernels run faster than XNNPACK: few channels over many pixels, where the
    /// 2022 XNNPACK kernels spend their time on per-pixel indirection and padded channel tiles.
    private mutating func chooseNativeKernels() {
        func isSame3x3(_ w: Node.Window) -> Bool {
            w.kernelH == 3 && w.kernelW == 3 && w.strideH == 1 && w.strideW == 1 && w.dilationH == 1 && w.dilationW == 1
                && w.padTop == 1 && w.padBottom == 1 && w.padLeft == 1 && w.padRight == 1
        }
        for (n, node) in nodes.enumerated() {
            let xs = shapes[node.inputs[0]]
            guard xs.count == 4, xs[0] == 1 else { continue }
            let pixels = xs[1] * xs[2]
            switch node.kind {
            case .depthwiseConvolution(let w, let multiplier, let channels, _)
            where multiplier == 1 && w.kernelH == w.kernelW && w.strideH == w.strideW && w.dilationH == 1 && w.dilationW == 1
                && pvk_depthwise_level(channels, w.kernelH, w.strideH, 2) > 0
                && Self.depthwiseIsFaster(kernel: w.kernelH, stride: w.strideH, columns: shapes[node.outputs[0]][2], channels: channels):
                guard constants[node.inputs[1]] != nil else { continue }
                nativeKernels[n] = .depthwise(zeros: FloatBuffer(count: xs[2] * channels))
            case .depthwiseConvolution(let w, let multiplier, let channels, _)
            where isSame3x3(w) && multiplier == 1 && channels <= 16 && pixels >= 128 * 128:
                guard let weights = constants[node.inputs[1]] else { continue }
                let expanded = FloatBuffer(count: 9 * xs[2] * channels)
                pvk_expand_taps(weights.pointer, xs[2], channels, expanded.pointer)
                nativeKernels[n] = .depthwise3x3(expanded: expanded)
            case .convolution(let w, let groups, let inC, let outC, _)
            where isSame3x3(w) && groups == 1 && outC == 1 && inC <= 32 && pixels >= 128 * 128:
                guard let weights = constants[node.inputs[1]] else { continue }
                let expanded = FloatBuffer(count: 9 * xs[2] * inC)
                pvk_expand_taps(weights.pointer, xs[2], inC, expanded.pointer)
                nativeKernels[n] = .convolution3x3ToOne(expanded: expanded)
            case .convolution(let w, let groups, let inC, let outC, let clamp)
            where w == Node.Window() && groups == 1 && pvk_pointwise_supported(inC, outC) != 0:
                guard let weights = constants[node.inputs[1]] else { continue }
                let bias = node.inputs.count > 2 && node.inputs[2] >= 0 ? constants[node.inputs[2]] : nil
                if node.inputs.count > 2, node.inputs[2] >= 0, bias == nil { continue }
                let packed = FloatBuffer(count: inC * outC), packedBias = FloatBuffer(count: outC)
                pvk_pointwise_pack(weights.pointer, bias.map { UnsafePointer($0.pointer) }, inC, outC, packed.pointer, packedBias.pointer)
                nativeKernels[n] = .pointwise(packed: packed, bias: packedBias, residual: nil, clamp: clamp)
            case .convolution(let w, let groups, let inC, let outC, _)
            where w.kernelH == 1 && w.kernelW == 1 && w.strideH == 1 && w.strideW == 1 && w.padTop == 0 && w.padBottom == 0
                && w.padLeft == 0 && w.padRight == 0 && groups == 1 && inC <= 8 && outC == 8 && pixels >= 128 * 128:
                guard constants[node.inputs[1]] != nil else { continue }
                nativeKernels[n] = .convolution1x1
            default:
                continue
            }
        }
    }

    /// Fuses an ADD into the `pvk_pointwise` convolution whose result it adds to another tensor of the same shape
    /// (a residual connection), when nothing else reads that result and the convolution has no activation of its
    /// own: the sum is formed in registers before the single store, and the ADD's pass over memory disappears.
    private mutating func fuseResidualAdds() {
        let consumers = consumersByTensor(), producer = producerByTensor()
        var removed = Set<Int>()
        for (n, node) in nodes.enumerated() {
            guard case .pointwise(let packed, let bias, nil, nil, let clamp)? = nativeKernels[n], clamp == Node.Clamp(),
                let t = node.outputs.first, !outputs.contains(t), let users = consumers[t], users.count == 1,
                case .add(let addClamp) = nodes[users[0]].kind, nodes[users[0]].inputs.count == 2
            else { continue }
            let add = nodes[users[0]]
            let residual = add.inputs[0] == t ? add.inputs[1] : add.inputs[0]
            // The residual must exist when the convolution runs, and be a plain same-shape tensor (no broadcast).
            guard residual != t, constants[residual] == nil, shapes[residual] == shapes[t], shapes[add.outputs[0]] == shapes[t],
                producer[residual].map({ $0 < n }) ?? inputs.contains(residual)
            else { continue }
            nodes[n] = Node(
                kind: node.kind, inputs: node.inputs + [residual], outputs: add.outputs, operatorIndex: node.operatorIndex,
                name: node.name)
            nativeKernels[n] = .pointwise(packed: packed, bias: bias, residual: residual, clamp: addClamp)
            removed.insert(users[0])
        }
        removeNodes(removed)
    }

    /// Fuses a PRELU into the `pvk_pointwise` convolution (with its residual ADD, if fused) whose result it alone
    /// reads, when that result has no activation of its own: the slopes are applied in registers before the store.
    private mutating func fusePReLUs() {
        let consumers = consumersByTensor()
        var removed = Set<Int>()
        for (n, node) in nodes.enumerated() {
            guard case .pointwise(let packed, let bias, let residual, nil, let clamp)? = nativeKernels[n], clamp == Node.Clamp(),
                let t = node.outputs.first, !outputs.contains(t), let users = consumers[t], users.count == 1,
                case .prelu = nodes[users[0]].kind, nodes[users[0]].inputs.first == t,
                let alpha = nodes[users[0]].inputs.dropFirst().first, let slopes = constants[alpha],
                slopes.count == shapes[t].last, shapes[nodes[users[0]].outputs[0]] == shapes[t]
            else { continue }
            let prelu = nodes[users[0]]
            nodes[n] = Node(kind: node.kind, inputs: node.inputs, outputs: prelu.outputs, operatorIndex: node.operatorIndex, name: node.name)
            nativeKernels[n] = .pointwise(packed: packed, bias: bias, residual: residual, slopes: slopes, clamp: Node.Clamp())
            removed.insert(users[0])
        }
        removeNodes(removed)
    }

    /// Fuses a `pvk_depthwise` node into the `pvk_pointwise` node that alone reads its output: each depthwise
    /// output row then stays in the level-1 cache instead of going out to memory and back (on the 96×96 layers of
    /// the face detectors the whole output is larger than the level-2 cache). Only 3×3 windows, rows of 32 to
    /// 4096 floats' worth of pixels and at most 16384 1×1 weights: there the fused kernel measured 2–7 % faster per
    /// model (face detectors, face mesh, pose landmarks; in-process alternation). With 5×5 windows, or short rows
    /// and many channels (the 1×1 weights then reread for every short row), the separate kernels were as fast or
    /// faster.
    private mutating func fuseDepthwisePointwise() {
        let consumers = consumersByTensor(), producer = producerByTensor()
        var removed = Set<Int>()
        for (n, node) in nodes.enumerated() {
            guard case .pointwise(let packed, let bias, let residual, let slopes, let clamp)? = nativeKernels[n],
                let t = node.inputs.first, !outputs.contains(t), consumers[t]?.count == 1,
                let d = producer[t], d < n,
                case .depthwise(let zeros)? = nativeKernels[d], nodes[d].outputs.count == 1,
                case .depthwiseConvolution(let window, _, let channels, _) = nodes[d].kind, window.kernelH == 3,
                case .convolution(_, _, _, let outC, _) = node.kind, shapes[t].count == 4, shapes[t][2] >= 32,
                shapes[t][2] * channels <= min(4096, Int(PVK_DWPW_SCRATCH)), channels * outC <= 16384
            else { continue }
            let dw = nodes[d]
            // The fused node reads the depthwise input (and its weights) in place of the depthwise output.
            nodes[n] = Node(
                kind: node.kind, inputs: [dw.inputs[0]] + node.inputs.dropFirst() + dw.inputs.dropFirst(),
                outputs: node.outputs, operatorIndex: node.operatorIndex, name: node.name)
            nativeKernels[n] = .depthwisePointwise(
                depthwise: dw, zeros: zeros, packed: packed, bias: bias, residual: residual, slopes: slopes, clamp: clamp)
            removed.insert(d)
        }
        removeNodes(removed)
    }

    /// Drops `removed` nodes (folded into others), keeping the native-kernel table on the nodes that remain.
    private mutating func removeNodes(_ removed: Set<Int>) {
        guard !removed.isEmpty else { return }
        var newIndex: [Int: Int] = [:]
        var kept: [Node] = []
        for (i, node) in nodes.enumerated() where !removed.contains(i) {
            newIndex[i] = kept.count
            kept.append(node)
        }
        nodes = kept
        nativeKernels = Dictionary(uniqueKeysWithValues: nativeKernels.compactMap { k, v in newIndex[k].map { ($0, v) } })
    }

    /// Where `pvk_depthwise` beat XNNPACK's depthwise operator on the models' layers (same process,
    /// alternated, best of seven rounds; all 3×3 and 5×5 depthwise shapes of the bundled models). It wins
    /// by 1.2–3.7× on the few-channel layers over many pixels; XNNPACK, which walks all channels of one
    /// pixel before the next, stays ahead on small images with hundreds of channels, and with stride 2 from
    /// 64 channels up (our kernel walks a whole row once per 16 channels, so wide input rows do not stay
    /// in the level-1 cache).
    static func depthwiseIsFaster(kernel: Int, stride: Int, columns: Int, channels: Int) -> Bool {
        switch (kernel, stride) {
        case (5, 1): return columns >= 8
        case (5, 2): return columns >= 7
        case (3, 1): return columns >= 32 || (columns >= 16 && channels <= 72)
        default: return columns >= 16 && channels <= 32
        }
    }

    /// Splits the nodes into stages. A node's level is the number of Swift nodes it (transitively) waits on
    /// before it can run on XNNPACK: XNNPACK nodes of one level form one subgraph, which runs before the Swift
    /// nodes of that level. This gives the fewest subgraphs the Swift nodes allow.
    private mutating func stage() throws {
        var levelOfTensor: [Int: (level: Int, fromSwift: Bool)] = [:]
        var levels: [Int] = []
        for (n, node) in nodes.enumerated() {
            var level = 0
            for t in node.inputs {
                guard let p = levelOfTensor[t] else { continue }
                level = Swift.max(level, p.level + (p.fromSwift && runsOnXNNPACK(n) ? 1 : 0))
            }
            levels.append(level)
            for o in node.outputs { levelOfTensor[o] = (level, !runsOnXNNPACK(n)) }
        }
        let count = (levels.max() ?? 0) + 1
        stages = Array(repeating: Stage(), count: count)
        for i in nodes.indices {
            if runsOnXNNPACK(i) { stages[levels[i]].xnnNodes.append(i) } else { stages[levels[i]].swiftNodes.append(i) }
        }
        // Boundary tensors: graph inputs/outputs, and anything produced in one stage part and consumed in another.
        var owner: [Int: Int] = [:]  // tensor -> producing part (2·stage for XNNPACK, 2·stage+1 for Swift)
        for (s, stage) in stages.enumerated() {
            for n in stage.xnnNodes { for o in nodes[n].outputs { owner[o] = 2 * s } }
            for n in stage.swiftNodes { for o in nodes[n].outputs { owner[o] = 2 * s + 1 } }
        }
        var boundary = Set(inputs).union(outputs)
        for (s, stage) in stages.enumerated() {
            for n in stage.xnnNodes { for t in nodes[n].inputs where constants[t] == nil && owner[t] != 2 * s { boundary.insert(t) } }
            for n in stage.swiftNodes { for t in nodes[n].inputs where constants[t] == nil { boundary.insert(t) } }
            for n in stage.swiftNodes { for o in nodes[n].outputs { boundary.insert(o) } }
        }
        boundaryTensors = boundary.sorted()
    }

    /// Places `tensors` (the activations an interpreter owns) in one arena: two tensors share memory when
    /// their lifetimes in execution order do not overlap (a stage's XNNPACK subgraph is one step, each
    /// Swift node one step). Graph inputs and outputs keep memory of their own. Returns offsets and the
    /// arena size in floats; each slot leaves `FloatBuffer.padding` floats after its tensor and starts on a
    /// 64-byte boundary.
    func arenaLayout(_ tensors: [Int]) -> (offsets: [Int: Int], count: Int) {
        var first: [Int: Int] = [:], last: [Int: Int] = [:]
        var step = 0
        func touch(_ n: Int) {
            for t in nodes[n].inputs + nodes[n].outputs {
                first[t] = Swift.min(first[t] ?? step, step)
                last[t] = Swift.max(last[t] ?? step, step)
            }
        }
        for stage in stages {
            if !stage.xnnNodes.isEmpty {
                for n in stage.xnnNodes { touch(n) }
                step += 1
            }
            for n in stage.swiftNodes {
                touch(n)
                step += 1
            }
        }
        let pinned = Set(inputs).union(outputs)
        func lifetime(_ t: Int) -> ClosedRange<Int> { pinned.contains(t) ? -1...Int.max : (first[t] ?? 0)...(last[t] ?? 0) }
        func slot(_ t: Int) -> Int { (shapes[t].reduce(1, *) + FloatBuffer.padding + 15) / 16 * 16 }
        var placed: [(range: Range<Int>, life: ClosedRange<Int>)] = []
        var offsets: [Int: Int] = [:]
        var total = 0
        // Largest first, each at the lowest offset clear of the placed tensors whose lifetimes overlap its own.
        for t in tensors.sorted(by: { (slot($0), $1) > (slot($1), $0) }) {
            let size = slot(t), life = lifetime(t)
            var offset = 0
            for r in placed.filter({ $0.life.overlaps(life) }).map(\.range).sorted(by: { $0.lowerBound < $1.lowerBound })
            where r.lowerBound < offset + size {
                offset = Swift.max(offset, r.upperBound)
            }
            placed.append((offset..<(offset + size), life))
            offsets[t] = offset
            total = Swift.max(total, offset + size)
        }
        return (offsets, total)
    }
}
