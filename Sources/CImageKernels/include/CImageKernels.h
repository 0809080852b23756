#ifndef CIMAGEKERNELS_H
#define CIMAGEKERNELS_H
// Hot per-pixel loops written in C so the compiler vectorises them (Swift's generic SIMD conversions
// between byte and float lanes do not). Callers validate every argument; these functions do not.
#include <stddef.h>
#include <stdint.h>


/// Fractional bits of the weights of `cimg_resize_bilinear_u8` (both axes).
#define CIMG_RESIZE_BITS 11

/// Fixed-point bilinear resampling of 8-bit pixels with `channels` (1, 3 or 4) interleaved channels,
/// output rows `first_row ..< first_row + row_count` (row `first_row` is written at `dst`). Per output
/// column `x`: `xofs[x]` is the byte offset of the left tap, whose right neighbour (`channels` bytes on)
/// must exist, and `xw[8x ..< 8x+8]` its two weights (summing to 2^CIMG_RESIZE_BITS) repeated four times,
/// the layout the vector multiply-add reads; per output row
/// `y`: `yofs[y]` the upper source row and `yw[y]` the lower row's weight. Results are
/// `(Σ weights·taps + ½) >> 2·CIMG_RESIZE_BITS`, within 1 LSB of the exact bilinear value.
/// `scratch` holds `2·(dst_width·channels + 4)` values.
void cimg_resize_bilinear_u8(const uint8_t *restrict src, size_t src_stride, int src_width, int src_height,
                             int channels, uint8_t *restrict dst, size_t dst_stride, int dst_width, int first_row,
                             int row_count, const int32_t *xofs, const int16_t *xw, const int32_t *yofs,
                             const int16_t *yw, int32_t *scratch);
#endif
