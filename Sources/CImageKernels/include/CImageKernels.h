#ifndef CIMAGEKERNELS_H
#define CIMAGEKERNELS_H
// Hot per-pixel loops written in C so the compiler vectorises them (Swift's generic SIMD conversions
// between byte and float lanes do not). Callers validate every argument; these functions do not.
#include <stddef.h>
#include <stdint.h>


/// Fractional bits of the weights of `cik_resize_bilinear_u8` (both axes).
#define CIK_RESIZE_BITS 11

/// Fixed-point bilinear resampling of 8-bit pixels with `channels` (1, 3 or 4) interleaved channels,
/// output rows `first_row ..< first_row + row_count` (row `first_row` is written at `dst`). Per output
/// column `x`: `xofs[x]` is the byte offset of the left tap, whose right neighbour (`channels` bytes on)
/// must exist, and `xw[8x ..< 8x+8]` its two weights (summing to 2^CIK_RESIZE_BITS) repeated four times,
/// the layout the vector multiply-add reads; per output row
/// `y`: `yofs[y]` the upper source row and `yw[y]` the lower row's weight. Results are
/// `(Σ weights·taps + ½) >> 2·CIK_RESIZE_BITS`, within 1 LSB of the exact bilinear value.
/// `scratch` holds `2·(dst_width·channels + 4)` values.
void cik_resize_bilinear_u8(const uint8_t *restrict src, size_t src_stride, int src_width, int src_height,
                             int channels, uint8_t *restrict dst, size_t dst_stride, int dst_width, int first_row,
                             int row_count, const int32_t *xofs, const int16_t *xw, const int32_t *yofs,
                             const int16_t *yw, int32_t *scratch);

/// Box-average downscale of an 8-bit colour image by an integer `factor` into three float planes in 0…1
/// (`out_width × out_height` = the source size divided by `factor`, rounded up; edge boxes average the
/// pixels they cover). `r_off`, `g_off`, `b_off` are the channel byte offsets in a `bpp`-byte pixel;
/// `factor` ≤ 257; `acc` holds `width·bpp` values.
void cik_box_down_rgb8(const uint8_t *restrict src, size_t src_stride, int width, int height, int bpp, int r_off,
                        int g_off, int b_off, int factor, float *restrict out_r, float *restrict out_g,
                        float *restrict out_b, int out_width, int out_height, uint16_t *restrict acc);

/// The full-resolution step of a fast colour guided filter, fused with a band blend: `coef` holds, per
/// low-resolution pixel, (a_r, a_g, a_b, b, m) — the filter's mean coefficients and the unrefined mask —
/// on a `low_width × low_height` grid covering the image. Each output pixel upsamples the five bilinearly
/// at half-pixel centres (`x0[x]` is the low-resolution column of the left tap, whose right neighbour
/// must exist, `wx[x]` its weight; rows are computed here), forms `q = a·I + b` with the guide's
/// colour in 0…1 and writes `clamp(m + (q − m)·max(0, 1 − |m − ½|/band), 0, 1)`. Rows
/// `first_row ..< first_row + row_count` of a `height`-row image; row `first_row` goes to `out`.
/// `scratch` holds `5·(low_width + 8)` floats. With `out8` set, the rows are written there instead, as bytes
/// (`round(q·255)`, ties to even, `out8_stride` bytes apart: what converting the floats to 8 bits gives) and `out` is
/// not touched.
void cik_guided_refine_rgb8(const uint8_t *restrict guide, size_t guide_stride, int width, int bpp, int r_off,
                             int g_off, int b_off, const float *restrict coef, int low_width, int low_height,
                             float band, float *restrict out, size_t out_stride, int first_row, int row_count,
                             int height, const int32_t *restrict x0, const float *restrict wx, float *restrict scratch,
                             uint8_t *restrict out8, size_t out8_stride);
/// One row of `TensorSampler`'s bilinear warp from a 4-byte-per-pixel image (`r_off`, `g_off`, `b_off`: channel
/// byte offsets): `count` output pixels, pixel `i` read at pixel-centre position (`sx + i·step_x`, `sy + i·step_y`);
/// outside the image, zero (`zero_border`) or the nearest edge pixel.
/// Writes `3·count` floats `value·scale + offset` (R, G, B). Same arithmetic as the Swift sampler, bit for bit.
void cik_sample_rgb4_row(const uint8_t *restrict src, size_t stride, int width, int height, int r_off, int g_off,
                          int b_off, double sx, double sy, double step_x, double step_y, int count, float scale,
                          float offset, int zero_border, float *restrict out);

/// The interior of one axis-aligned row: output pixels `first ..< end` (written at `out + 3·i`) read the 2×2
/// block at column `xs[i]`, row `y0` with weights `ax[i]`, `ay`; every block lies inside the image.
void cik_sample_rgb4_row_table(const uint8_t *restrict src, size_t stride, int r_off, int g_off, int b_off,
                                const intptr_t *restrict xs, const float *restrict ax, long y0, float ay, int first,
                                int end, float scale, float offset, float *restrict out);

#endif
