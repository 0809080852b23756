#if canImport(Glibc)
import Glibc
import PVCore
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension PixelBuffer {
    /// `out = in^power` per colour channel on values normalised to 0…1 (Core Image's `CIGammaAdjust`).
    ///
    /// 8-bit RGB-like and one-component 8 formats go through an exact 256-entry table
    /// (`round(255·(v/255)^power)`); alpha is left alone. Half and float values use
    /// `sign(v)·|v|^power`. 4:2:0 YUV is not supported (convert to RGB first).
    ///
    /// - Complexity: O(width·height).
    /// - Throws: ``ImagingError`` `.invalidArgument` for a negative or non-finite power,
    ///   `.unsupportedPixelFormat` for YUV.
    public func gammaAdjusted(power: Float) throws -> PixelBuffer {
        guard power.isFinite, power >= 0 else {
            throw ImagingError(.invalidArgument, "gamma power \(power) must be finite and non-negative")
        }
        guard !format.isYUV420 else { throw ImagingError.unsupported("gamma", format) }
        var out = try makeSibling(format: format)
        let w = width, f = format
        var lut = [UInt8](repeating: 0, count: 256)
        for i in 0..<256 { lut[i] = UInt8((255 * pow(Double(i) / 255, Double(power))).rounded()) }
        lut.withUnsafeBufferPointer { lutBuffer in
            let table = lutBuffer.baseAddress!
            withPlanes { s, _ in
                out.withMutablePlanes { d, _ in
                    ImagingThreads.forEachBand(rows: height, workPerRow: w * f.bytesPerPixel) { rows in
                        for y in rows {
                            switch f {
                            case .oneComponent16Half:
                                let a = s.row(y).assumingMemoryBound(to: Float16.self)
                                let b = d.row(y).assumingMemoryBound(to: Float16.self)
                                for x in 0..<w { b[x] = Float16(signedPow(Float(a[x]), power)) }
                            case .oneComponent32Float:
                                let a = s.row(y).assumingMemoryBound(to: Float.self)
                                let b = d.row(y).assumingMemoryBound(to: Float.self)
                                for x in 0..<w { b[x] = signedPow(a[x], power) }
                            default:
                                let a = s.row(y).assumingMemoryBound(to: UInt8.self)
                                let b = d.row(y).assumingMemoryBound(to: UInt8.self)
                                let n = w * f.bytesPerPixel
                                for i in 0..<n { b[i] = table[Int(a[i])] }
                                if let l = RGBLayout(f), l.hasAlpha {
                                    for x in 0..<w { b[x &* 4 &+ l.a] = a[x &* 4 &+ l.a] }
                                }
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// The largest of R, G and B per pixel (Core Image's `CIMaximumComponent`).
    ///
    /// Any input format is read (grey inputs give themselves; YUV is converted with BT.601).
    /// `format` selects the result: `oneComponent8` (default), `oneComponent16Half` or
    /// `oneComponent32Float` (max/255), or an 8-bit RGB-like format with R = G = B = max and the
    /// source's alpha (255 if it has none).
    ///
    /// - Complexity: O(width·height).
    public func maximumComponent(format outputFormat: PixelFormat = .oneComponent8) throws -> PixelBuffer {
        guard !outputFormat.isYUV420 else { throw ImagingError.unsupported("maximumComponent output", outputFormat) }
        var out = try makeSibling(format: outputFormat)
        let w = width, sf = format
        withPlanes { s0, s1 in
            out.withMutablePlanes { d, _ in
                ImagingThreads.forEachBand(rows: height, workPerRow: w * 2) { rows in
                    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: w) { scratch in
                        let rgba = scratch.baseAddress!
                        for y in rows {
                            if sf.isFourChannel8 && outputFormat == .oneComponent8 {
                                // Direct path: no scratch pass.
                                let l = RGBLayout(sf)!
                                let a = s0.row(y).assumingMemoryBound(to: UInt8.self)
                                let b = d.row(y).assumingMemoryBound(to: UInt8.self)
                                for x in 0..<w {
                                    let p = a + x &* 4
                                    b[x] = max(p[l.r], max(p[l.g], p[l.b]))
                                }
                                continue
                            }
                            readRGBARow(s0, s1, sf, y: y, width: w, into: rgba)
                            for x in 0..<w {
                                let p = rgba[x]
                                let m = max(p & 0xFF, max((p &>> 8) & 0xFF, (p &>> 16) & 0xFF))
                                rgba[x] = m &* 0x0001_0101 | (p & 0xFF00_0000)
                            }
                            if outputFormat.isOneComponent {
                                // The grey word has R = G = B, whose luma is exactly that value.
                                writeGreyRow(rgba, width: w, to: d.row(y), outputFormat)
                            } else {
                                writeRGBARow(rgba, width: w, to: d.row(y), outputFormat)
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}

@inline(__always) private func signedPow(_ v: Float, _ p: Float) -> Float {
    v >= 0 ? powf(v, p) : -powf(-v, p)
}

/// Writes the R byte of RGBA words as a one-component row.
private func writeGreyRow(_ rgba: UnsafePointer<UInt32>, width w: Int, to row: UnsafeMutableRawPointer, _ f: PixelFormat) {
    switch f {
    case .oneComponent8:
        let d = row.assumingMemoryBound(to: UInt8.self)
        for x in 0..<w { d[x] = UInt8(truncatingIfNeeded: rgba[x]) }
    case .oneComponent16Half:
        let d = row.assumingMemoryBound(to: Float16.self)
        for x in 0..<w { d[x] = Float16(Float(rgba[x] & 0xFF) / 255) }
    default:
        let d = row.assumingMemoryBound(to: Float.self)
        for x in 0..<w { d[x] = Float(rgba[x] & 0xFF) / 255 }
    }
}
