#ifndef CIMAGEKERNELS_H
#define CIMAGEKERNELS_H
// Hot per-pixel loops written in C so the compiler vectorises them (Swift's generic SIMD conversions
// between byte and float lanes do not). Callers validate every argument; these functions do not.
#include <stddef.h>
#include <stdint.h>

/// Bilinear resampling of 4-channel 8-bit pixels at half-pixel centres (src = (dst + 0.5)·scale − 0.5,
/// clamped to the edge), computed in float and rounded half up: `xofs`/`xw` (dw entries) are the
/// left source byte offset (4·x0) and weight of each output column, `x1ofs` the right one.
void cimg_bilinear_rgba8(const uint8_t *restrict src, size_t src_stride, int src_height, uint8_t *restrict dst, size_t dst_stride,
                         int dst_width, int dst_height, const int32_t *x0ofs, const int32_t *x1ofs, const float *xw,
                         float scale_y);
#endif
