import Foundation
import PVImaging
import PVTestSupport

@testable import PVPerception

/// Face test images: the installed samples and transforms of them built in memory.
enum FaceTestImages {
    /// astronaut.png (512×512): one frontal face near (225, 130) px.
    static func astronaut() throws -> PixelBuffer { try load("astronaut.png") }
    /// camera.png (512×512, grey): one face in three-quarter view.
    static func camera() throws -> PixelBuffer { try load("camera.png") }

    static func load(_ name: String) throws -> PixelBuffer {
        try ImageDecoder.decode(contentsOf: TestFiles.installed(name)).pixels.converted(to: .rgba32)
    }

    /// The image rotated in-plane about `center` (pixels) by `degrees`, **counter-clockwise on screen** for a
    /// positive angle, same size, replicated border.
    static func rotated(_ image: PixelBuffer, degrees: Double, about center: SIMD2<Double>) throws -> PixelBuffer {
        // Output pixel p reads the source at R(θ)·(p − c) + c with θ the clockwise-on-screen angle in pixel
        // space (y down); the content therefore turns by −θ, i.e. counter-clockwise for θ = +degrees.
        let rect = RotatedRect(
            centerX: center.x, centerY: center.y, width: Double(image.width), height: Double(image.height),
            angle: degrees * .pi / 180)
        // Keep the rotation centre where it was: shift the rect so that its centre maps the output centre.
        let W = Double(image.width), H = Double(image.height)
        let off = SIMD2(W / 2, H / 2) - center
        let c = cos(rect.angle), s = sin(rect.angle)
        let shifted = RotatedRect(
            centerX: center.x + c * off.x - s * off.y, centerY: center.y + s * off.x + c * off.y, width: W, height: H,
            angle: rect.angle)
        return try render(image, rect: shifted)
    }

    /// Samples `rect` of `image` into an RGBA8 image of the same size.
    static func render(_ image: PixelBuffer, rect: RotatedRect) throws -> PixelBuffer {
        let w = image.width, h = image.height
        let sampler = TensorSampler(width: w, height: h, range: 0...255, fit: .stretch, border: .replicate)
        var values = [Float](repeating: 0, count: w * h * 3)
        try values.withUnsafeMutableBufferPointer { _ = try sampler.sample(image, rect: rect, into: $0) }
        var out = try PixelBuffer(width: w, height: h, format: .rgba32)
        let stride = out.bytesPerRow()
        out.withUnsafeMutableBytes { d in
            for y in 0..<h {
                for x in 0..<w {
                    for ch in 0..<3 {
                        d[y * stride + 4 * x + ch] = UInt8(max(0, min(255, values[(y * w + x) * 3 + ch].rounded())))
                    }
                    d[y * stride + 4 * x + 3] = 255
                }
            }
        }
        return out
    }

    /// The image mirrored left to right.
    static func flipped(_ image: PixelBuffer) throws -> PixelBuffer { try image.applying(.upMirrored) }

    /// Every RGB value multiplied by `factor` (0…1).
    static func darkened(_ image: PixelBuffer, factor: Double) throws -> PixelBuffer {
        var out = try image.converted(to: .rgba32)
        let stride = out.bytesPerRow(), w = out.width, h = out.height
        out.withUnsafeMutableBytes { d in
            for y in 0..<h {
                for x in 0..<w {
                    for ch in 0..<3 {
                        let i = y * stride + 4 * x + ch
                        d[i] = UInt8((Double(d[i]) * factor).rounded())
                    }
                }
            }
        }
        return out
    }

    /// A flat-coloured "surgical mask" over the lower half of a face: every pixel of the face's mesh box
    /// below the nose bridge midpoint (between the eyes and the nose tip), within the mesh's jaw outline's
    /// horizontal extent.
    static func masked(_ image: PixelBuffer, face: FaceMesh, color: (UInt8, UInt8, UInt8) = (120, 170, 220))
        throws -> PixelBuffer
    {
        var out = try image.converted(to: .rgba32)
        let box = face.meshBoundingBox
        let top = (face.landmarks[168].y + face.landmarks[1].y) / 2
        let stride = out.bytesPerRow(), w = out.width, h = out.height
        let x0 = max(0, Int(box.xMin.rounded(.down))), x1 = min(w - 1, Int(box.xMax.rounded(.up)))
        let y0 = max(0, Int(top.rounded())), y1 = min(h - 1, Int(box.yMax.rounded(.up)) + 4)
        out.withUnsafeMutableBytes { d in
            for y in y0...y1 {
                for x in x0...x1 {
                    let i = y * stride + 4 * x
                    d[i] = color.0
                    d[i + 1] = color.1
                    d[i + 2] = color.2
                }
            }
        }
        return out
    }

