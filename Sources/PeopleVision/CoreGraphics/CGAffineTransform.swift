import Foundation

/// An affine transformation matrix for 2D drawing, as Core Graphics' `CGAffineTransform`.
///
/// A point `(x, y)` maps to `(a·x + c·y + tx, b·x + d·y + ty)` — Apple's row-vector convention,
/// so `t1.concatenating(t2)` applies `t1` first, then `t2`. Mirrors the macOS 10.0 / iOS 2
/// struct and its Swift overlay; `CGAffineTransform()` is all zeros, as the imported C struct is.
///
/// ```swift
/// let scale = CGAffineTransform(scaleX: image.extent.width / mask.extent.width,
///                               y: image.extent.height / mask.extent.height)
/// let scaledMask = mask.transformed(by: scale)
/// ```
public struct CGAffineTransform: Equatable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// Row 1, column 1: x scale (with rotation).
    public var a: CGFloat
    /// Row 1, column 2.
    public var b: CGFloat
    /// Row 2, column 1.
    public var c: CGFloat
    /// Row 2, column 2: y scale (with rotation).
    public var d: CGFloat
    /// x translation.
    public var tx: CGFloat
    /// y translation.
    public var ty: CGFloat

    /// The all-zero matrix, as the imported C struct's `init()`.
    public init() {
        self.init(a: 0, b: 0, c: 0, d: 0, tx: 0, ty: 0)
    }

    /// A transform with the given matrix entries.
    public init(a: CGFloat, b: CGFloat, c: CGFloat, d: CGFloat, tx: CGFloat, ty: CGFloat) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
        self.tx = tx
        self.ty = ty
    }

    /// A scaling transform (Apple's `CGAffineTransformMakeScale`).
    public init(scaleX sx: CGFloat, y sy: CGFloat) {
        self.init(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0)
    }

    /// A translating transform (Apple's `CGAffineTransformMakeTranslation`).
    public init(translationX tx: CGFloat, y ty: CGFloat) {
        self.init(a: 1, b: 0, c: 0, d: 1, tx: tx, ty: ty)
    }

    /// A rotation by `angle` radians; positive angles turn counter-clockwise in a y-up space
    /// such as Core Image's (Apple's `CGAffineTransformMakeRotation`).
    public init(rotationAngle angle: CGFloat) {
        let cosine = Foundation.cos(angle), sine = Foundation.sin(angle)
        self.init(a: cosine, b: sine, c: -sine, d: cosine, tx: 0, ty: 0)
    }

    /// The identity transform.
    public static let identity = CGAffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// Whether this is the identity transform.
    public var isIdentity: Bool { self == .identity }

    /// `self` followed by `t2` (Apple's `CGAffineTransformConcat(self, t2)`).
    public func concatenating(_ t2: CGAffineTransform) -> CGAffineTransform {
        CGAffineTransform(
            a: a * t2.a + b * t2.c, b: a * t2.b + b * t2.d,
            c: c * t2.a + d * t2.c, d: c * t2.b + d * t2.d,
            tx: tx * t2.a + ty * t2.c + t2.tx, ty: tx * t2.b + ty * t2.d + t2.ty)
    }

    /// The inverse; a non-invertible transform is returned unchanged, as Apple's `CGAffineTransformInvert`.
    public func inverted() -> CGAffineTransform {
        let determinant = a * d - b * c
        guard determinant != 0, determinant.isFinite else { return self }
        return CGAffineTransform(
            a: d / determinant, b: -b / determinant, c: -c / determinant, d: a / determinant,
            tx: (c * ty - d * tx) / determinant, ty: (b * tx - a * ty) / determinant)
    }

    /// A scale applied before `self` (Apple's `CGAffineTransformScale`).
    public func scaledBy(x sx: CGFloat, y sy: CGFloat) -> CGAffineTransform {
        CGAffineTransform(scaleX: sx, y: sy).concatenating(self)
    }

    /// A translation applied before `self` (Apple's `CGAffineTransformTranslate`).
    public func translatedBy(x tx: CGFloat, y ty: CGFloat) -> CGAffineTransform {
        CGAffineTransform(translationX: tx, y: ty).concatenating(self)
    }

    /// A rotation by `angle` radians applied before `self` (Apple's `CGAffineTransformRotate`).
    public func rotated(by angle: CGFloat) -> CGAffineTransform {
        CGAffineTransform(rotationAngle: angle).concatenating(self)
    }

    public var description: String {
        "CGAffineTransform(a: \(a), b: \(b), c: \(c), d: \(d), tx: \(tx), ty: \(ty))"
    }
}

