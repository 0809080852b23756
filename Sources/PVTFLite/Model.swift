import Foundation
import PVCore

/// Element types of TensorFlow Lite tensors (the schema's `TensorType`).
public enum TensorType: Int8, Sendable, CustomStringConvertible {
    case float32 = 0, float16 = 1, int32 = 2, uint8 = 3, int64 = 4, string = 5, bool = 6, int16 = 7
    case complex64 = 8, int8 = 9, float64 = 10

    /// Bytes per element (0 for strings).
    public var size: Int {
        switch self {
        case .float32, .int32: return 4
        case .float16, .int16: return 2
        case .uint8, .bool, .int8: return 1
        case .int64, .float64, .complex64: return 8
        case .string: return 0
        }
    }

    public var description: String {
        switch self {
        case .float32: return "FLOAT32"
        case .float16: return "FLOAT16"
        case .int32: return "INT32"
        case .uint8: return "UINT8"
        case .int64: return "INT64"
        case .string: return "STRING"
        case .bool: return "BOOL"
        case .int16: return "INT16"
        case .complex64: return "COMPLEX64"
        case .int8: return "INT8"
        case .float64: return "FLOAT64"
        }
    }
}

/// A TensorFlow Lite builtin operator code, or a custom operator.
public enum OperatorCode: Sendable, Hashable, CustomStringConvertible {
    case builtin(BuiltinOperator)
    case custom(String)

    public var description: String {
        switch self {
        case .builtin(let op): return op.description
        case .custom(let name): return "CUSTOM(\(name))"
        }
    }
}

/// The schema's `BuiltinOperator` numbers this project meets, plus the raw value for any other.
public struct BuiltinOperator: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let add = Self(rawValue: 0)
    public static let averagePool2D = Self(rawValue: 1)
    public static let concatenation = Self(rawValue: 2)
    public static let conv2D = Self(rawValue: 3)
    public static let depthwiseConv2D = Self(rawValue: 4)
    public static let depthToSpace = Self(rawValue: 5)
    public static let dequantize = Self(rawValue: 6)
    public static let fullyConnected = Self(rawValue: 9)
    public static let logistic = Self(rawValue: 14)
    public static let maxPool2D = Self(rawValue: 17)
    public static let mul = Self(rawValue: 18)
    public static let relu = Self(rawValue: 19)
    public static let relu6 = Self(rawValue: 21)
    public static let reshape = Self(rawValue: 22)
    public static let resizeBilinear = Self(rawValue: 23)
    public static let tanh = Self(rawValue: 28)
    public static let custom = Self(rawValue: 32)
    public static let pad = Self(rawValue: 34)
    public static let transpose = Self(rawValue: 39)
    public static let mean = Self(rawValue: 40)
    public static let sub = Self(rawValue: 41)
    public static let div = Self(rawValue: 42)
    public static let squeeze = Self(rawValue: 43)
    public static let stridedSlice = Self(rawValue: 45)
    public static let prelu = Self(rawValue: 54)
    public static let maximum = Self(rawValue: 55)
    public static let minimum = Self(rawValue: 57)
    public static let transposeConv = Self(rawValue: 67)
    public static let hardSwish = Self(rawValue: 117)
    public static let densify = Self(rawValue: 124)

    static let names: [Int32: String] = [
        0: "ADD", 1: "AVERAGE_POOL_2D", 2: "CONCATENATION", 3: "CONV_2D", 4: "DEPTHWISE_CONV_2D",
        5: "DEPTH_TO_SPACE", 6: "DEQUANTIZE", 9: "FULLY_CONNECTED", 14: "LOGISTIC", 17: "MAX_POOL_2D",
        18: "MUL", 19: "RELU", 21: "RELU6", 22: "RESHAPE", 23: "RESIZE_BILINEAR", 28: "TANH", 32: "CUSTOM",
        34: "PAD", 39: "TRANSPOSE", 40: "MEAN", 41: "SUB", 42: "DIV", 43: "SQUEEZE", 45: "STRIDED_SLICE",
        54: "PRELU", 55: "MAXIMUM", 57: "MINIMUM", 67: "TRANSPOSE_CONV", 117: "HARD_SWISH", 124: "DENSIFY",
    ]

    public var description: String { Self.names[rawValue] ?? "BUILTIN_\(rawValue)" }
}

/// Convolution and pooling padding modes, with TensorFlow's meaning.
public enum Padding: Sendable, Hashable {
    case same, valid
}

