import Foundation
import PeopleVision
import Testing

/// Core ML's MLMultiArray: layout, NSNumber boxing, conversions, concatenation, buffer access and errors.
@Suite struct MLMultiArrayTests {
    @Test func allocatedArraysAreRowMajorAndZeroFilled() throws {
        let array = try MLMultiArray(shape: [2, 3, 4], dataType: .float32)
        #expect(array.shape == [2, 3, 4])
        #expect(array.strides == [12, 4, 1])
        #expect(array.count == 24)
        #expect(array.dataType == .float32)
        #expect((0..<24).allSatisfy { array[$0].floatValue == 0 })
        #expect(array.description == "Float32 2 × 3 × 4 array")
    }

    @Test func linearAndKeyedSubscriptsAddressTheSameElement() throws {
        let array = try MLMultiArray(shape: [2, 3], dataType: .double)
        array[[1, 2] as [NSNumber]] = 0.25
        array[1] = 7
        // Row-major: [1, 2] is linear 1·3 + 2 = 5, and linear 1 is [0, 1].
        #expect(array[5].doubleValue == 0.25)
        #expect(array[[0, 1] as [NSNumber]].doubleValue == 7)
        let p = array.dataPointer.assumingMemoryBound(to: Double.self)
        #expect(p[5] == 0.25 && p[1] == 7)
    }

    @Test func elementsConvertToTheDataType() throws {
        let ints = try MLMultiArray(shape: [3], dataType: .int32)
        ints[0] = 2.9
        ints[1] = -2.9
        ints[2] = NSNumber(value: Int32.max)
        #expect(ints[0].int32Value == 2 && ints[1].int32Value == -2 && ints[2].int32Value == Int32.max)
        let halves = try MLMultiArray(shape: [1], dataType: .float16)
        halves[0] = NSNumber(value: 1.0 / 3)
        // Float16 keeps 11 significant bits: 1/3 rounds to 0.333251953125.
        #expect(halves[0].doubleValue == 0.333251953125)
        let bytes = try MLMultiArray(shape: [1], dataType: .int8)
        bytes[0] = -5
        #expect(bytes[0].int8Value == -5)
        #expect(MLMultiArrayDataType.float64 == .double && MLMultiArrayDataType.float == .float32)
        #expect(MLMultiArrayDataType.int8.rawValue == 0x20008 && MLMultiArrayDataType.float16.rawValue == 0x10010)
    }

