import Synchronization

/// The renderer's shortcuts, each of which gives the same pixels as the general path it skips; tests turn one off to
/// compare the two. All are on by default.
package enum RenderShortcuts {
    /// Gaussian blurs of ``blurDecimation(sigma:)``'s sizes run on a reduced grid (else at full resolution, the
    /// reference the approximation is measured against).
    package static let decimatesWideBlurs = Atomic<Bool>(true)
    /// The 8-bit blend reads stored 8-bit masks and RGBA images straight from their rows (else it renders them into
    /// tiles first, as any other input).
    package static let blendReadsStoredBytes = Atomic<Bool>(true)
    /// The 8-bit path resamples a stored 4-byte image with the byte kernels (else through the float tile path).
    package static let resamplesStoredBytes = Atomic<Bool>(true)
}
