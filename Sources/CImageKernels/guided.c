// Kernels of the full-resolution mask refinement: a box downscale of an 8-bit colour guide, and the
// fused last step of a fast guided filter (coefficient upsampling, q = a·I + b, blending into the
// upsampled mask by its uncertainty) over output rows.
#include "CImageKernels.h"

#include <math.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>
#define CIK_BOX_DOWN_AVX2 1

// Factor 4 on 4-byte pixels, the guide of a 1080p photo: each output pixel sums a 4×4 block, 16 bytes from each of
// four rows, widened to 16-bit lanes and folded to one sum per channel in registers (no column-sum pass). The sums
// are exact integers, scaled as the generic loop scales them, so the results are the same bits. Returns the number
// of output pixels written (the blocks wholly inside the row).
__attribute__((target("avx2"))) static int box_down4_rgba_row_avx2(const uint8_t *restrict src, size_t stride, int width,
                                                                    int r_off, int g_off, int b_off, float scale,
                                                                    float *restrict orow, float *restrict grow,
                                                                    float *restrict brow) {
    const uint8_t *r0 = src, *r1 = src + stride, *r2 = src + 2 * stride, *r3 = src + 3 * stride;
    const __m128 vs = _mm_set1_ps(scale);
    const int full = width / 4;
    for (int i = 0; i < full; i++) {
        const size_t o = (size_t)i * 16;
        __m256i a = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r0 + o)));
        a = _mm256_add_epi16(a, _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r1 + o))));
        a = _mm256_add_epi16(a, _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r2 + o))));
        a = _mm256_add_epi16(a, _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r3 + o))));
        __m128i s = _mm_add_epi16(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
        s = _mm_add_epi16(s, _mm_srli_si128(s, 8));  // lanes 0–3: the block's sum of each byte of the pixel
        float v[4];
        _mm_storeu_ps(v, _mm_mul_ps(_mm_cvtepi32_ps(_mm_cvtepu16_epi32(s)), vs));
        orow[i] = v[r_off];
        grow[i] = v[g_off];
        brow[i] = v[b_off];
    }
    return full;
}
#endif

void cik_box_down_rgb8(const uint8_t *restrict src, size_t src_stride, int width, int height, int bpp, int r_off,
                        int g_off, int b_off, int factor, float *restrict out_r, float *restrict out_g,
                        float *restrict out_b, int out_width, int out_height, uint16_t *restrict acc) {
    const int n = width * bpp;
#ifdef CIK_BOX_DOWN_AVX2
    const int fast4 = factor == 4 && bpp == 4 && __builtin_cpu_supports("avx2");
#endif
    for (int j = 0; j < out_height; j++) {
        int y0 = j * factor, y1 = y0 + factor < height ? y0 + factor : height;
        float *orow = out_r + (size_t)j * out_width, *grow = out_g + (size_t)j * out_width, *brow = out_b + (size_t)j * out_width;
        int first = 0;  // the first output pixel the generic loop below computes
#ifdef CIK_BOX_DOWN_AVX2
        if (fast4 && y1 - y0 == 4) {
            first = box_down4_rgba_row_avx2(src + (size_t)y0 * src_stride, src_stride, width, r_off, g_off, b_off,
                                            1.0f / (255.0f * 16.0f), orow, grow, brow);
            if (first == out_width) continue;
        }
#endif
        // Column sums of the box's rows (vectorised: plain byte adds into 16-bit lanes; factor ≤ 257).
        const int c0 = first * factor * bpp;
        for (int i = c0; i < n; i++) acc[i] = 0;
        for (int y = y0; y < y1; y++) {
            const uint8_t *row = src + (size_t)y * src_stride;
            for (int i = c0; i < n; i++) acc[i] = (uint16_t)(acc[i] + row[i]);
        }
        for (int i = first; i < out_width; i++) {
            int x0 = i * factor, x1 = x0 + factor < width ? x0 + factor : width;
            unsigned sr = 0, sg = 0, sb = 0;
            for (int x = x0; x < x1; x++) {
                const uint16_t *p = acc + (size_t)x * bpp;
                sr += p[r_off];
                sg += p[g_off];
                sb += p[b_off];
            }
            float scale = 1.0f / (255.0f * (float)((x1 - x0) * (y1 - y0)));
            orow[i] = (float)sr * scale;
            grow[i] = (float)sg * scale;
            brow[i] = (float)sb * scale;
        }
    }
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>
#define CIK_GUIDED_AVX2 1

// Eight output pixels per step: each channel's taps come from an 8-float window of the (vertically
// interpolated) low-resolution row, picked with a lane permute; the guide's channels are unpacked from the
// 32-bit pixels. Returns the first column it did not handle.
__attribute__((target("avx2,fma"))) static int refine_row_avx2(const uint8_t *restrict g, int width, int r_off,
                                                               int g_off, int b_off, const float *restrict planes,
                                                               int plane_stride, float inv_band,
                                                               const int32_t *restrict x0, const float *restrict wx,
                                                               float *restrict o, uint8_t *restrict o8) {
    const __m256i byte = _mm256_set1_epi32(0xFF);
    const __m256 scale = _mm256_set1_ps(1.0f / 255), half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f);
    const __m256 zero = _mm256_setzero_ps(), ib = _mm256_set1_ps(inv_band), sign = _mm256_set1_ps(-0.0f);
    const __m256i ones = _mm256_set1_epi32(1);
    int x = 0;
    for (; x + 8 <= width; x += 8) {
        int base = x0[x];
        if (x0[x + 7] + 1 - base > 7) break;  // the eight pixels' taps do not fit one window
        __m256i i0 = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(x0 + x)), _mm256_set1_epi32(base));
        __m256i i1 = _mm256_add_epi32(i0, ones);
        __m256 a = _mm256_loadu_ps(wx + x);
        __m256 c[5];
        for (int k = 0; k < 5; k++) {
            __m256 win = _mm256_loadu_ps(planes + (size_t)k * plane_stride + base);
            __m256 p = _mm256_permutevar8x32_ps(win, i0), q = _mm256_permutevar8x32_ps(win, i1);
            c[k] = _mm256_fmadd_ps(_mm256_sub_ps(q, p), a, p);
        }
        __m256i px = _mm256_loadu_si256((const __m256i *)(g + 4 * (size_t)x));
        __m256 R = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srlv_epi32(px, _mm256_set1_epi32(8 * r_off)), byte)), scale);
        __m256 G = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srlv_epi32(px, _mm256_set1_epi32(8 * g_off)), byte)), scale);
        __m256 B = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srlv_epi32(px, _mm256_set1_epi32(8 * b_off)), byte)), scale);
        __m256 v = _mm256_fmadd_ps(c[0], R, _mm256_fmadd_ps(c[1], G, _mm256_fmadd_ps(c[2], B, c[3])));
        __m256 m = c[4];
        __m256 d = _mm256_andnot_ps(sign, _mm256_sub_ps(m, half));
        __m256 t = _mm256_max_ps(zero, _mm256_sub_ps(one, _mm256_mul_ps(d, ib)));
        __m256 r = _mm256_fmadd_ps(_mm256_sub_ps(v, m), t, m);
        r = _mm256_min_ps(one, _mm256_max_ps(zero, r));
        if (o8) {
            // round(r·255), ties to even (the default rounding mode), as the float → 8-bit conversion rounds.
            __m256i q = _mm256_cvtps_epi32(_mm256_mul_ps(r, _mm256_set1_ps(255.0f)));
            __m128i w16 = _mm_packus_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
            _mm_storel_epi64((__m128i *)(o8 + x), _mm_packus_epi16(w16, w16));
        } else {
            _mm256_storeu_ps(o + x, r);
        }
    }
    return x;
}
#endif

