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

// AVX-512: sixteen output pixels at a time, the four neighbours of each fetched with gathers and the channels
// taken apart into three vectors (R, G, B) that are interleaved again on the way out. Each lane does the scalar
// path's arithmetic in the same order, so the values are the same.
#if defined(__x86_64__)
#include <immintrin.h>

#define CIK_WIDE __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw")))

static int wide_available(void) {
    static int cached = -1;
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
            __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}

// One channel (byte offset `off`) of sixteen gathered pixels, as floats.
CIK_WIDE static inline __m512 channel(__m512i pixels, int off) {
    return _mm512_cvtepi32_ps(_mm512_and_si512(_mm512_srlv_epi32(pixels, _mm512_set1_epi32(8 * off)), _mm512_set1_epi32(0xFF)));
}

CIK_WIDE static inline __m512 lerp16(__m512 a, __m512 b, __m512 t) {
    return _mm512_add_ps(a, _mm512_mul_ps(_mm512_sub_ps(b, a), t));
}

// Bilinear R, G, B of sixteen pixels from their four neighbours' byte offsets (from `src`; a lane whose bit is
// clear in a neighbour's mask reads zero there), with weights `ax`, `ay`, scaled and offset, stored interleaved at
// `out` (48 floats).
CIK_WIDE static inline void blend_store4(const uint8_t *src, __m512i o00, __m512i o01, __m512i o10, __m512i o11,
                                           __mmask16 m00, __mmask16 m01, __mmask16 m10, __mmask16 m11, __m512 ax,
                                           __m512 ay, int r_off, int g_off, int b_off, __m512 vs, __m512 vo, float *out) {
    const __m512i zero = _mm512_setzero_si512();
    const __m512i p00 = _mm512_mask_i32gather_epi32(zero, m00, o00, src, 1);
    const __m512i p01 = _mm512_mask_i32gather_epi32(zero, m01, o01, src, 1);
    const __m512i p10 = _mm512_mask_i32gather_epi32(zero, m10, o10, src, 1);
    const __m512i p11 = _mm512_mask_i32gather_epi32(zero, m11, o11, src, 1);
    __m512 c[3];
    const int offs[3] = {r_off, g_off, b_off};
    for (int k = 0; k < 3; k++) {
        __m512 t = lerp16(channel(p00, offs[k]), channel(p01, offs[k]), ax);
        __m512 b = lerp16(channel(p10, offs[k]), channel(p11, offs[k]), ax);
        c[k] = _mm512_add_ps(_mm512_mul_ps(lerp16(t, b, ay), vs), vo);
    }
    // Interleave: lane j of output vector v holds channel (16v + j) % 3 of pixel (16v + j) / 3.
    static const int32_t rg[3][16] = {
        {0, 16, 0, 1, 17, 0, 2, 18, 0, 3, 19, 0, 4, 20, 0, 5},
        {21, 0, 6, 22, 0, 7, 23, 0, 8, 24, 0, 9, 25, 0, 10, 26},
        {0, 11, 27, 0, 12, 28, 0, 13, 29, 0, 14, 30, 0, 15, 31, 0},
    };
    static const int32_t withb[3][16] = {
        {0, 1, 16, 3, 4, 17, 6, 7, 18, 9, 10, 19, 12, 13, 20, 15},
        {0, 21, 2, 3, 22, 5, 6, 23, 8, 9, 24, 11, 12, 25, 14, 15},
        {26, 1, 2, 27, 4, 5, 28, 7, 8, 29, 10, 11, 30, 13, 14, 31},
    };
    for (int v = 0; v < 3; v++) {
        __m512 t = _mm512_permutex2var_ps(c[0], _mm512_loadu_si512(rg[v]), c[1]);
        _mm512_storeu_ps(out + 16 * v, _mm512_permutex2var_ps(t, _mm512_loadu_si512(withb[v]), c[2]));
    }
}

// Sixteen pixels whose 2×2 blocks lie inside the image and start at byte offsets `top`.
CIK_WIDE static inline void blend_store(const uint8_t *src, size_t stride, __m512i top, __m512 ax, __m512 ay,
                                          int r_off, int g_off, int b_off, __m512 vs, __m512 vo, float *out) {
    const __m512i bottom = _mm512_add_epi32(top, _mm512_set1_epi32((int)stride));
    const __m512i four = _mm512_set1_epi32(4);
    blend_store4(src, top, _mm512_add_epi32(top, four), bottom, _mm512_add_epi32(bottom, four), 0xFFFF, 0xFFFF, 0xFFFF,
                 0xFFFF, ax, ay, r_off, g_off, b_off, vs, vo, out);
}

