// Bilinear tensor sampling of 4-byte pixels (TensorSampler's fast path). Every operation is the one the Swift
// sampler performs, in the same order and precision (no fused multiply-adds), so the tensors are identical.
#pragma STDC FP_CONTRACT OFF

#include "CImageKernels.h"

#include <emmintrin.h>
#include <string.h>

// Two horizontally adjacent pixels as two vectors of four floats (memory order).
static inline void load_pair(const uint8_t *p, __m128 *left, __m128 *right) {
    const __m128i zero = _mm_setzero_si128();
    __m128i bytes = _mm_loadl_epi64((const __m128i *)p);
    __m128i words = _mm_unpacklo_epi8(bytes, zero);
    *left = _mm_cvtepi32_ps(_mm_unpacklo_epi16(words, zero));
    *right = _mm_cvtepi32_ps(_mm_unpackhi_epi16(words, zero));
}

static inline __m128 load_pixel(const uint8_t *p) {
    const __m128i zero = _mm_setzero_si128();
    int32_t v;
    memcpy(&v, p, 4);
    __m128i words = _mm_unpacklo_epi8(_mm_cvtsi32_si128(v), zero);
    return _mm_cvtepi32_ps(_mm_unpacklo_epi16(words, zero));
}

static inline __m128 lerp(__m128 a, __m128 b, __m128 t) { return _mm_add_ps(a, _mm_mul_ps(_mm_sub_ps(b, a), t)); }

static inline void store_rgb(float *out, __m128 v, int r_off, int g_off, int b_off, float scale, float offset) {
    float lanes[4];
    _mm_storeu_ps(lanes, v);
    out[0] = lanes[r_off] * scale + offset;
    out[1] = lanes[g_off] * scale + offset;
    out[2] = lanes[b_off] * scale + offset;
}

// The 2×2 block at (x0, y0), which lies wholly inside the image.
static inline __m128 inside(const uint8_t *src, size_t stride, long x0, long y0, float ax, float ay) {
    const uint8_t *p = src + (size_t)y0 * stride + (size_t)x0 * 4;
    __m128 p00, p01, p10, p11;
    load_pair(p, &p00, &p01);
    load_pair(p + stride, &p10, &p11);
    __m128 vax = _mm_set1_ps(ax);
    __m128 top = lerp(p00, p01, vax), bottom = lerp(p10, p11, vax);
    return lerp(top, bottom, _mm_set1_ps(ay));
}

static inline __m128 border_read(const uint8_t *src, size_t stride, int width, int height, long x, long y,
                                 int zero_border) {
    if (x >= 0 && y >= 0 && x < width && y < height) return load_pixel(src + (size_t)y * stride + (size_t)x * 4);
    if (zero_border) return _mm_setzero_ps();
    long cx = x < 0 ? 0 : (x > width - 1 ? width - 1 : x);
    long cy = y < 0 ? 0 : (y > height - 1 ? height - 1 : y);
    return load_pixel(src + (size_t)cy * stride + (size_t)cx * 4);
}

static inline __m128 sample(const uint8_t *src, size_t stride, int width, int height, double sx, double sy,
                            int zero_border) {
    // As the Swift sampler: clamp far positions, floor by truncating a non-negative value.
    double cxd = -2.0 >= sx ? -2.0 : sx;
    cxd = (double)width + 1 < cxd ? (double)width + 1 : cxd;
    double cyd = -2.0 >= sy ? -2.0 : sy;
    cyd = (double)height + 1 < cyd ? (double)height + 1 : cyd;
    long x0 = (long)(cxd + 2) - 2, y0 = (long)(cyd + 2) - 2;
    float ax = (float)(cxd - (double)x0), ay = (float)(cyd - (double)y0);
    if (x0 >= 0 && y0 >= 0 && x0 < width - 1 && y0 < height - 1) return inside(src, stride, x0, y0, ax, ay);
    __m128 vax = _mm_set1_ps(ax);
    __m128 top = lerp(border_read(src, stride, width, height, x0, y0, zero_border),
                      border_read(src, stride, width, height, x0 + 1, y0, zero_border), vax);
    __m128 bottom = lerp(border_read(src, stride, width, height, x0, y0 + 1, zero_border),
                         border_read(src, stride, width, height, x0 + 1, y0 + 1, zero_border), vax);
    return lerp(top, bottom, _mm_set1_ps(ay));
}

void cimg_sample_rgb4_row(const uint8_t *restrict src, size_t stride, int width, int height, int r_off, int g_off,
                          int b_off, double sx, double sy, double step_x, double step_y, int count, float scale,
                          float offset, int zero_border, float *restrict out) {
    for (int i = 0; i < count; i++) {
        store_rgb(out + 3 * (size_t)i, sample(src, stride, width, height, sx, sy, zero_border), r_off, g_off, b_off,
                  scale, offset);
        sx += step_x;
        sy += step_y;
    }
}

void cimg_sample_rgb4_row_table(const uint8_t *restrict src, size_t stride, int r_off, int g_off, int b_off,
                                const intptr_t *restrict xs, const float *restrict ax, long y0, float ay, int first,
                                int end, float scale, float offset, float *restrict out) {
    for (int i = first; i < end; i++) {
        store_rgb(out + 3 * (size_t)i, inside(src, stride, xs[i], y0, ax[i], ay), r_off, g_off, b_off, scale,
                  offset);
    }
}