/// Activation functions fused into an operator's output.
public enum FusedActivation: Int8, Sendable, Hashable {
    case none = 0, relu = 1, reluN1To1 = 2, relu6 = 3, tanh = 4, signBit = 5

    /// The output clamp range the activation amounts to, or nil when it is not a clamp.
    public var clampRange: (min: Float, max: Float)? {
        switch self {
        case .none: return (-.infinity, .infinity)
        case .relu: return (0, .infinity)
        case .reluN1To1: return (-1, 1)
        case .relu6: return (0, 6)
        case .tanh, .signBit: return nil
        }
    }
}

/// The options of one operator, decoded from its `builtin_options` table.
public enum OperatorOptions: Sendable, Hashable {
    case none
    case conv2D(padding: Padding, strideW: Int, strideH: Int, dilationW: Int, dilationH: Int, activation: FusedActivation)
    case depthwiseConv2D(
        padding: Padding, strideW: Int, strideH: Int, depthMultiplier: Int, dilationW: Int, dilationH: Int,
        activation: FusedActivation)
    case pool2D(padding: Padding, strideW: Int, strideH: Int, filterW: Int, filterH: Int, activation: FusedActivation)
    case fullyConnected(activation: FusedActivation, keepNumDims: Bool)
    case concatenation(axis: Int, activation: FusedActivation)
    /// ADD, SUB, MUL, DIV.
    case elementwise(activation: FusedActivation)
    case reshape(newShape: [Int]?)
    case resizeBilinear(alignCorners: Bool, halfPixelCenters: Bool)
    case stridedSlice(beginMask: Int, endMask: Int, ellipsisMask: Int, newAxisMask: Int, shrinkAxisMask: Int)
    case reducer(keepDims: Bool)
    case depthToSpace(blockSize: Int)
    case transposeConv(padding: Padding, strideW: Int, strideH: Int, activation: FusedActivation)
}

/// One tensor of the model's graph.
public struct Tensor: Sendable {
    /// The tensor's name in the model.
    public let name: String
    /// The shape, outermost dimension first.
    public let shape: [Int]
    /// Element type.
    public let type: TensorType
    /// Index into the model's buffers; buffer 0 (or an empty buffer) means "no constant data".
    public let buffer: Int
    /// Sparse storage description, when the constant data is stored sparsely (consumed by DENSIFY).
    public let sparsity: Sparsity?
    /// Number of elements (the product of the shape).
    public var elementCount: Int { shape.reduce(1, *) }
}

/// One operator (node) of the graph.
public struct Operator: Sendable {
    /// What the operator computes.
    public let code: OperatorCode
    /// Input tensor indices; -1 marks an omitted optional input.
    public let inputs: [Int]
    /// Output tensor indices.
    public let outputs: [Int]
    /// Decoded builtin options.
    public let options: OperatorOptions
    /// Raw custom options (for custom operators).
    public let customOptions: [UInt8]
}

/// A parsed `.tflite` model: its main subgraph, operator list and constant buffers.
///
/// Parsing is strict: every offset, length and index is checked, tensor sizes are bounded by
/// ``Model/maximumTensorElements``, and any violation throws ``ModelError`` instead of trapping.
///
/// ```swift
/// let model = try Model(contentsOf: url)
/// for op in model.operators { print(op.code, op.inputs, op.outputs) }
/// ```
public struct Model: Sendable {
    /// The schema version the file declares.
    public let version: Int
    /// The free-text description stored in the file.
    public let modelDescription: String
    /// All tensors of the main subgraph.
    public let tensors: [Tensor]
    /// Operators in execution order.
    public let operators: [Operator]
    /// Graph input tensor indices.
    public let inputs: [Int]
    /// Graph output tensor indices, in the order an interpreter reports them.
    public let outputs: [Int]
    /// Byte ranges of the constant buffers inside ``bytes``.
    public let buffers: [Range<Int>]
    /// The file's bytes.
    public let bytes: [UInt8]

    /// Largest element count accepted for one tensor (2^28), so a hostile shape cannot force a huge allocation.
    public static let maximumTensorElements = 1 << 28

