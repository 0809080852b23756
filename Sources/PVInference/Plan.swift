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
        func ints(_ t: Int) throws -> [Int] {
            guard t >= 0, model.constantBytes(of: t) != nil else {
                throw InferenceError(.unsupportedOperator, "tensor '\(model.tensors[max(t, 0)].name)' must be a constant")
            }
            return try wrap { try model.intValues(of: t) }
        }

        var producedAtRuntime = Set(model.inputs)
        for (index, op) in model.operators.enumerated() {
            let name = "operator #\(index) \(op.code)"
            func input(_ k: Int) throws -> Int {
                guard k < op.inputs.count, op.inputs[k] >= 0 else {
                    throw InferenceError(.invalidModel, "\(name) lacks input \(k)")
                }
                return op.inputs[k]
            }
            func shape(_ t: Int) -> [Int] { shapes[t] }
            guard let out = op.outputs.first else { throw InferenceError(.invalidModel, "\(name) has no output") }

            // Load-time folding of weight decompression.
            if case .builtin(let b) = op.code, b == .dequantize || b == .densify {
                let src = try input(0)
                guard !producedAtRuntime.contains(src), let values = try constant(src) else {
                    throw InferenceError(.unsupportedOperator, "\(name) on a runtime tensor is not supported")
                }
                var dense = values
                if b == .densify {
                    guard let sparsity = model.tensors[src].sparsity else {
                        throw InferenceError(.invalidModel, "\(name): input '\(model.tensors[src].name)' has no sparsity description")
                    }
                    dense = try wrap { try sparsity.densify(values, shape: shape(out)) }
                }
                guard dense.count == shape(out).reduce(1, *) else {
                    throw InferenceError(.invalidModel, "\(name): \(dense.count) values for output shape \(shape(out))")
                }
                constants[out] = FloatBuffer(dense)
                continue
            }

            var runtimeInputs: [Int] = []
            let kind: Node.Kind
            switch op.code {
            case .custom("Landmarks2TransformMatrix"):
                let x = try input(0)
                let xs = shape(x)
                let options = try wrap { try FlexBufferMap(op.customOptions) }
                guard xs.count == 3, xs[0] == 1, xs[2] >= 2, options.keys.contains("subset_idxs") else {
                    throw InferenceError(
                        .unsupportedOperator, "\(name): only version 2 (landmarks [1, N, 3], subset_idxs) is supported, got \(xs)")
                }
                let crop = try wrap {
                    Node.LandmarkCrop(
                        subset: try options.ints("subset_idxs"), left: try options.int("left_rotation_idx"),
                        right: try options.int("right_rotation_idx"),
                        targetRotation: Float(try options.double("target_rotation_radians")),
                        outputWidth: try options.int("output_width"), outputHeight: try options.int("output_height"),
                        scaleX: Float(try options.double("scale_x")), scaleY: Float(try options.double("scale_y")))
                }
                guard !crop.subset.isEmpty, (crop.subset + [crop.left, crop.right]).allSatisfy({ (0..<xs[1]).contains($0) }),
                    crop.outputWidth > 0, crop.outputHeight > 0, crop.scaleX > 0, crop.scaleY > 0
                else {
                    throw InferenceError(.invalidModel, "\(name): options \(crop) do not fit \(xs[1]) landmarks")
                }
                kind = .landmarksToTransformMatrix(crop)
                runtimeInputs = [x]
                try check([1, 4, 4], out, name)
            case .custom("TransformTensorBilinear"):
                let x = try input(0), m = try input(1)
                let xs = shape(x)
                let options = try wrap { try FlexBufferMap(op.customOptions) }
                let size = try wrap { (try options.int("output_height"), try options.int("output_width")) }
                guard xs.count == 4, xs[0] == 1, shape(m).reduce(1, *) == 16 else {
                    throw InferenceError(.invalidModel, "\(name): input \(xs) and matrix \(shape(m))")
                }
                kind = .transformTensorBilinear
                runtimeInputs = [x, m]
                try check([1, size.0, size.1, xs[3]], out, name)
            case .custom("TransformLandmarks"):
                let x = try input(0), m = try input(1)
                let xs = shape(x)
                guard xs.count == 3, xs[0] == 1, xs[2] == 2 || xs[2] == 3, shape(m).reduce(1, *) == 16 else {
                    throw InferenceError(
                        .unsupportedOperator, "\(name): only version 2 (landmarks [1, N, 2 or 3]) is supported, got \(xs)")
                }
                kind = .transformLandmarks
                runtimeInputs = [x, m]
                try check(xs, out, name)
            case .custom(let customName):
                guard customName == "Convolution2DTransposeBias" else {
                    throw InferenceError(.unsupportedOperator, "\(name): custom operator '\(customName)' is not supported")
                }
                let x = try input(0), w = try input(1), b = try input(2)
                let opts = op.customOptions
                guard opts.count >= 12 else { throw InferenceError(.invalidModel, "\(name): custom options are too short") }
                func word(_ k: Int) -> Int {
                    Int(Int32(bitPattern: UInt32(opts[4 * k]) | UInt32(opts[4 * k + 1]) << 8 | UInt32(opts[4 * k + 2]) << 16 | UInt32(opts[4 * k + 3]) << 24))
                }
                let padding = word(0), strideW = word(1), strideH = word(2)
                let ws = shape(w), xs = shape(x)
                guard ws.count == 4, xs.count == 4, strideW > 0, strideH > 0, strideW <= 64, strideH <= 64 else {
                    throw InferenceError(.invalidModel, "\(name): unexpected shapes \(xs) / \(ws) or strides")
                }
                var window = Node.Window(kernelH: ws[1], kernelW: ws[2], strideH: strideH, strideW: strideW)
                if padding == 1 {  // SAME: crop the full transposed output to in·stride.
                    let totalH = max(0, ws[1] - (xs[1] - 1) % strideH - 1)
                    let totalW = max(0, ws[2] - (xs[2] - 1) % strideW - 1)
                    window.padTop = totalH / 2; window.padBottom = totalH - totalH / 2
                    window.padLeft = totalW / 2; window.padRight = totalW - totalW / 2
                }
                kind = .deconvolution(window, inputChannels: ws[3], outputChannels: ws[0], clamp: .init())
                runtimeInputs = [x, w, b]
                let expected = [xs[0], strideH * (xs[1] - 1) + ws[1] - window.padTop - window.padBottom,
                                strideW * (xs[2] - 1) + ws[2] - window.padLeft - window.padRight, ws[0]]
                try check(expected, out, name)
            case .builtin(let b):
                switch (b, op.options) {
                case (.conv2D, .conv2D(let padding, let sw, let sh, let dw, let dh, let act)):
                    let x = try input(0), w = try input(1)
                    let bias = op.inputs.count > 2 ? op.inputs[2] : -1
                    let xs = shape(x), ws = shape(w)
                    guard xs.count == 4, ws.count == 4, ws[3] > 0, xs[3] % ws[3] == 0 else {
                        throw InferenceError(.invalidModel, "\(name): unexpected shapes \(xs) / \(ws)")
                    }
                    let (window, oh, ow) = try resolveWindow(
                        padding, inH: xs[1], inW: xs[2], kH: ws[1], kW: ws[2], sH: sh, sW: sw, dH: dh, dW: dw, name)
                    let groups = xs[3] / ws[3]
                    guard ws[0] % groups == 0 else { throw InferenceError(.invalidModel, "\(name): bad grouping") }
                    kind = .convolution(window, groups: groups, inputChannels: ws[3], outputChannels: ws[0] / groups, clamp: try clamp(act, name))
                    runtimeInputs = bias >= 0 ? [x, w, bias] : [x, w]
                    try check([xs[0], oh, ow, ws[0]], out, name)
                case (.depthwiseConv2D, .depthwiseConv2D(let padding, let sw, let sh, _, let dw, let dh, let act)):
                    let x = try input(0), w = try input(1)
                    let bias = op.inputs.count > 2 ? op.inputs[2] : -1
                    let xs = shape(x), ws = shape(w)
                    guard xs.count == 4, ws.count == 4, ws[0] == 1, xs[3] > 0, ws[3] % xs[3] == 0 else {
                        throw InferenceError(.invalidModel, "\(name): unexpected shapes \(xs) / \(ws)")
                    }
                    let (window, oh, ow) = try resolveWindow(
                        padding, inH: xs[1], inW: xs[2], kH: ws[1], kW: ws[2], sH: sh, sW: sw, dH: dh, dW: dw, name)
                    kind = .depthwiseConvolution(window, multiplier: ws[3] / xs[3], inputChannels: xs[3], clamp: try clamp(act, name))
                    runtimeInputs = bias >= 0 ? [x, w, bias] : [x, w]
                    try check([xs[0], oh, ow, ws[3]], out, name)
                case (.maxPool2D, .pool2D(let padding, let sw, let sh, let fw, let fh, let act)),
                    (.averagePool2D, .pool2D(let padding, let sw, let sh, let fw, let fh, let act)):
                    let x = try input(0)
                    let xs = shape(x)
                    guard xs.count == 4 else { throw InferenceError(.invalidModel, "\(name): input shape \(xs)") }
                    let (window, oh, ow) = try resolveWindow(
                        padding, inH: xs[1], inW: xs[2], kH: fh, kW: fw, sH: sh, sW: sw, dH: 1, dW: 1, name)
                    let c = try clamp(act, name)
                    if b == .averagePool2D && fh == xs[1] && fw == xs[2] && oh == 1 && ow == 1 && c == .init() {
                        kind = .globalAveragePool
                    } else {
                        kind = b == .maxPool2D ? .maxPool(window, clamp: c) : .averagePool(window, clamp: c)
                    }
                    runtimeInputs = [x]
                    try check([xs[0], oh, ow, xs[3]], out, name)
                case (.fullyConnected, .fullyConnected(let act, let keepNumDims)):
                    let x = try input(0), w = try input(1)
                    let bias = op.inputs.count > 2 ? op.inputs[2] : -1
                    let xs = shape(x), ws = shape(w)
                    guard ws.count == 2, ws[1] > 0, xs.reduce(1, *) % ws[1] == 0, !keepNumDims || xs.last == ws[1] else {
                        throw InferenceError(.invalidModel, "\(name): unexpected shapes \(xs) / \(ws)")
                    }
                    kind = .fullyConnected(reshape2D: xs.count != 2, clamp: try clamp(act, name))
                    runtimeInputs = bias >= 0 ? [x, w, bias] : [x, w]
                    let expected = keepNumDims ? Array(xs.dropLast()) + [ws[0]] : [xs.reduce(1, *) / ws[1], ws[0]]
                    try check(expected, out, name)
                case (.add, .elementwise(let act)), (.mul, .elementwise(let act)),
                    (.sub, .elementwise(let act)), (.div, .elementwise(let act)):
                    let a = try input(0), c = try input(1)
                    let cl = try clamp(act, name)
                    kind = b == .add ? .add(cl) : b == .mul ? .multiply(cl) : b == .sub ? .subtract(cl) : .divide(cl)
                    runtimeInputs = [a, c]
                    try check(try broadcast(shape(a), shape(c), name), out, name)
                case (.relu, _), (.relu6, _):
                    let x = try input(0)
                    kind = .clamp(b == .relu ? .init(min: 0) : .init(min: 0, max: 6))
                    runtimeInputs = [x]
                    try check(shape(x), out, name)
                case (.logistic, _), (.hardSwish, _):
                    let x = try input(0)
                    kind = b == .logistic ? .sigmoid : .hardSwish
                    runtimeInputs = [x]
                    try check(shape(x), out, name)
                case (.prelu, _):
                    let x = try input(0), alpha = try input(1)
                    let xs = shape(x), al = shape(alpha)
                    guard let c = xs.last, al.reduce(1, *) == c, al.last == c else {
                        throw InferenceError(.unsupportedOperator, "\(name): PRELU slope \(al) is not per-channel for input \(xs)")
                    }
                    kind = .prelu
                    runtimeInputs = [x, alpha]
                    try check(xs, out, name)
                case (.pad, _):
                    let x = try input(0)
                    let p = try ints(try input(1))
                    let xs = shape(x)
                    guard p.count == 2 * xs.count, p.allSatisfy({ $0 >= 0 }) else {
                        throw InferenceError(.invalidModel, "\(name): paddings \(p) do not fit shape \(xs)")
                    }
                    let before = stride(from: 0, to: p.count, by: 2).map { p[$0] }
                    let after = stride(from: 1, to: p.count, by: 2).map { p[$0] }
                    kind = .pad(before: before, after: after)
                    runtimeInputs = [x]
                    try check(zip(xs, zip(before, after)).map { $0 + $1.0 + $1.1 }, out, name)
                case (.reshape, _):
                    let x = try input(0)
                    guard shape(x).reduce(1, *) == shape(out).reduce(1, *) else {
                        throw InferenceError(.invalidModel, "\(name): cannot reshape \(shape(x)) to \(shape(out))")
                    }
                    kind = .reshape
                    runtimeInputs = [x]
                case (.resizeBilinear, .resizeBilinear(let alignCorners, let halfPixel)):
                    let x = try input(0)
                    let size = try ints(try input(1))
                    let xs = shape(x)
                    guard size.count == 2, size.allSatisfy({ $0 > 0 && $0 <= 1 << 15 }), xs.count == 4 else {
                        throw InferenceError(.invalidModel, "\(name): size \(size) for input \(xs)")
                    }
                    kind = .resizeBilinear(height: size[0], width: size[1], alignCorners: alignCorners, halfPixelCenters: halfPixel)
                    runtimeInputs = [x]
                    try check([xs[0], size[0], size[1], xs[3]], out, name)
                case (.depthToSpace, .depthToSpace(let block)):
                    let x = try input(0)
                    let xs = shape(x)
                    guard xs.count == 4, xs[3] % (block * block) == 0 else {
                        throw InferenceError(.invalidModel, "\(name): block \(block) for input \(xs)")
                    }
                    kind = .depthToSpace(blockSize: block)
                    runtimeInputs = [x]
                    try check([xs[0], xs[1] * block, xs[2] * block, xs[3] / (block * block)], out, name)
                case (.mean, .reducer(let keepDims)):
                    let x = try input(0)
                    let axes = try ints(try input(1)).map { $0 < 0 ? $0 + shape(x).count : $0 }
                    let xs = shape(x)
                    guard xs.count == 4, Set(axes) == [1, 2] else {
                        throw InferenceError(.unsupportedOperator, "\(name): MEAN over axes \(axes) of \(xs) (only spatial means are supported)")
                    }
                    kind = .globalAveragePool
                    runtimeInputs = [x]
                    try check(keepDims ? [xs[0], 1, 1, xs[3]] : [xs[0], xs[3]], out, name)
                case (.concatenation, .concatenation(let axis, let act)):
                    let ins = op.inputs.filter { $0 >= 0 }
                    guard let first = ins.first else { throw InferenceError(.invalidModel, "\(name) has no inputs") }
                    let rank = shape(first).count
                    let a = axis < 0 ? axis + rank : axis
                    guard a >= 0, a < rank else { throw InferenceError(.invalidModel, "\(name): axis \(axis) for rank \(rank)") }
                    var expected = shape(first)
                    expected[a] = 0
                    for t in ins {
                        let s = shape(t)
                        guard s.count == rank, (0..<rank).allSatisfy({ $0 == a || s[$0] == shape(first)[$0] }) else {
                            throw InferenceError(.invalidModel, "\(name): input shapes \(ins.map(shape)) do not concatenate on axis \(a)")
                        }
                        expected[a] += s[a]
                    }
                    kind = .concatenation(axis: a, clamp: try clamp(act, name))
                    runtimeInputs = ins
                    try check(expected, out, name)
                case (.stridedSlice, .stridedSlice(let beginMask, let endMask, let ellipsisMask, let newAxisMask, let shrinkMask)):
                    let x = try input(0)
                    let xs = shape(x)
                    let begin = try ints(try input(1)), end = try ints(try input(2)), strides = try ints(try input(3))
                    guard ellipsisMask == 0, newAxisMask == 0, begin.count == xs.count, end.count == xs.count,
                        strides.count == xs.count, strides.allSatisfy({ $0 != 0 })
                    else {
                        throw InferenceError(.unsupportedOperator, "\(name): this STRIDED_SLICE form is not supported")
                    }
                    var b0 = [Int](), e0 = [Int](), full = [Int]()
                    for d in 0..<xs.count {
                        let n = xs[d], s = strides[d]
                        func clampIndex(_ v: Int, _ lo: Int, _ hi: Int) -> Int { Swift.max(lo, Swift.min(hi, v < 0 ? v + n : v)) }
                        var lo = beginMask & (1 << d) != 0 ? (s > 0 ? 0 : n - 1) : clampIndex(begin[d], s > 0 ? 0 : -1, s > 0 ? n : n - 1)
                        var hi = endMask & (1 << d) != 0 ? (s > 0 ? n : -1) : clampIndex(end[d], s > 0 ? 0 : -1, s > 0 ? n : n - 1)
                        if shrinkMask & (1 << d) != 0 {
                            lo = begin[d] < 0 ? begin[d] + n : begin[d]
                            hi = lo + 1
                            guard lo >= 0, lo < n, s > 0 else { throw InferenceError(.invalidModel, "\(name): index out of range") }
                        }
                        b0.append(lo); e0.append(hi)
                        let count = s > 0 ? Swift.max(0, (hi - lo + s - 1) / s) : Swift.max(0, (lo - hi - s - 1) / -s)
                        full.append(count)
                    }
                    kind = .stridedSlice(begin: b0, end: e0, strides: strides)
                    runtimeInputs = [x]
                    let expected = full.enumerated().filter { shrinkMask & (1 << $0.offset) == 0 }.map(\.element)
                    guard expected.reduce(1, *) == shape(out).reduce(1, *) else {
                        throw InferenceError(.invalidModel, "\(name): computed shape \(expected), declared \(shape(out))")
                    }
                default:
                    throw InferenceError(.unsupportedOperator, "\(name) is not supported")
                }
            }
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

    private func check(_ expected: [Int], _ tensor: Int, _ name: String) throws {
        guard expected == shapes[tensor] else {
            throw InferenceError(.invalidModel, "\(name): computed output shape \(expected), the model declares \(shapes[tensor])")
        }
    }
}