/// Apple's `__CGAffineTransformMake`, the C constructor behind `CGAffineTransform(a:b:c:d:tx:ty:)`.
public func __CGAffineTransformMake(
    _ a: CGFloat, _ b: CGFloat, _ c: CGFloat, _ d: CGFloat, _ tx: CGFloat, _ ty: CGFloat
) -> CGAffineTransform {
    CGAffineTransform(a: a, b: b, c: c, d: d, tx: tx, ty: ty)
}

/// Core Graphics' `CGAffineTransformMake`. (Apple's Swift overlay hides it in favour of the initializers; it is kept here for ported C-style code.)
public func CGAffineTransformMake(
    _ a: CGFloat, _ b: CGFloat, _ c: CGFloat, _ d: CGFloat, _ tx: CGFloat, _ ty: CGFloat
) -> CGAffineTransform {
    CGAffineTransform(a: a, b: b, c: c, d: d, tx: tx, ty: ty)
}

/// Core Graphics' `CGAffineTransformMakeScale`; same as ``CGAffineTransform/init(scaleX:y:)``.
public func CGAffineTransformMakeScale(_ sx: CGFloat, _ sy: CGFloat) -> CGAffineTransform {
    CGAffineTransform(scaleX: sx, y: sy)
}

/// Core Graphics' `CGAffineTransformMakeTranslation`; same as ``CGAffineTransform/init(translationX:y:)``.
public func CGAffineTransformMakeTranslation(_ tx: CGFloat, _ ty: CGFloat) -> CGAffineTransform {
    CGAffineTransform(translationX: tx, y: ty)
}

/// Core Graphics' `CGAffineTransformMakeRotation`; same as ``CGAffineTransform/init(rotationAngle:)``.
public func CGAffineTransformMakeRotation(_ angle: CGFloat) -> CGAffineTransform {
    CGAffineTransform(rotationAngle: angle)
}

/// Core Graphics' `CGAffineTransformConcat`; same as ``CGAffineTransform/concatenating(_:)``.
public func CGAffineTransformConcat(_ t1: CGAffineTransform, _ t2: CGAffineTransform) -> CGAffineTransform {
    t1.concatenating(t2)
}

/// Core Graphics' `CGAffineTransformInvert`; same as ``CGAffineTransform/inverted()``.
public func CGAffineTransformInvert(_ t: CGAffineTransform) -> CGAffineTransform { t.inverted() }

/// Core Graphics' `CGAffineTransformIsIdentity`; same as ``CGAffineTransform/isIdentity``.
public func CGAffineTransformIsIdentity(_ t: CGAffineTransform) -> Bool { t.isIdentity }

/// Core Graphics' `CGPointApplyAffineTransform`; same as `CGPoint.applying(_:)`.
public func CGPointApplyAffineTransform(_ point: CGPoint, _ t: CGAffineTransform) -> CGPoint { point.applying(t) }

/// Core Graphics' `CGSizeApplyAffineTransform`; same as `CGSize.applying(_:)`.
public func CGSizeApplyAffineTransform(_ size: CGSize, _ t: CGAffineTransform) -> CGSize { size.applying(t) }

/// Core Graphics' `CGRectApplyAffineTransform`; same as `CGRect.applying(_:)`.
public func CGRectApplyAffineTransform(_ rect: CGRect, _ t: CGAffineTransform) -> CGRect { rect.applying(t) }
