import Foundation
import PVCore

extension MLMultiArray {
    /// An array of `shape` with the given `strides`, zero-filled, as Core ML's `init(shape:dataType:strides:)`
    /// (iOS 18). Core ML leaves the elements unspecified; here they are zero.
    ///
    /// - Precondition: `shape` has dimensions of at least 1 and `strides` one non-negative stride per dimension (the
    ///   initializer cannot throw).
    public convenience init(shape: [Int], dataType: MLMultiArrayDataType, strides: [Int]) {
        precondition(!shape.isEmpty && shape.allSatisfy { $0 >= 1 }, "MLMultiArray shape \(shape) is invalid")
        precondition(strides.count == shape.count && strides.allSatisfy { $0 >= 0 }, "MLMultiArray strides \(strides)")
        self.init(dims: shape, steps: strides, dataType: dataType)
    }

    /// The arrays joined along `axis`, converted to `dataType`, as Core ML's
    /// `init(byConcatenatingMultiArrays:alongAxis:dataType:)`.
    ///
    /// Every array must have the same rank and the same size in every dimension but `axis`; the result's size along
    /// `axis` is the sum of theirs. A negative `axis` counts from the last dimension (-1 is the last), as in
    /// ``init(concatenating:axis:dataType:)``.
    ///
    /// - Precondition: `multiArrays` is not empty, `axis` is in `-rank..<rank`, and the shapes agree (Core ML raises an
    ///   exception otherwise; the initializer cannot throw).
    public convenience init(
        byConcatenatingMultiArrays multiArrays: [MLMultiArray], alongAxis axis: Int, dataType: MLMultiArrayDataType
    ) {
        precondition(!multiArrays.isEmpty, "MLMultiArray: nothing to concatenate")
        let rank = multiArrays[0].dims.count
        precondition(axis >= -rank && axis < rank, "MLMultiArray: axis \(axis) out of range for rank \(rank)")
        let a = axis < 0 ? axis + rank : axis
        var dims = multiArrays[0].dims
        dims[a] = 0
        for array in multiArrays {
            precondition(array.dims.count == rank, "MLMultiArray: concatenating rank \(array.dims.count) with \(rank)")
            for i in 0..<rank where i != a {
                precondition(array.dims[i] == dims[i], "MLMultiArray: shapes \(array.dims) and \(multiArrays[0].dims)")
            }
            dims[a] += array.dims[a]
        }
        self.init(dims: dims, steps: Self.rowMajorStrides(dims), dataType: dataType)
        var start = 0
        for array in multiArrays {
            array.forEachIndex { index, source in
                var target = index
                target[a] += start
                let offset = zip(target, steps).reduce(0) { $0 + $1.0 * $1.1 }
                setDouble(array.double(at: source), at: offset)
            }
            start += array.dims[a]
        }
    }

    /// The arrays joined along `axis`, as Core ML's `init(concatenating:axis:dataType:)` (the Swift spelling of
    /// ``init(byConcatenatingMultiArrays:alongAxis:dataType:)``). The axis wraps: -1 is the last.
    public convenience init(concatenating multiArrays: [MLMultiArray], axis: Int, dataType: MLMultiArrayDataType) {
        self.init(byConcatenatingMultiArrays: multiArrays, alongAxis: axis, dataType: dataType)
    }

    /// Copies every element into `destinationMultiArray`, converting to its data type and following its strides.
    ///
    /// - Precondition: Both arrays have the same shape (Core ML raises an exception otherwise).
    public func transfer(to destinationMultiArray: MLMultiArray) {
        precondition(
            destinationMultiArray.dims == dims, "MLMultiArray: transfer from \(dims) to \(destinationMultiArray.dims)")
        let destinationSteps = destinationMultiArray.steps
        forEachIndex { index, source in
            let offset = zip(index, destinationSteps).reduce(0) { $0 + $1.0 * $1.1 }
            destinationMultiArray.setDouble(double(at: source), at: offset)
        }
    }

    /// Calls `body` with the elements' storage typed as `S`, from the first element to the last addressed one (for
    /// contiguous arrays, ``count`` elements in row-major order; otherwise use ``strides``).
    ///
    /// - Precondition: `S` is the Swift type of ``dataType`` (`Float` for `.float32`, …).
    public func withUnsafeBufferPointer<S: MLShapedArrayScalar, R>(
        ofType type: S.Type, _ body: (UnsafeBufferPointer<S>) throws -> R
    ) rethrows -> R {
        try withUnsafeMutableBufferPointer(ofType: type) { buffer, _ in try body(UnsafeBufferPointer(buffer)) }
    }