void cik_guided_refine_rgb8(const uint8_t *restrict guide, size_t guide_stride, int width, int bpp, int r_off,
                             int g_off, int b_off, const float *restrict coef, int low_width, int low_height,
                             float band, float *restrict out, size_t out_stride, int first_row, int row_count,
                             int height, const int32_t *restrict x0, const float *restrict wx, float *restrict scratch,
                             uint8_t *restrict out8, size_t out8_stride) {
    const float sy = (float)low_height / (float)height, inv_band = 1.0f / band;
    const int n = low_width * 5, ps = low_width + 8;  // planar rows, padded for the 8-float windows
    for (int k = 0; k < 5; k++)
        for (int i = low_width; i < ps; i++) scratch[k * ps + i] = 0;
#ifdef CIK_GUIDED_AVX2
    const int avx2 = bpp == 4 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    for (int y = first_row; y < first_row + row_count; y++) {
        float fy = ((float)y + 0.5f) * sy - 0.5f;
        if (fy < 0) fy = 0;
        if (fy > (float)(low_height - 1)) fy = (float)(low_height - 1);
        int j0 = (int)fy, j1 = j0 + 1 < low_height ? j0 + 1 : j0;
        float ay = fy - (float)j0;
        const float *c0 = coef + (size_t)j0 * n, *c1 = coef + (size_t)j1 * n;
        for (int i = 0; i < low_width; i++)
            for (int k = 0; k < 5; k++) scratch[k * ps + i] = c0[5 * i + k] + (c1[5 * i + k] - c0[5 * i + k]) * ay;
        const uint8_t *g = guide + (size_t)y * guide_stride;
        float *o = out8 ? NULL : out + (size_t)(y - first_row) * out_stride;
        uint8_t *o8 = out8 ? out8 + (size_t)(y - first_row) * out8_stride : NULL;
        int x = 0;
#ifdef CIK_GUIDED_AVX2
        if (avx2) x = refine_row_avx2(g, width, r_off, g_off, b_off, scratch, ps, inv_band, x0, wx, o, o8);
#endif
        for (; x < width; x++) {
            int i = x0[x];
            float a = wx[x], c[5];
            for (int k = 0; k < 5; k++) {
                const float *p = scratch + k * ps + i;
                c[k] = p[0] + (p[1] - p[0]) * a;
            }
            const uint8_t *px = g + (size_t)x * bpp;
            float v = c[0] * ((float)px[r_off] * (1.0f / 255)) + c[1] * ((float)px[g_off] * (1.0f / 255)) +
                      c[2] * ((float)px[b_off] * (1.0f / 255)) + c[3];
            float m = c[4], d = m - 0.5f;
            float t = 1.0f - (d < 0 ? -d : d) * inv_band;
            if (t < 0) t = 0;
            float r = m + (v - m) * t;
            r = r < 0 ? 0 : (r > 1 ? 1 : r);
            if (o8) o8[x] = (uint8_t)lrintf(r * 255.0f);
            else o[x] = r;
        }
    }
}
