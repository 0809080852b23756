import Foundation

/// Small audio files for tests.
public enum AudioFiles {
    /// A mono 16-bit PCM WAV file of a 440 Hz tone, `seconds` long at 8 kHz.
    public static func tone(seconds: Double) -> Data {
        let rate = 8000, count = Int(Double(rate) * seconds)
        var data = Data()
        func append<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(36 + 2 * count))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16)); append(UInt16(1)); append(UInt16(1)); append(UInt32(rate)); append(UInt32(2 * rate))
        append(UInt16(2)); append(UInt16(16))
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(2 * count))
        for i in 0..<count { append(Int16(8000 * sin(2 * Double.pi * 440 * Double(i) / Double(rate)))) }
        return data
    }
}
