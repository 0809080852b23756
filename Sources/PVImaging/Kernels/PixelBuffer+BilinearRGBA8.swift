import Dispatch

extension PixelBuffer {
    /// Bilinear resampling of a 4-channel 8-bit buffer straight into `destination` (same format): two taps per
    /// axis at half-pixel centres, computed per output pixel on 4-lane float vectors. For the common
    /// "shrink a frame to a model or preview size" case this touches only the two source rows each output
    /// row needs, where the separable resampler filters whole rows.
    func bilinearRGBA8(into destination: inout PixelBuffer) {
        let sw = width, sh = height, dw = destination.width, dh = destination.height
        let sx = Float(sw) / Float(dw), sy = Float(sh) / Float(dh)
        var x0 = [Int](repeating: 0, count: dw), x1 = x0
        var ax = [Float](repeating: 0, count: dw)
        for d in 0..<dw {
            let s = min(max((Float(d) + 0.5) * sx - 0.5, 0), Float(sw - 1))
            let i = Int(s)
            x0[d] = 4 * i
            x1[d] = 4 * min(i + 1, sw - 1)
            ax[d] = s - Float(i)
        }
        let srcStride = bytesPerRow(), dstStride = destination.bytesPerRow()
        withUnsafeBytes { src in
            destination.withUnsafeMutableBytes { dst in
                let s = UnsafeRawBufferPointer(src), d = dst
                x0.withUnsafeBufferPointer { x0 in
                    x1.withUnsafeBufferPointer { x1 in
                        ax.withUnsafeBufferPointer { ax in
                            @inline(__always) func load(_ p: UnsafeRawPointer, _ o: Int) -> SIMD4<Float> {
                                let v = p.loadUnaligned(fromByteOffset: o, as: SIMD4<UInt8>.self)
                                return SIMD4<Float>(v)
                            }
                            for y in 0..<dh {
                                let fy = min(max((Float(y) + 0.5) * sy - 0.5, 0), Float(sh - 1))
                                let j = Int(fy)
                                let ay = fy - Float(j)
                                let r0 = s.baseAddress! + j * srcStride
                                let r1 = s.baseAddress! + min(j + 1, sh - 1) * srcStride
                                let out = d.baseAddress! + y * dstStride
                                for x in 0..<dw {
                                    let a = ax[x]
                                    let top = load(r0, x0[x]) + (load(r0, x1[x]) - load(r0, x0[x])) * a
                                    let bottom = load(r1, x0[x]) + (load(r1, x1[x]) - load(r1, x0[x])) * a
                                    let v = (top + (bottom - top) * ay).rounded(.toNearestOrEven)
                                    out.storeBytes(
                                        of: SIMD4<UInt8>(truncatingIfNeeded: SIMD4<Int32>(v)), toByteOffset: 4 * x,
                                        as: SIMD4<UInt8>.self)
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
