// The 8-bit blend of a premultiplied RGBA foreground and background by an 8-bit mask, with the arithmetic of
// Core Image's 8-bit render path (PVRender's PixelWords.swift): per byte f' = round(f·w/255 + b·(255 − w)/255)
// computed as t = f·w + b·(255 − w) + 128, (t + (t >> 8)) >> 8; a straight-alpha foreground is premultiplied on the
// way, c' = (c·a + 128 + ((c·a + 128) >> 8)) >> 8, opaque pixels left as they are.
#include "CRenderKernels.h"

static inline uint32_t blend_scalar(uint32_t f, uint32_t b, uint32_t w) {
    uint32_t out = 0;
    for (uint32_t shift = 0; shift < 32; shift += 8) {
        uint32_t t = ((f >> shift) & 0xFF) * w + ((b >> shift) & 0xFF) * (255 - w) + 128;
        out |= ((t + (t >> 8)) >> 8) << shift;
    }
    return out;
}

static inline uint32_t premultiply_scalar(uint32_t p) {
    uint32_t a = p >> 24;
    if (a == 255) return p;
    uint32_t out = a << 24;
    for (uint32_t shift = 0; shift < 24; shift += 8) {
        uint32_t t = ((p >> shift) & 0xFF) * a + 128;
        out |= ((t + (t >> 8)) >> 8) << shift;
    }
    return out;
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

// Eight pixels per step; returns the first pixel it did not handle. A group with a translucent foreground pixel is
// left to the scalar loop (photos are opaque throughout).
__attribute__((target("avx2"))) static int blend_avx2(const uint32_t *fg, int premultiply,
                                                      const uint32_t *bg, const uint8_t *mask,
                                                      uint32_t *out, int n) {
    const __m256i low = _mm256_set1_epi16(0xFF), c255 = _mm256_set1_epi16(255), c128 = _mm256_set1_epi16(128);
    const __m256i alpha = _mm256_set1_epi32((int)0xFF000000u);
    int k = 0;
    for (; k + 8 <= n; k += 8) {
        __m256i f = _mm256_loadu_si256((const __m256i *)(fg + k));
        if (premultiply && !_mm256_testc_si256(f, alpha)) break;
        __m256i b = _mm256_loadu_si256((const __m256i *)(bg + k));
        __m256i w32 = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(mask + k)));
        __m256i w = _mm256_or_si256(w32, _mm256_slli_epi32(w32, 16));  // the weight in both 16-bit lanes
        __m256i inv = _mm256_sub_epi16(c255, w);
        __m256i even = _mm256_add_epi16(
            _mm256_add_epi16(_mm256_mullo_epi16(_mm256_and_si256(f, low), w), _mm256_mullo_epi16(_mm256_and_si256(b, low), inv)),
            c128);
        __m256i odd = _mm256_add_epi16(
            _mm256_add_epi16(_mm256_mullo_epi16(_mm256_srli_epi16(f, 8), w), _mm256_mullo_epi16(_mm256_srli_epi16(b, 8), inv)),
            c128);
        even = _mm256_srli_epi16(_mm256_add_epi16(even, _mm256_srli_epi16(even, 8)), 8);
        odd = _mm256_srli_epi16(_mm256_add_epi16(odd, _mm256_srli_epi16(odd, 8)), 8);
        _mm256_storeu_si256((__m256i *)(out + k), _mm256_or_si256(even, _mm256_slli_epi16(odd, 8)));
    }
    return k;
}
#endif

void crk_blend_rgba_mask8(const uint32_t *fg, int premultiply, const uint32_t *bg,
                           const uint8_t *mask, uint32_t *out, int n) {
    int k = 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    const int avx2 = __builtin_cpu_supports("avx2");
    while (avx2 && k < n) {
        k += blend_avx2(fg + k, premultiply, bg + k, mask + k, out + k, n - k);
        if (k + 8 > n) break;
        // A group with a translucent pixel: these eight one by one.
        for (int e = k + 8; k < e; k++) {
            uint32_t f = premultiply ? premultiply_scalar(fg[k]) : fg[k];
            out[k] = blend_scalar(f, bg[k], mask[k]);
        }
    }
#endif
    for (; k < n; k++) {
        uint32_t f = premultiply ? premultiply_scalar(fg[k]) : fg[k];
        out[k] = blend_scalar(f, bg[k], mask[k]);
    }
}