    @Test func borrowedMemoryFollowsTheGivenStrides() throws {
        // A 2 × 2 view of the left half of a 2 × 3 row-major block, freed by the deallocator.
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: 6)
        storage.initialize(from: [1, 2, 3, 4, 5, 6], count: 6)
        var freed = false
        do {
            let array = try MLMultiArray(
                dataPointer: storage, shape: [2, 2], dataType: .float32, strides: [3, 1],
                deallocator: { pointer in
                    freed = true
                    pointer.deallocate()
                })
            #expect(array[[1, 1] as [NSNumber]].floatValue == 5)
            #expect(array[2].floatValue == 4)  // linear 2 is [1, 0]
            array[3] = 50
            #expect(storage[4] == 50)
            #expect(!freed)
        }
        #expect(freed)
    }

    @Test func badShapesAndStridesThrowCoreMLErrors() {
        func isCoreMLError(_ error: any Error) -> Bool { (error as NSError).domain == MLModelErrorDomain }
        #expect { try MLMultiArray(shape: [], dataType: .double) } throws: { isCoreMLError($0) }
        #expect { try MLMultiArray(shape: [3, 0], dataType: .double) } throws: { isCoreMLError($0) }
        #expect { try MLMultiArray(shape: [-1], dataType: .float32) } throws: { isCoreMLError($0) }
        #expect { try MLMultiArray(shape: [NSNumber(value: Int.max), 4], dataType: .double) } throws: { isCoreMLError($0) }
        var value: Float = 0
        #expect {
            try MLMultiArray(dataPointer: &value, shape: [1, 1], dataType: .float32, strides: [1])
        } throws: { isCoreMLError($0) }
        #expect {
            try MLMultiArray(dataPointer: &value, shape: [1], dataType: .float32, strides: [-1])
        } throws: { isCoreMLError($0) }
    }

    @Test func concatenationJoinsAlongAnAxisAndConverts() throws {
        let a = try MLMultiArray(shape: [2, 2], dataType: .int32)
        let b = try MLMultiArray(shape: [2, 1], dataType: .float32)
        for i in 0..<4 { a[i] = NSNumber(value: i + 1) }  // [[1, 2], [3, 4]]
        b[0] = 9.5
        b[1] = -1  // [[9.5], [-1]]
        let joined = MLMultiArray(byConcatenatingMultiArrays: [a, b], alongAxis: 1, dataType: .double)
        #expect(joined.shape == [2, 3])
        #expect((0..<6).map { joined[$0].doubleValue } == [1, 2, 9.5, 3, 4, -1])
        let last = MLMultiArray(concatenating: [a, b], axis: -1, dataType: .double)
        #expect((0..<6).map { last[$0].doubleValue } == [1, 2, 9.5, 3, 4, -1])
        let rows = MLMultiArray(concatenating: [a, a], axis: 0, dataType: .int32)
        #expect(rows.shape == [4, 2] && rows[[3, 1] as [NSNumber]].int32Value == 4)
    }

    @Test func transferConvertsIntoAnotherLayout() throws {
        let source = try MLMultiArray(shape: [2, 2], dataType: .double)
        for i in 0..<4 { source[i] = NSNumber(value: Double(i) + 0.5) }
        let target = MLMultiArray(shape: [2, 2], dataType: .float32, strides: [1, 2])  // column-major
        source.transfer(to: target)
        let p = target.dataPointer.assumingMemoryBound(to: Float.self)
        // Column-major storage of [[0.5, 1.5], [2.5, 3.5]].
        #expect((0..<4).map { p[$0] } == [0.5, 2.5, 1.5, 3.5])
    }

    @Test func typedBufferAccess() throws {
        let array = try MLMultiArray(shape: [2, 3], dataType: .float32)
        array.withUnsafeMutableBufferPointer(ofType: Float.self) { buffer, strides in
            #expect(buffer.count == 6 && strides == [3, 1])
            for i in buffer.indices { buffer[i] = Float(i * i) }
        }
        #expect(array[[1, 1] as [NSNumber]].floatValue == 16)
        let sum = array.withUnsafeBufferPointer(ofType: Float.self) { $0.reduce(0, +) }
        #expect(sum == 0 + 1 + 4 + 9 + 16 + 25)
        let byteCount = array.withUnsafeBytes { $0.count }
        #expect(byteCount == 24)
    }

    @Test func pixelBufferBackedArraysShareThePixels() throws {
        var out: CVPixelBuffer?
        #expect(CVPixelBufferCreate(nil, 3, 4, kCVPixelFormatType_OneComponent16Half, nil, &out) == kCVReturnSuccess)
        let buffer = try #require(out)
        let array = MLMultiArray(pixelBuffer: buffer, shape: [2, 2, 3])
        #expect(array.dataType == .float16)
        #expect(array.pixelBuffer === buffer)
        let rowElements = CVPixelBufferGetBytesPerRow(buffer) / 2
        #expect(array.strides.map(\.intValue) == [2 * rowElements, rowElements, 1])
        array[[1, 0, 2] as [NSNumber]] = 0.5
        // [1, 0, 2] is pixel row 1·2 + 0 = 2, column 2.
        let base = try #require(CVPixelBufferGetBaseAddress(buffer))
        let stored = base.load(fromByteOffset: 2 * CVPixelBufferGetBytesPerRow(buffer) + 2 * 2, as: Float16.self)
        #expect(stored == 0.5)
        #expect(try MLMultiArray(shape: [1], dataType: .float32).pixelBuffer == nil)
    }

    @Test func computeDevicesConformToTheProtocol() {
        let devices: [any MLComputeDeviceProtocol] = MLComputeDevice.allComputeDevices.compactMap {
            if case .cpu(let cpu) = $0 { return cpu }
            return nil
        }
        #expect(devices.count == 1)
    }
}
