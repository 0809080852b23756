/// Positions in a multi-dimensional grid visited in row-major order (the last dimension fastest), as tensors and
/// multi-arrays lay out their elements.
package enum RowMajor {
    /// Steps `index` to the next position of a grid of `counts` elements per dimension; after the last position it
    /// wraps to all zeros.
    @inlinable
    package static func advance(_ index: inout [Int], counts: [Int]) {
        var d = counts.count - 1
        while d >= 0 {
            index[d] += 1
            if index[d] < counts[d] { return }
            index[d] = 0
            d -= 1
        }
    }
}