    /// Calls `body` with the elements' mutable storage typed as `S` and the strides in elements; see
    /// ``withUnsafeBufferPointer(ofType:_:)``.
    ///
    /// - Precondition: `S` is the Swift type of ``dataType``.
    public func withUnsafeMutableBufferPointer<S: MLShapedArrayScalar, R>(
        ofType type: S.Type, _ body: (UnsafeMutableBufferPointer<S>, [Int]) throws -> R
    ) rethrows -> R {
        precondition(
            MLMultiArrayDataType(scalar: type) == dataType, "MLMultiArray of \(dataType.name) read as \(type)")
        let span = Self.span(dims: dims, steps: steps)
        let typed = dataPointer.bindMemory(to: S.self, capacity: span)
        return try body(UnsafeMutableBufferPointer(start: typed, count: span), steps)
    }

    /// Calls `body` with the elements' bytes, from the first element to the last addressed one.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeMutableBytes { bytes, _ in try body(UnsafeRawBufferPointer(bytes)) }
    }

    /// Calls `body` with the elements' mutable bytes and the strides in elements.
    public func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer, [Int]) throws -> R) rethrows -> R {
        let bytes = Self.span(dims: dims, steps: steps) * dataType.byteSize
        return try body(UnsafeMutableRawBufferPointer(start: dataPointer, count: bytes), steps)
    }

    /// Calls `body` with every index (row-major order) and the element offset it addresses.
    func forEachIndex(_ body: ([Int], Int) -> Void) {
        var index = [Int](repeating: 0, count: dims.count)
        for _ in 0..<count {
            body(index, zip(index, steps).reduce(0) { $0 + $1.0 * $1.1 })
            RowMajor.advance(&index, counts: dims)
        }
    }
}

extension MLMultiArray {
    /// An array whose elements are a one-component pixel buffer's pixels, as Core ML's `init(pixelBuffer:shape:)`
    /// (iOS 16): writes go to the buffer and the buffer's later contents show through.
    ///
    /// The last dimension of `shape` is the buffer's width and the others multiply to its height; the strides step
    /// over the buffer's row padding. `kCVPixelFormatType_OneComponent16Half` gives ``MLMultiArrayDataType/float16``
    /// and `kCVPixelFormatType_OneComponent8` ``MLMultiArrayDataType/int8`` (its bytes read as signed), as on Apple
    /// platforms; `kCVPixelFormatType_OneComponent32Float` (``MLMultiArrayDataType/float32``) is also accepted here.
    ///
    /// - Precondition: The format is one of those and `shape` fits the buffer (Core ML raises an exception otherwise;
    ///   the initializer cannot throw).
    public convenience init(pixelBuffer: CVPixelBuffer, shape: [NSNumber]) {
        let dataType: MLMultiArrayDataType
        switch CVPixelBufferGetPixelFormatType(pixelBuffer) {
        case kCVPixelFormatType_OneComponent16Half: dataType = .float16
        case kCVPixelFormatType_OneComponent8: dataType = .int8
        case kCVPixelFormatType_OneComponent32Float: dataType = .float32
        default: preconditionFailure("MLMultiArray: unsupported pixel format for init(pixelBuffer:shape:)")
        }
        let dims = shape.map(\.intValue)
        let width = CVPixelBufferGetWidth(pixelBuffer), height = CVPixelBufferGetHeight(pixelBuffer)
        precondition(
            dims.count >= 1 && dims.allSatisfy { $0 >= 1 } && dims.last == width
                && dims.dropLast().reduce(1, *) == height,
            "MLMultiArray: shape \(dims) does not fit a \(width) × \(height) pixel buffer")
        var steps = [Int](repeating: 1, count: dims.count)
        if dims.count >= 2 {
            steps[dims.count - 2] = CVPixelBufferGetBytesPerRow(pixelBuffer) / dataType.byteSize
            for i in stride(from: dims.count - 3, through: 0, by: -1) { steps[i] = steps[i + 1] * dims[i + 1] }
        }
        self.init(pixelBuffer: pixelBuffer, dims: dims, steps: steps, dataType: dataType)
    }

    /// The pixel buffer holding the elements, if the array was made from one (iOS 16).
    public var pixelBuffer: CVPixelBuffer? {
        if case .pixelBuffer(let buffer) = storage { return buffer }
        return nil
    }
}
