// Axis-aligned bilinear resampling for Core Image's 8-bit render path: the arithmetic of the float path
// (PVRender's `AxisTransformNode`) on stored 4-byte pixels, in the same order and precision and with no
// fused multiply-adds, so the words come out exactly as the float path's after quantizing.
#pragma STDC FP_CONTRACT OFF
#include "CRenderKernels.h"

#include <string.h>

void crk_axis_read4(const uint8_t *src, int r_off, int g_off, int b_off, int a_off, int premultiply, float *out, int n) {
    const float scale = 1.0f / 255.0f;
    for (int k = 0; k < n; k++) {
        const uint8_t *p = src + 4 * k;
        float r = (float)p[r_off] * scale, g = (float)p[g_off] * scale, b = (float)p[b_off] * scale;
        float a = (float)p[a_off] * scale;
        if (premultiply) {
            r = r * a;
            g = g * a;
            b = b * a;
        }
        out[4 * k] = r;
        out[4 * k + 1] = g;
        out[4 * k + 2] = b;
        out[4 * k + 3] = a;
    }
}

static inline void lerp_generic(const float *a, const float *b, float t, float *out, int n) {
    for (int k = 0; k < n; k++) out[k] = a[k] + (b[k] - a[k]) * t;
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

__attribute__((target("avx2"))) static void lerp_avx2(const float *a, const float *b, float t, float *out, int n) {
    const __m256 tt = _mm256_set1_ps(t);
    int k = 0;
    for (; k + 8 <= n; k += 8) {
        __m256 x = _mm256_loadu_ps(a + k), y = _mm256_loadu_ps(b + k);
        _mm256_storeu_ps(out + k, _mm256_add_ps(x, _mm256_mul_ps(_mm256_sub_ps(y, x), tt)));
    }
    lerp_generic(a + k, b + k, t, out + k, n - k);
}

// Two pixels per 256-bit vector, four per step: a + (b − a)·w, then v·255 + 1.5·2²³, whose low mantissa bits hold
// v·255 rounded to nearest even; the saturating packs clamp it to 0…255.
__attribute__((target("avx2"))) static int columns_avx2(const float *row, const int32_t *index, const float *weight,
                                                        int integral, uint32_t *out, int n) {
    const __m256 c255 = _mm256_set1_ps(255.0f), magic = _mm256_set1_ps(12582912.0f);
    const __m256i bias = _mm256_set1_epi32(0x4B400000), order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    int k = 0;
    for (; k + 4 <= n; k += 4) {
        __m256i v[2];
        for (int h = 0; h < 2; h++) {
            const float *p0 = row + 4 * (size_t)index[k + 2 * h], *p1 = row + 4 * (size_t)index[k + 2 * h + 1];
            __m256 a = _mm256_set_m128(_mm_loadu_ps(p1), _mm_loadu_ps(p0));
            __m256 o = a;
            if (!integral) {
                __m256 b = _mm256_set_m128(_mm_loadu_ps(p1 + 4), _mm_loadu_ps(p0 + 4));
                __m256 w = _mm256_set_m128(_mm_set1_ps(weight[k + 2 * h + 1]), _mm_set1_ps(weight[k + 2 * h]));
                o = _mm256_add_ps(a, _mm256_mul_ps(_mm256_sub_ps(b, a), w));
            }
            __m256 q = _mm256_add_ps(_mm256_mul_ps(o, c255), magic);
            v[h] = _mm256_sub_epi32(_mm256_castps_si256(q), bias);
        }
        // Lane 0 holds pixels k, k+2 and lane 1 pixels k+1, k+3 after the packs; the permute puts them in order.
        __m256i words = _mm256_packus_epi16(_mm256_packs_epi32(v[0], v[1]), _mm256_setzero_si256());
        words = _mm256_permutevar8x32_epi32(words, order);
        _mm_storeu_si128((__m128i *)(out + k), _mm256_castsi256_si128(words));
    }
    return k;
}
#endif

void crk_axis_lerp(const float *a, const float *b, float t, float *out, int n) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (__builtin_cpu_supports("avx2")) {
        lerp_avx2(a, b, t, out, n);
        return;
    }
#endif
    lerp_generic(a, b, t, out, n);
}

static inline uint32_t quantize(float v) {
    float t = v * 255.0f;
    t = t + 12582912.0f;
    int32_t bits;
    memcpy(&bits, &t, 4);
    bits -= 0x4B400000;
    return (uint32_t)(bits > 255 ? 255 : bits < 0 ? 0 : bits);
}

void crk_axis_columns_rgba8(const float *row, const int32_t *index, const float *weight, int integral, uint32_t *out,
                             int n) {
    int k = 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (__builtin_cpu_supports("avx2")) k = columns_avx2(row, index, weight, integral, out, n);
#endif
    for (; k < n; k++) {
        const float *a = row + 4 * (size_t)index[k];
        uint32_t word = 0;
        for (int c = 0; c < 4; c++) {
            float o = integral ? a[c] : a[c] + (a[c + 4] - a[c]) * weight[k];
            word |= quantize(o) << (8 * c);
        }
        out[k] = word;
    }
}
