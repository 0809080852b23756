import Foundation

/// A multidimensional array of numbers, as Core ML's `MLMultiArray` (iOS 11; `int8` and the concatenating
/// initializer with a wrapped axis from later releases).
///
/// An array has a ``shape`` (the size of each dimension), ``strides`` (elements between consecutive indices of each
/// dimension) and a ``dataType``; its elements live in memory it allocates (``init(shape:dataType:)``), in memory you
/// lend it (``init(dataPointer:shape:dataType:strides:deallocator:)``) or in a one-component pixel buffer
/// (``init(pixelBuffer:shape:)``). Elements read and write as `NSNumber`, converted to and from the data type, by
/// linear index or by one index per dimension:
///
/// ```swift
/// let array = try MLMultiArray(shape: [2, 3], dataType: .float32)   // strides [3, 1], zero-filled
/// array[[1, 2] as [NSNumber]] = 0.5
/// let last = array[5].floatValue                                     // 0.5: linear index, row-major
/// ```
///
/// Vision's `keypointsMultiArray()` returns one of shape `[1, 3, N]` holding doubles.
///
/// Bad shapes and strides throw an `NSError` in ``MLModelErrorDomain`` (code 0, Core ML's `generic`); an index out of
/// range or of the wrong rank traps, as Core ML raises an exception. Like Core ML's, the array is not synchronised:
/// do not write it from one thread while another reads it.
public final class MLMultiArray: NSObject, @unchecked Sendable {
    /// The size of each dimension.
    public let shape: [NSNumber]
    /// Elements between consecutive indices of each dimension (row-major and contiguous for arrays this type
    /// allocates).
    public let strides: [NSNumber]
    /// The type of the elements.
    public let dataType: MLMultiArrayDataType
    let dims: [Int]
    let steps: [Int]
    let storage: Storage

    /// Where the elements are.
    enum Storage {
        /// Memory freed (or not) by `deallocator` when the array goes.
        case memory(UnsafeMutableRawPointer, deallocator: ((UnsafeMutableRawPointer) -> Void)?)
        /// A pixel buffer's first plane, read through its base address on each access.
        case pixelBuffer(CVPixelBuffer)
    }