    /// The face turned about a vertical axis by `degrees` (a synthetic yaw), rendered from the image and the
    /// face's own 3-D mesh: every pixel gets a depth (inverse-distance weighted from the mesh points inside the
    /// face, the mesh's mean contour depth elsewhere), is rotated about the vertical axis through the face
    /// centre, and splatted with a depth test; holes take their left neighbour.
    static func turned(_ image: PixelBuffer, face: FaceMesh, degrees: Double) throws -> PixelBuffer {
        let w = image.width, h = image.height
        let src = try image.converted(to: .rgba32)
        var out = try PixelBuffer(width: w, height: h, format: .rgba32)
        let mesh = Array(face.landmarks.prefix(468))
        let box = face.meshBoundingBox
        let cx = box.center.x
        let oval = [10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377, 152, 148,
                    176, 149, 150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109]
        let back = oval.map { mesh[$0].z }.reduce(0, +) / Double(oval.count)
        // Depth on a coarse grid over the mesh box, bilinear in between.
        let g = 48
        var grid = [Double](repeating: back, count: g * g)
        for j in 0..<g {
            for i in 0..<g {
                let x = box.xMin + (Double(i) + 0.5) / Double(g) * box.width
                let y = box.yMin + (Double(j) + 0.5) / Double(g) * box.height
                var num = 0.0, den = 0.0, nearest = Double.infinity
                for p in mesh {
                    let d2 = (p.x - x) * (p.x - x) + (p.y - y) * (p.y - y)
                    nearest = min(nearest, d2)
                    let wgt = 1 / (d2 + 1)
                    num += wgt * wgt * p.z
                    den += wgt * wgt
                }
                // Outside the face (far from every mesh point) the depth falls back to the contour's.
                let reach = 0.04 * box.width * box.width
                let t = min(1, nearest / reach)
                grid[j * g + i] = (1 - t) * (num / den) + t * back
            }
        }
        func depth(_ x: Double, _ y: Double) -> Double {
            let u = (x - box.xMin) / box.width * Double(g) - 0.5, v = (y - box.yMin) / box.height * Double(g) - 0.5
            guard u >= 0, v >= 0, u <= Double(g - 1), v <= Double(g - 1) else { return back }
            let i = min(Int(u), g - 2), j = min(Int(v), g - 2)
            let fu = u - Double(i), fv = v - Double(j)
            return (grid[j * g + i] * (1 - fu) + grid[j * g + i + 1] * fu) * (1 - fv)
                + (grid[(j + 1) * g + i] * (1 - fu) + grid[(j + 1) * g + i + 1] * fu) * fv
        }
        let t = degrees * .pi / 180, c = cos(t), s = sin(t)
        let ss = src.bytesPerRow(), ds = out.bytesPerRow()
        var zbuf = [Double](repeating: .infinity, count: w * h)
        var filled = [Bool](repeating: false, count: w * h)
        src.withUnsafeBytes { sb in
            out.withUnsafeMutableBytes { db in
                for y in 0..<h {
                    // Three sub-pixel steps per source pixel so that stretched parts leave no holes.
                    for k in 0..<(3 * w) {
                        let x = Double(k) / 3
                        let z = depth(x, Double(y)) - back
                        let xp = cx + (x - cx) * c + z * s
                        let zp = -(x - cx) * s + z * c
                        let xi = Int(xp.rounded())
                        guard xi >= 0, xi < w else { continue }
                        let o = y * w + xi
                        if zp < zbuf[o] {
                            zbuf[o] = zp
                            filled[o] = true
                            let sx = min(w - 1, Int(x))
                            for ch in 0..<4 { db[y * ds + 4 * xi + ch] = sb[y * ss + 4 * sx + ch] }
                        }
                    }
                    for x in 1..<w where !filled[y * w + x] && filled[y * w + x - 1] {
                        filled[y * w + x] = true
                        for ch in 0..<4 { db[y * ds + 4 * x + ch] = db[y * ds + 4 * (x - 1) + ch] }
                    }
                }
            }
        }
        return out
    }

    static let sharedLandmarker = Result { try FaceLandmarker() }
    static func landmarker() throws -> FaceLandmarker { try sharedLandmarker.get() }
}

/// Kendall's rank correlation τ between `values` and their index order (1 = strictly increasing).
func kendallTau(_ values: [Double]) -> Double {
    var concordant = 0, discordant = 0
    for i in 0..<values.count {
        for j in (i + 1)..<values.count {
            if values[j] > values[i] { concordant += 1 } else if values[j] < values[i] { discordant += 1 }
        }
    }
    let pairs = values.count * (values.count - 1) / 2
    return pairs == 0 ? 0 : Double(concordant - discordant) / Double(pairs)
}
