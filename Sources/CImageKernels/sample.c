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

// Output value = channel·scale + offset for R, G, B, the channels picked from memory order by `order`
// (0: RGBA, 1: BGRA, 2: ARGB, else the offsets); lane-wise vector arithmetic is the scalar arithmetic.
static inline __m128 to_rgb(__m128 v, int order, int r_off, int g_off, int b_off, __m128 scale, __m128 offset) {
    __m128 rgb;
    switch (order) {
    case 0: rgb = v; break;
    case 1: rgb = _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 0, 1, 2)); break;
    case 2: rgb = _mm_shuffle_ps(v, v, _MM_SHUFFLE(0, 3, 2, 1)); break;
    default: {
        float lanes[4];
        _mm_storeu_ps(lanes, v);
        rgb = _mm_setr_ps(lanes[r_off], lanes[g_off], lanes[b_off], 0);
    }
    }
    return _mm_add_ps(_mm_mul_ps(rgb, scale), offset);
}

static inline int order_of(int r_off, int g_off, int b_off) {
    if (r_off == 0 && g_off == 1 && b_off == 2) return 0;
    if (r_off == 2 && g_off == 1 && b_off == 0) return 1;
    if (r_off == 1 && g_off == 2 && b_off == 3) return 2;
    return 3;
}

// Stores R, G, B of pixel i; all but the row's last pixel store four floats (the fourth is overwritten by the
// next pixel).
static inline void store_rgb(float *out, int i, int last, __m128 t) {
    if (i < last) {
        _mm_storeu_ps(out + 3 * (size_t)i, t);
    } else {
        float lanes[4];
        _mm_storeu_ps(lanes, t);
        out[3 * (size_t)i] = lanes[0];
        out[3 * (size_t)i + 1] = lanes[1];
        out[3 * (size_t)i + 2] = lanes[2];
    }
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
    const int order = order_of(r_off, g_off, b_off);
    const __m128 vs = _mm_set1_ps(scale), vo = _mm_set1_ps(offset);
    for (int i = 0; i < count; i++) {
        __m128 v = sample(src, stride, width, height, sx, sy, zero_border);
        store_rgb(out, i, count - 1, to_rgb(v, order, r_off, g_off, b_off, vs, vo));
        sx += step_x;
        sy += step_y;
    }
}

void cimg_sample_rgb4_row_table(const uint8_t *restrict src, size_t stride, int r_off, int g_off, int b_off,
                                const intptr_t *restrict xs, const float *restrict ax, long y0, float ay, int first,
                                int end, float scale, float offset, float *restrict out) {
    const int order = order_of(r_off, g_off, b_off);
    const __m128 vs = _mm_set1_ps(scale), vo = _mm_set1_ps(offset);
    for (int i = first; i < end; i++) {
        // The pixel after the interior run is written later (or is past the row), so only the run's last
        // pixel stores three floats.
        store_rgb(out, i, end - 1, to_rgb(inside(src, stride, xs[i], y0, ax[i], ay), order, r_off, g_off, b_off, vs, vo));
    }
}
