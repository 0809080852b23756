import PVTFLite

/// What one operator becomes: its node's kind and the tensors the node reads at run time.
typealias Lowered = (kind: Node.Kind, inputs: [Int])

/// Lowers one operator of a model into a node: checks its inputs' and output's shapes, resolves padding and fused
/// activations, and reads its constant parameters and custom options.
struct OperatorLowering {
    let model: Model
    /// Shape of every tensor (as declared).
    let shapes: [[Int]]
    let op: Operator
    /// The operator's name in errors.
    let name: String
    /// The operator's first output.
    let out: Int

    func lowered() throws -> Lowered {
        switch op.code {
        case .custom(let customName):
            return try custom(customName)
        case .builtin(let b):
            if let lowered = try convolutionOrPool(b) ?? elementwise(b) ?? reshaping(b) ?? sliceOrConcatenation(b) {
                return lowered
            }
            throw InferenceError(.unsupportedOperator, "\(name) is not supported")
        }
    }

    func input(_ k: Int) throws -> Int {
        guard k < op.inputs.count, op.inputs[k] >= 0 else {
            throw InferenceError(.invalidModel, "\(name) lacks input \(k)")
        }
        return op.inputs[k]
    }

    func shape(_ t: Int) -> [Int] { shapes[t] }

    /// The values of a constant integer tensor (paddings, sizes, axes).
    private func ints(_ t: Int) throws -> [Int] {
        guard t >= 0, model.constantBytes(of: t) != nil else {
            throw InferenceError(.unsupportedOperator, "tensor '\(model.tensors[max(t, 0)].name)' must be a constant")
        }
        return try wrap { try model.intValues(of: t) }
    }

    private func check(_ expected: [Int], _ tensor: Int, _ name: String) throws {
        guard expected == shapes[tensor] else {
            throw InferenceError(.invalidModel, "\(name): computed output shape \(expected), the model declares \(shapes[tensor])")
        }
    }

    /// MediaPipe's custom operators.
    private func custom(_ customName: String) throws -> Lowered {
        let kind: Node.Kind
        let runtimeInputs: [Int]
        switch customName {
        case "Landmarks2TransformMatrix":
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
        case "TransformTensorBilinear":
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
        case "TransformLandmarks":
            let x = try input(0), m = try input(1)
            let xs = shape(x)
            guard xs.count == 3, xs[0] == 1, xs[2] == 2 || xs[2] == 3, shape(m).reduce(1, *) == 16 else {
                throw InferenceError(
                    .unsupportedOperator, "\(name): only version 2 (landmarks [1, N, 2 or 3]) is supported, got \(xs)")
            }
            kind = .transformLandmarks
            runtimeInputs = [x, m]
            try check(xs, out, name)
        default:
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
        }
        return (kind, runtimeInputs)
    }

    /// Convolutions, pools and fully connected layers.
    private func convolutionOrPool(_ b: BuiltinOperator) throws -> Lowered? {
        let kind: Node.Kind
        let runtimeInputs: [Int]
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
        default:
            return nil
        }
        return (kind, runtimeInputs)
    }

    /// Element-wise arithmetic and activations.
    private func elementwise(_ b: BuiltinOperator) throws -> Lowered? {
        let kind: Node.Kind
        let runtimeInputs: [Int]
        switch (b, op.options) {
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
        default:
            return nil
        }
        return (kind, runtimeInputs)
    }

    /// Padding, reshapes, resizes and spatial means.
    private func reshaping(_ b: BuiltinOperator) throws -> Lowered? {
        let kind: Node.Kind
        let runtimeInputs: [Int]
        switch (b, op.options) {
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
        default:
            return nil
        }
        return (kind, runtimeInputs)
    }

    /// Concatenation and strided slices.
    private func sliceOrConcatenation(_ b: BuiltinOperator) throws -> Lowered? {
        let kind: Node.Kind
        let runtimeInputs: [Int]
        switch (b, op.options) {
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
            return nil
        }
        return (kind, runtimeInputs)
    }
}

/// Runs a model reader call, its `ModelError` reported as an invalid model.
func wrap<T>(_ body: () throws -> T) throws -> T {
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