private func wrap<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let e as ModelError {
        throw InferenceError(.invalidModel, e.message)
    }
}

private func clamp(_ activation: FusedActivation, _ name: String) throws -> Node.Clamp {
    guard let r = activation.clampRange else {
        throw InferenceError(.unsupportedOperator, "\(name): fused activation \(activation) is not supported")
    }
    return Node.Clamp(min: r.min, max: r.max)
}

/// Output size and explicit padding of a window op, with TensorFlow's SAME / VALID rules.
private func resolveWindow(
    _ padding: Padding, inH: Int, inW: Int, kH: Int, kW: Int, sH: Int, sW: Int, dH: Int, dW: Int, _ name: String
) throws -> (Node.Window, Int, Int) {
    var w = Node.Window(kernelH: kH, kernelW: kW, strideH: sH, strideW: sW, dilationH: dH, dilationW: dW)
    let effH = (kH - 1) * dH + 1, effW = (kW - 1) * dW + 1
    let oh: Int, ow: Int
    switch padding {
    case .same:
        oh = (inH + sH - 1) / sH
        ow = (inW + sW - 1) / sW
        let ph = max(0, (oh - 1) * sH + effH - inH), pw = max(0, (ow - 1) * sW + effW - inW)
        w.padTop = ph / 2; w.padBottom = ph - ph / 2
        w.padLeft = pw / 2; w.padRight = pw - pw / 2
    case .valid:
        guard inH >= effH, inW >= effW else {
            throw InferenceError(.invalidModel, "\(name): a \(kH)×\(kW) window does not fit a \(inH)×\(inW) input")
        }
        oh = (inH - effH) / sH + 1
        ow = (inW - effW) / sW + 1
    }
    guard kH > 0, kW > 0, oh > 0, ow > 0 else { throw InferenceError(.invalidModel, "\(name): empty output") }
    return (w, oh, ow)
}

/// NumPy-style broadcast of two shapes.
private func broadcast(_ a: [Int], _ b: [Int], _ name: String) throws -> [Int] {
    let n = max(a.count, b.count)
    let pa = Array(repeating: 1, count: n - a.count) + a
    let pb = Array(repeating: 1, count: n - b.count) + b
    return try zip(pa, pb).map { x, y in
        guard x == y || x == 1 || y == 1 else {
            throw InferenceError(.invalidModel, "\(name): shapes \(a) and \(b) do not broadcast")
        }
        return max(x, y)
    }
}