// Returns the first pixel not written: every whole group of sixteen (exactly its 48 floats written), with plain
// gathers where all its blocks lie inside the image and clamped or masked ones where not; the scalar path finishes
// the row.
CIK_WIDE static int sample_row_wide(const uint8_t *src, size_t stride, int width, int height, int r_off, int g_off,
                                     int b_off, double sx, double sy, double step_x, double step_y, int count,
                                     float scale, float offset, int zero_border, float *out) {
    const __m512 vs = _mm512_set1_ps(scale), vo = _mm512_set1_ps(offset);
    const __m512d lane_lo = _mm512_setr_pd(0, 1, 2, 3, 4, 5, 6, 7), lane_hi = _mm512_setr_pd(8, 9, 10, 11, 12, 13, 14, 15);
    const __m512d lo = _mm512_set1_pd(-2), hix = _mm512_set1_pd((double)width + 1), hiy = _mm512_set1_pd((double)height + 1);
    const __m512d two = _mm512_set1_pd(2);
    const __m512i xmax = _mm512_set1_epi32(width - 1), ymax = _mm512_set1_epi32(height - 1);
    int i = 0;
    for (; i + 16 <= count; i += 16) {
        __m256i x0h[2], y0h[2];
        __m256 axh[2], ayh[2];
        for (int h = 0; h < 2; h++) {
            const __m512d idx = _mm512_add_pd(_mm512_set1_pd((double)i), h ? lane_hi : lane_lo);
            // As the scalar path: position, clamp far positions, floor by truncating a non-negative value.
            __m512d px = _mm512_add_pd(_mm512_set1_pd(sx), _mm512_mul_pd(idx, _mm512_set1_pd(step_x)));
            __m512d py = _mm512_add_pd(_mm512_set1_pd(sy), _mm512_mul_pd(idx, _mm512_set1_pd(step_y)));
            px = _mm512_min_pd(_mm512_max_pd(px, lo), hix);
            py = _mm512_min_pd(_mm512_max_pd(py, lo), hiy);
            const __m256i xi = _mm256_sub_epi32(_mm512_cvttpd_epi32(_mm512_add_pd(px, two)), _mm256_set1_epi32(2));
            const __m256i yi = _mm256_sub_epi32(_mm512_cvttpd_epi32(_mm512_add_pd(py, two)), _mm256_set1_epi32(2));
            axh[h] = _mm512_cvtpd_ps(_mm512_sub_pd(px, _mm512_cvtepi32_pd(xi)));
            ayh[h] = _mm512_cvtpd_ps(_mm512_sub_pd(py, _mm512_cvtepi32_pd(yi)));
            x0h[h] = xi;
            y0h[h] = yi;
        }
        const __m512i x0 = _mm512_inserti64x4(_mm512_castsi256_si512(x0h[0]), x0h[1], 1);
        const __m512i y0 = _mm512_inserti64x4(_mm512_castsi256_si512(y0h[0]), y0h[1], 1);
        const __mmask16 inside = _mm512_cmpge_epi32_mask(x0, _mm512_setzero_si512()) &
                                 _mm512_cmpge_epi32_mask(y0, _mm512_setzero_si512()) & _mm512_cmplt_epi32_mask(x0, xmax) &
                                 _mm512_cmplt_epi32_mask(y0, ymax);
        const __m512 ax = _mm512_insertf32x8(_mm512_castps256_ps512(axh[0]), axh[1], 1);
        const __m512 ay = _mm512_insertf32x8(_mm512_castps256_ps512(ayh[0]), ayh[1], 1);
        if (inside != 0xFFFF) {
            // A group crossing the border: each neighbour outside reads zero, or the nearest edge pixel, as
            // `border_read` does.
            const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1);
            const __m512i x1 = _mm512_add_epi32(x0, one), y1 = _mm512_add_epi32(y0, one);
            const __m512i xa = _mm512_min_epi32(_mm512_max_epi32(x0, zero), xmax);
            const __m512i xb = _mm512_min_epi32(_mm512_max_epi32(x1, zero), xmax);
            const __m512i yca = _mm512_min_epi32(_mm512_max_epi32(y0, zero), ymax);
            const __m512i ycb = _mm512_min_epi32(_mm512_max_epi32(y1, zero), ymax);
            const __m512i ya = _mm512_mullo_epi32(yca, _mm512_set1_epi32((int)stride));
            const __m512i yb = _mm512_mullo_epi32(ycb, _mm512_set1_epi32((int)stride));
            __mmask16 mxa = 0xFFFF, mxb = 0xFFFF, mya = 0xFFFF, myb = 0xFFFF;
            if (zero_border) {
                mxa = _mm512_cmpeq_epi32_mask(xa, x0);
                mxb = _mm512_cmpeq_epi32_mask(xb, x1);
                mya = _mm512_cmpeq_epi32_mask(yca, y0);
                myb = _mm512_cmpeq_epi32_mask(ycb, y1);
            }
            blend_store4(src, _mm512_add_epi32(ya, _mm512_slli_epi32(xa, 2)), _mm512_add_epi32(ya, _mm512_slli_epi32(xb, 2)),
                         _mm512_add_epi32(yb, _mm512_slli_epi32(xa, 2)), _mm512_add_epi32(yb, _mm512_slli_epi32(xb, 2)),
                         mxa & mya, mxb & mya, mxa & myb, mxb & myb, ax, ay, r_off, g_off, b_off, vs, vo,
                         out + 3 * (size_t)i);
            continue;
        }
        const __m512i top = _mm512_add_epi32(_mm512_mullo_epi32(y0, _mm512_set1_epi32((int)stride)), _mm512_slli_epi32(x0, 2));
        blend_store(src, stride, top, ax, ay, r_off, g_off, b_off, vs, vo, out + 3 * (size_t)i);
    }
    return i;
}

