import Foundation
import PVInference

/// Locations of the files tests read.
public enum TestFiles {
    /// `Tests/Fixtures`, found from this source file's location.
    public static let fixtures: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// An installed model or sample image. Fails (never skips) when it is missing, naming the install command.
    public static func installed(_ name: String) throws -> URL {
        try ModelStore.default.url(for: name)
    }
}

/// SplitMix64, the generator the reference fixtures use for their random inputs.
public struct SplitMix64 {
    var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A float in [min, max], computed in float32 as the fixtures do.
    public mutating func nextFloat(min: Float, max: Float) -> Float {
        let u = Float(next() >> 40) / 16_777_216
        return min + (max - min) * u
    }
}

/// One reference model fixture (`Tests/Fixtures/inference/<model>.json` + `.bin`), see `Tests/Fixtures/README.md`.
public struct InferenceGolden: Decodable, Sendable {
    public struct Input: Decodable, Sendable {
        public let shape: [Int]
        public let kind: String
        public let seed: UInt64?
        public let min: Float
        public let max: Float
        public let pixelsOffset: Int?
    }
    public struct Output: Decodable, Sendable {
        public let index: Int
        public let name: String
        public let shape: [Int]
        public let count: Int
        public let stride: Int
        public let stored: Int
        public let offset: Int
    }
    public struct Case: Decodable, Sendable {
        public let name: String
        public let input: Input
        public let outputs: [Output]
    }

    public let schemaVersion: Int
    public let model: String
    public let modelSHA256: String
    public let cases: [Case]
    /// The `.bin` payload.
    public var payload: [UInt8] = []

    enum CodingKeys: String, CodingKey { case schemaVersion, model, modelSHA256, cases }

    public static func load(_ modelStem: String) throws -> InferenceGolden {
        let dir = TestFiles.fixtures.appendingPathComponent("inference")
        var g = try JSONDecoder().decode(
            InferenceGolden.self, from: Data(contentsOf: dir.appendingPathComponent("\(modelStem).json")))
        g.payload = [UInt8](try Data(contentsOf: dir.appendingPathComponent("\(modelStem).bin")))
        return g
    }

    /// The input tensor of a case, rebuilt exactly as the generator built it.
    public func inputValues(_ c: Case) -> [Float] {
        let n = c.input.shape.reduce(1, *)
        switch c.input.kind {
        case "random":
            var rng = SplitMix64(seed: c.input.seed ?? 1)
            return (0..<n).map { _ in rng.nextFloat(min: c.input.min, max: c.input.max) }
        default:
            let o = c.input.pixelsOffset ?? 0
            let range = c.input.max - c.input.min
            return (0..<n).map { Float(payload[o + $0]) * range / 255 + c.input.min }
        }
    }

    /// The stored (possibly subsampled) reference values of an output: pairs of flat index and value.
    public func reference(_ o: Output) -> [(index: Int, value: Float)] {
        (0..<o.stored).map { k in
            let b = o.offset + 4 * k
            let bits = UInt32(payload[b]) | UInt32(payload[b + 1]) << 8 | UInt32(payload[b + 2]) << 16 | UInt32(payload[b + 3]) << 24
            return (k * o.stride, Float(bitPattern: bits))
        }
    }
}