    /// Reads and parses a model file.
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) {
                throw ModelError(.notFound, "model file \(url.path) does not exist")
            }
            throw ModelError(.ioError, "cannot read model file \(url.path): \(error.localizedDescription)")
        }
        try self.init(bytes: [UInt8](data))
    }

    /// Parses a model held in memory.
    public init(bytes: [UInt8]) throws {
        let fb = FlatBuffer(bytes)
        guard bytes.count >= 8 else { throw ModelError(.malformed, "a \(bytes.count)-byte file is too short to be a TensorFlow Lite model") }
        // File identifier "TFL3" at bytes 4..<8 (optional in the format, present in every converter's output).
        if bytes[4..<8].elementsEqual("TFL3".utf8) == false {
            throw ModelError(.malformed, "missing the TFL3 file identifier: not a TensorFlow Lite model")
        }
        let root = try fb.root()
        version = Int(try root.u32(0))
        modelDescription = try root.string(3) ?? ""

        // Operator codes.
        let codes: [OperatorCode] = try root.tables(1).map { t in
            let deprecated = Int32(try t.i8(0))
            let builtin = try t.i32(3)
            let code = max(deprecated, builtin)
            if code == BuiltinOperator.custom.rawValue {
                return .custom(try t.string(1) ?? "")
            }
            return .builtin(BuiltinOperator(rawValue: code))
        }

        // Buffers.
        var buffers: [Range<Int>] = []
        for t in try root.tables(4) {
            if let r = try t.bytesVector(0) {
                buffers.append(r)
            } else {
                let offset = try t.u64(1)
                let size = try t.u64(2)
                if offset > 1 {
                    guard offset <= UInt64(bytes.count), size <= UInt64(bytes.count) - offset else {
                        throw ModelError(.malformed, "an external buffer (offset \(offset), size \(size)) lies outside the file")
                    }
                    buffers.append(Int(offset)..<Int(offset + size))
                } else {
                    buffers.append(0..<0)
                }
            }
        }
        self.buffers = buffers

        let subgraphs = try root.tables(2)
        guard let graph = subgraphs.first else { throw ModelError(.malformed, "the model has no subgraph") }

        let tensors = try graph.tables(0).map { try Self.tensor($0, bufferCount: buffers.count) }
        self.tensors = tensors

        func checkedIndices(_ list: [Int32]?, optional: Bool, _ what: String) throws -> [Int] {
            try (list ?? []).map { raw in
                let i = Int(raw)
                if optional && i == -1 { return -1 }
                guard i >= 0, i < tensors.count else {
                    throw ModelError(.malformed, "\(what) refers to tensor \(i) of \(tensors.count)")
                }
                return i
            }
        }
        inputs = try checkedIndices(graph.int32Vector(1), optional: false, "a graph input")
        outputs = try checkedIndices(graph.int32Vector(2), optional: false, "a graph output")

        var operators: [Operator] = []
        for t in try graph.tables(3) {
            let index = Int(try t.u32(0))
            guard index < codes.count else {
                throw ModelError(.malformed, "an operator refers to operator code \(index) of \(codes.count)")
            }
            let code = codes[index]
            let ins = try checkedIndices(t.int32Vector(1), optional: true, "an operator input")
            let outs = try checkedIndices(t.int32Vector(2), optional: false, "an operator output")
            let options = try Self.decodeOptions(code: code, table: try t.table(4))
            let custom = try t.bytesVector(5).map { Array(bytes[$0]) } ?? []
            operators.append(Operator(code: code, inputs: ins, outputs: outs, options: options, customOptions: custom))
        }
        self.operators = operators
        self.bytes = bytes
    }

    /// One tensor table, checked: shape, element count, type and buffer index.
    private static func tensor(_ t: Table, bufferCount: Int) throws -> Tensor {
        let shape = try (t.int32Vector(0) ?? []).map(Int.init)
        guard shape.count <= 8, shape.allSatisfy({ $0 >= 0 }) else {
            throw ModelError(.malformed, "tensor shape \(shape) is invalid")
        }
        var elements = 1
        for d in shape {
            let (p, o) = elements.multipliedReportingOverflow(by: d)
            guard !o, p <= Self.maximumTensorElements else {
                throw ModelError(.tooLarge, "tensor shape \(shape) exceeds \(Self.maximumTensorElements) elements")
            }
            elements = p
        }
        let rawType = try t.i8(1)
        guard let type = TensorType(rawValue: rawType) else {
            throw ModelError(.unsupported, "tensor type \(rawType) is not supported")
        }
        let buffer = Int(try t.u32(2))
        guard buffer < max(bufferCount, 1) else {
            throw ModelError(.malformed, "tensor refers to buffer \(buffer) of \(bufferCount)")
        }
        let sparsity = try t.table(6).map { try Sparsity(table: $0) }
        return Tensor(name: try t.string(3) ?? "", shape: shape, type: type, buffer: buffer, sparsity: sparsity)
    }

    /// The raw constant bytes of a tensor, or nil when it has none (an activation or graph input).
    public func constantBytes(of tensor: Int) -> ArraySlice<UInt8>? {
        let b = tensors[tensor].buffer
        guard b > 0, b < buffers.count, !buffers[b].isEmpty else { return nil }
        return bytes[buffers[b]]
    }

    private static func padding(_ raw: Int8) throws -> Padding {
        switch raw {
        case 0: return .same
        case 1: return .valid
        default: throw ModelError(.unsupported, "padding mode \(raw) is not supported")
        }
    }

    private static func activation(_ raw: Int8) throws -> FusedActivation {
        guard let a = FusedActivation(rawValue: raw) else {
            throw ModelError(.unsupported, "fused activation \(raw) is not supported")
        }
        return a
    }

    private static func positive(_ v: Int32, _ what: String) throws -> Int {
        guard v > 0, v <= 1 << 16 else { throw ModelError(.malformed, "\(what) \(v) is out of range") }
        return Int(v)
    }

    private static func decodeOptions(code: OperatorCode, table: Table?) throws -> OperatorOptions {
        guard case .builtin(let op) = code else { return .none }
        // A missing options table means every field takes its schema default.
        func i8(_ i: Int, _ d: Int8 = 0) throws -> Int8 { try table?.i8(i, default: d) ?? d }
        func i32(_ i: Int, _ d: Int32 = 0) throws -> Int32 { try table?.i32(i, default: d) ?? d }
        func bool(_ i: Int) throws -> Bool { try table?.bool(i) ?? false }
        switch op {
        case .conv2D:
            return .conv2D(
                padding: try padding(i8(0)), strideW: try positive(i32(1, 1), "stride"),
                strideH: try positive(i32(2, 1), "stride"),
                dilationW: try positive(i32(4, 1), "dilation"), dilationH: try positive(i32(5, 1), "dilation"),
                activation: try activation(i8(3)))
        case .depthwiseConv2D:
            return .depthwiseConv2D(
                padding: try padding(i8(0)), strideW: try positive(i32(1, 1), "stride"),
                strideH: try positive(i32(2, 1), "stride"),
                depthMultiplier: Int(try i32(3, 1)),
                dilationW: try positive(i32(5, 1), "dilation"), dilationH: try positive(i32(6, 1), "dilation"),
                activation: try activation(i8(4)))
        case .averagePool2D, .maxPool2D:
            return .pool2D(
                padding: try padding(i8(0)), strideW: try positive(i32(1, 1), "stride"),
                strideH: try positive(i32(2, 1), "stride"),
                filterW: try positive(i32(3, 1), "filter width"), filterH: try positive(i32(4, 1), "filter height"),
                activation: try activation(i8(5)))
        case .fullyConnected:
            return .fullyConnected(activation: try activation(i8(0)), keepNumDims: try bool(2))
        case .concatenation:
            return .concatenation(axis: Int(try i32(0)), activation: try activation(i8(1)))
        case .add, .sub, .mul, .div:
            return .elementwise(activation: try activation(i8(0)))
        case .reshape:
            return .reshape(newShape: try table?.int32Vector(0).map { $0.map(Int.init) })
        case .resizeBilinear:
            return .resizeBilinear(alignCorners: try bool(2), halfPixelCenters: try bool(3))
        case .stridedSlice:
            return .stridedSlice(
                beginMask: Int(try i32(0)), endMask: Int(try i32(1)), ellipsisMask: Int(try i32(2)),
                newAxisMask: Int(try i32(3)), shrinkAxisMask: Int(try i32(4)))
        case .mean:
            return .reducer(keepDims: try bool(0))
        case .depthToSpace:
            return .depthToSpace(blockSize: try positive(i32(0), "block size"))
        case .transposeConv:
            return .transposeConv(
                padding: try padding(i8(0)), strideW: try positive(i32(1, 1), "stride"),
                strideH: try positive(i32(2, 1), "stride"), activation: try activation(i8(3)))
        default:
            return .none
        }
    }
}