// The interior run of an axis-aligned row, sixteen pixels at a time; returns the first pixel not written (the
// scalar path does the rest).
CIK_WIDE static int table_row_wide(const uint8_t *src, size_t stride, int r_off, int g_off, int b_off,
                                    const intptr_t *xs, const float *ax, long y0, float ay, int first, int end,
                                    float scale, float offset, float *out) {
    const __m512 vs = _mm512_set1_ps(scale), vo = _mm512_set1_ps(offset), vay = _mm512_set1_ps(ay);
    const __m512i row = _mm512_set1_epi32((int)((size_t)y0 * stride));
    int i = first;
    for (; i + 16 <= end; i += 16) {
        const __m256i lo = _mm512_cvtepi64_epi32(_mm512_loadu_si512(xs + i));
        const __m256i hi = _mm512_cvtepi64_epi32(_mm512_loadu_si512(xs + i + 8));
        const __m512i x0 = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
        const __m512i top = _mm512_add_epi32(row, _mm512_slli_epi32(x0, 2));
        blend_store(src, stride, top, _mm512_loadu_ps(ax + i), vay, r_off, g_off, b_off, vs, vo, out + 3 * (size_t)i);
    }
    return i;
}
#endif

void cik_sample_rgb4_row(const uint8_t *restrict src, size_t stride, int width, int height, int r_off, int g_off,
                          int b_off, double sx, double sy, double step_x, double step_y, int count, float scale,
                          float offset, int zero_border, float *restrict out) {
    const int order = order_of(r_off, g_off, b_off);
    const __m128 vs = _mm_set1_ps(scale), vo = _mm_set1_ps(offset);
    int i = 0;
#if defined(__x86_64__)
    if (wide_available() && (order == 0 || order == 1 || order == 2) && (size_t)height * stride < (1u << 31))
        i = sample_row_wide(src, stride, width, height, r_off, g_off, b_off, sx, sy, step_x, step_y, count, scale,
                            offset, zero_border, out);
#endif
    for (; i < count; i++) {
        __m128 v = sample(src, stride, width, height, sx + (double)i * step_x, sy + (double)i * step_y, zero_border);
        store_rgb(out, i, count - 1, to_rgb(v, order, r_off, g_off, b_off, vs, vo));
    }
}

void cik_sample_rgb4_row_table(const uint8_t *restrict src, size_t stride, int r_off, int g_off, int b_off,
                                const intptr_t *restrict xs, const float *restrict ax, long y0, float ay, int first,
                                int end, float scale, float offset, float *restrict out) {
    const int order = order_of(r_off, g_off, b_off);
    const __m128 vs = _mm_set1_ps(scale), vo = _mm_set1_ps(offset);
#if defined(__x86_64__)
    if (wide_available() && (order == 0 || order == 1 || order == 2) && (size_t)(y0 + 1) * stride < (1u << 31))
        first = table_row_wide(src, stride, r_off, g_off, b_off, xs, ax, y0, ay, first, end, scale, offset, out);
#endif
    for (int i = first; i < end; i++) {
        // The pixel after the interior run is written later (or is past the row), so only the run's last
        // pixel stores three floats.
        store_rgb(out, i, end - 1, to_rgb(inside(src, stride, xs[i], y0, ax[i], ay), order, r_off, g_off, b_off, vs, vo));
    }
}
