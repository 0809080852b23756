#ifndef CRENDERKERNELS_H
#define CRENDERKERNELS_H
// The renderer's 8-bit loops written in C so the compiler vectorises them: the float path's arithmetic on stored bytes
// (same order and precision, no fused multiply-adds), so the words equal the float path's after quantizing. Callers
// validate every argument; these functions do not.
#include <stdint.h>

/// `out = bg + mask·(fg − bg)` per byte of premultiplied RGBA words (R in the low byte), rounded as Core Image's 8-bit
/// path rounds; `premultiply` premultiplies a straight-alpha `fg` on the way. `out` may be `fg` or `bg`.
void crk_blend_rgba_mask8(const uint32_t *fg, int premultiply, const uint32_t *bg, const uint8_t *mask, uint32_t *out,
                          int n);

/// Stored 4-byte pixels to premultiplied float RGBA (four floats a pixel) as Core Image's float path reads them: each
/// byte times `1/255`, and with `premultiply` the colour times that alpha. `*_off`: the byte offsets of R, G, B and A.
void crk_axis_read4(const uint8_t *src, int r_off, int g_off, int b_off, int a_off, int premultiply, float *out, int n);

/// `out[k] = a[k] + (b[k] − a[k])·t` for `n` floats, each operation rounded on its own (no fused multiply-add).
void crk_axis_lerp(const float *a, const float *b, float t, float *out, int n);

/// One output row of an axis-aligned bilinear resample, as premultiplied RGBA words (R in the low byte): pixel `k` is
/// `p + (q − p)·weight[k]` (just `p` when `integral`), with `p`, `q` the float RGBA pixels `index[k]` and
/// `index[k] + 1` of `row`, then `v·255` rounded to nearest even and clamped to 0…255 per channel.
void crk_axis_columns_rgba8(const float *row, const int32_t *index, const float *weight, int integral, uint32_t *out,
                             int n);

#endif