    /// An array of `shape` whose elements are `dataType`, zero-filled, with contiguous row-major strides.
    ///
    /// Core ML leaves new elements unspecified; here they are zero.
    /// - Throws: An `NSError` in ``MLModelErrorDomain`` when `shape` is empty, has a dimension below 1, or holds more
    ///   elements than memory can address.
    public init(shape: [NSNumber], dataType: MLMultiArrayDataType) throws {
        let dims = try Self.validated(shape: shape)
        let steps = Self.rowMajorStrides(dims)
        let count = dims.reduce(1, *)
        let (bytes, overflow) = count.multipliedReportingOverflow(by: dataType.byteSize)
        guard !overflow else { throw coreMLError("MLMultiArray shape \(dims) is too large") }
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: max(bytes, 1), alignment: 16)
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: max(bytes, 1))
        (self.dims, self.steps, self.dataType) = (dims, steps, dataType)
        self.shape = shape
        self.strides = steps.map { NSNumber(value: $0) }
        storage = .memory(pointer, deallocator: { $0.deallocate() })
        super.init()
    }

    /// An array over memory you provide: element `(i₀, i₁, …)` is at `dataPointer + Σ iₖ·strides[k]` elements.
    ///
    /// The memory is not copied; it must stay valid until the array is gone, when `deallocator` (if any) is called
    /// with `dataPointer`.
    /// - Throws: An `NSError` in ``MLModelErrorDomain`` when `shape` is invalid (as in ``init(shape:dataType:)``), or
    ///   `strides` has another rank or a negative value.
    public init(
        dataPointer: UnsafeMutableRawPointer, shape: [NSNumber], dataType: MLMultiArrayDataType, strides: [NSNumber],
        deallocator: ((UnsafeMutableRawPointer) -> Void)? = nil
    ) throws {
        let dims = try Self.validated(shape: shape)
        guard strides.count == dims.count else {
            throw coreMLError("MLMultiArray has \(strides.count) strides for \(dims.count) dimensions")
        }
        let steps = strides.map(\.intValue)
        guard steps.allSatisfy({ $0 >= 0 }) else { throw coreMLError("MLMultiArray strides \(steps) are negative") }
        (self.dims, self.steps, self.dataType) = (dims, steps, dataType)
        self.shape = shape
        self.strides = strides
        storage = .memory(dataPointer, deallocator: deallocator)
        super.init()
    }

    /// An array of doubles (the Vision layer's key-point arrays).
    init(shape: [Int], values: [Double]) {
        precondition(shape.reduce(1, *) == values.count, "shape \(shape) does not hold \(values.count) values")
        let steps = Self.rowMajorStrides(shape)
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: max(values.count, 1) * 8, alignment: 16)
        values.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { pointer.copyMemory(from: base, byteCount: bytes.count) }
        }
        (dims, self.steps, dataType) = (shape, steps, .double)
        self.shape = shape.map { NSNumber(value: $0) }
        strides = steps.map { NSNumber(value: $0) }
        storage = .memory(pointer, deallocator: { $0.deallocate() })
        super.init()
    }

    /// An array with the given layout over its own zero-filled memory (shapes already checked).
    init(dims: [Int], steps: [Int], dataType: MLMultiArrayDataType) {
        let span = Self.span(dims: dims, steps: steps)
        let bytes = max(span * dataType.byteSize, 1)
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16)
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        (self.dims, self.steps, self.dataType) = (dims, steps, dataType)
        shape = dims.map { NSNumber(value: $0) }
        strides = steps.map { NSNumber(value: $0) }
        storage = .memory(pointer, deallocator: { $0.deallocate() })
        super.init()
    }

    /// An array over a pixel buffer (see ``init(pixelBuffer:shape:)``), layout already checked.
    init(pixelBuffer: CVPixelBuffer, dims: [Int], steps: [Int], dataType: MLMultiArrayDataType) {
        (self.dims, self.steps, self.dataType) = (dims, steps, dataType)
        shape = dims.map { NSNumber(value: $0) }
        strides = steps.map { NSNumber(value: $0) }
        storage = .pixelBuffer(pixelBuffer)
        super.init()
    }

    deinit {
        if case .memory(let pointer, let deallocator) = storage { deallocator?(pointer) }
    }

    /// The number of elements (the product of ``shape``).
    public var count: Int { dims.reduce(1, *) }

    /// The first element's address. Element `(i₀, i₁, …)` is `Σ iₖ·strides[k]` elements after it.
    public var dataPointer: UnsafeMutableRawPointer {
        switch storage {
        case .memory(let pointer, _): return pointer
        case .pixelBuffer(let buffer):
            // A pixel buffer always has a first plane.
            return CVPixelBufferGetBaseAddress(buffer)!
        }
    }

    /// The element at a linear index: indices run over the elements in row-major order of ``shape`` (the last
    /// dimension fastest), whatever the strides. Reads box the element as an `NSNumber` of its type; writes convert
    /// the number to ``dataType`` (integer types truncate toward zero).
    ///
    /// - Precondition: `0 ≤ idx < count`, as Core ML raises an exception otherwise.
    public subscript(idx: Int) -> NSNumber {
        get { element(at: offset(linear: idx)) }
        set { setElement(newValue, at: offset(linear: idx)) }
    }

    /// The element at one index per dimension, read and written as by the linear-index subscript.
    ///
    /// - Precondition: `key` has one index per dimension, each in range.
    public subscript(key: [NSNumber]) -> NSNumber {
        get { element(at: offset(key: key)) }
        set { setElement(newValue, at: offset(key: key)) }
    }

    /// `"Float32 2 × 3 array"`, as Core ML prints.
    public override var description: String {
        "\(dataType.name) \(dims.map(String.init).joined(separator: " × ")) array"
    }

    // MARK: Layout

    /// The dimensions of `shape`, or an error naming what is wrong with it.
    static func validated(shape: [NSNumber]) throws -> [Int] {
        let dims = shape.map(\.intValue)
        guard !dims.isEmpty else { throw coreMLError("MLMultiArray shape is empty") }
        guard dims.allSatisfy({ $0 >= 1 }) else { throw coreMLError("MLMultiArray shape \(dims) has a dimension below 1") }
        var count = 1
        for d in dims {
            let (product, overflow) = count.multipliedReportingOverflow(by: d)
            guard !overflow else { throw coreMLError("MLMultiArray shape \(dims) is too large") }
            count = product
        }
        return dims
    }

    /// Contiguous row-major strides for `dims`.
    static func rowMajorStrides(_ dims: [Int]) -> [Int] {
        var steps = [Int](repeating: 1, count: dims.count)
        for i in stride(from: dims.count - 2, through: 0, by: -1) { steps[i] = steps[i + 1] * dims[i + 1] }
        return steps
    }

    /// Elements from the first to one past the last addressed.
    static func span(dims: [Int], steps: [Int]) -> Int {
        zip(dims, steps).reduce(1) { $0 + ($1.0 - 1) * $1.1 }
    }

    /// The element offset of a row-major linear index.
    func offset(linear index: Int) -> Int {
        precondition(index >= 0 && index < count, "MLMultiArray index \(index) out of range 0..<\(count)")
        var rest = index, offset = 0
        for i in stride(from: dims.count - 1, through: 0, by: -1) {
            offset += (rest % dims[i]) * steps[i]
            rest /= dims[i]
        }
        return offset
    }

    /// The element offset of one index per dimension.
    func offset(key: [NSNumber]) -> Int {
        precondition(key.count == dims.count, "MLMultiArray: \(key.count) indices for \(dims.count) dimensions")
        var offset = 0
        for (i, k) in key.enumerated() {
            let index = k.intValue
            precondition(index >= 0 && index < dims[i], "MLMultiArray index \(index) out of range in dimension \(i)")
            offset += index * steps[i]
        }
        return offset
    }

    // MARK: Elements

    /// The element `offset` elements after ``dataPointer``, as a number of its type.
    func element(at offset: Int) -> NSNumber {
        let p = dataPointer
        switch dataType {
        case .double: return NSNumber(value: p.load(fromByteOffset: offset * 8, as: Double.self))
        case .float32: return NSNumber(value: p.load(fromByteOffset: offset * 4, as: Float.self))
        case .float16: return NSNumber(value: Float(p.load(fromByteOffset: offset * 2, as: Float16.self)))
        case .int32: return NSNumber(value: p.load(fromByteOffset: offset * 4, as: Int32.self))
        case .int8: return NSNumber(value: p.load(fromByteOffset: offset, as: Int8.self))
        }
    }

    /// The element `offset` elements after ``dataPointer``, as a double.
    func double(at offset: Int) -> Double {
        let p = dataPointer
        switch dataType {
        case .double: return p.load(fromByteOffset: offset * 8, as: Double.self)
        case .float32: return Double(p.load(fromByteOffset: offset * 4, as: Float.self))
        case .float16: return Double(p.load(fromByteOffset: offset * 2, as: Float16.self))
        case .int32: return Double(p.load(fromByteOffset: offset * 4, as: Int32.self))
        case .int8: return Double(p.load(fromByteOffset: offset, as: Int8.self))
        }
    }

    /// Stores `number` converted to ``dataType``.
    func setElement(_ number: NSNumber, at offset: Int) {
        let p = dataPointer
        switch dataType {
        case .double: p.storeBytes(of: number.doubleValue, toByteOffset: offset * 8, as: Double.self)
        case .float32: p.storeBytes(of: number.floatValue, toByteOffset: offset * 4, as: Float.self)
        case .float16: p.storeBytes(of: Float16(number.floatValue), toByteOffset: offset * 2, as: Float16.self)
        case .int32: p.storeBytes(of: number.int32Value, toByteOffset: offset * 4, as: Int32.self)
        case .int8: p.storeBytes(of: number.int8Value, toByteOffset: offset, as: Int8.self)
        }
    }

    /// Stores `value` converted to ``dataType`` (integers round toward zero and saturate).
    func setDouble(_ value: Double, at offset: Int) {
        let p = dataPointer
        switch dataType {
        case .double: p.storeBytes(of: value, toByteOffset: offset * 8, as: Double.self)
        case .float32: p.storeBytes(of: Float(value), toByteOffset: offset * 4, as: Float.self)
        case .float16: p.storeBytes(of: Float16(value), toByteOffset: offset * 2, as: Float16.self)
        case .int32:
            let v = value.isNaN ? 0 : Int32(max(-2_147_483_648, min(2_147_483_647, value.rounded(.towardZero))))
            p.storeBytes(of: v, toByteOffset: offset * 4, as: Int32.self)
        case .int8:
            let v = value.isNaN ? 0 : Int8(max(-128, min(127, value.rounded(.towardZero))))
            p.storeBytes(of: v, toByteOffset: offset, as: Int8.self)
        }
    }
}
