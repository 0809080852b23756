// Fixed-point bilinear resampling of 8-bit images with 1, 3 or 4 interleaved channels.
//
// Two passes: each source row an output row needs is resampled horizontally once into a row of
// 32-bit sums (weights of CIK_RESIZE_BITS bits), then the two rows around each output row are
// mixed vertically with weights of the same precision and rounded. The horizontal pass reads the two
// taps of a column as one 8-byte load (the taps are adjacent pixels), which on AVX2 machines is one
// byte shuffle and one 16-bit multiply-add per pixel.
#include "CImageKernels.h"


#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>
#define CIK_HAVE_AVX2_PATH 1
#endif

#define ONE (1 << CIK_RESIZE_BITS)

// Generic horizontal pass for any channel count: `out[x·C + c] = s[x0+c]·w0 + s[x0+C+c]·w1`.
static void horizontal_generic(const uint8_t *restrict s, int channels, int32_t *restrict out, int dw,
                               const int32_t *restrict xofs, const int16_t *restrict xw) {
    for (int x = 0; x < dw; x++) {
        const uint8_t *p = s + xofs[x];
        int32_t w0 = xw[8 * x], w1 = xw[8 * x + 1];
        for (int c = 0; c < channels; c++) out[x * channels + c] = (int32_t)p[c] * w0 + (int32_t)p[c + channels] * w1;
    }
}

static void vertical_generic(const int32_t *restrict a, const int32_t *restrict b, int32_t wa, int32_t wb,
                             uint8_t *restrict out, int n) {
    const int32_t bias = 1 << (2 * CIK_RESIZE_BITS - 1);
    for (int i = 0; i < n; i++) out[i] = (uint8_t)((a[i] * wa + b[i] * wb + bias) >> (2 * CIK_RESIZE_BITS));
}

#ifdef CIK_HAVE_AVX2_PATH
// Four channels: the 8 bytes at xofs are both taps [r0 g0 b0 a0 r1 g1 b1 a1]; a shuffle makes the
// 16-bit pairs (r0, r1), (g0, g1), … and madd with (w0, w1) gives the four sums. Two pixels per step.
__attribute__((target("avx2"))) static void horizontal4_avx2(const uint8_t *restrict s, int32_t *restrict out, int dw,
                                                            const int32_t *restrict xofs, const int16_t *restrict xw) {
    const __m256i shuffle = _mm256_setr_epi8(0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1,
                                             0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1);
    int x = 0;
    for (; x + 2 <= dw; x += 2) {
        __m128i p0 = _mm_loadl_epi64((const __m128i *)(s + xofs[x]));
        __m128i p1 = _mm_loadl_epi64((const __m128i *)(s + xofs[x + 1]));
        __m256i v = _mm256_shuffle_epi8(_mm256_inserti128_si256(_mm256_castsi128_si256(p0), p1, 1), shuffle);
        __m256i w = _mm256_loadu_si256((const __m256i *)(xw + 8 * x));
        _mm256_storeu_si256((__m256i *)(out + 4 * x), _mm256_madd_epi16(v, w));
    }
    if (x < dw) horizontal_generic(s, 4, out + 4 * x, dw - x, xofs + x, xw + 8 * x);
}

// Three channels: the 6 bytes [r0 g0 b0 r1 g1 b1] become (r0, r1), (g0, g1), (b0, b1) and a zero pair;
// the fourth sum lands on the next pixel's first slot and is overwritten by it (the row has one spare
// element). The 8-byte load must stay inside the source, so the caller passes how many columns may use it.
__attribute__((target("avx2"))) static void horizontal3_avx2(const uint8_t *restrict s, int32_t *restrict out, int dw,
                                                            int safe, const int32_t *restrict xofs,
                                                            const int16_t *restrict xw) {
    const __m128i shuffle = _mm_setr_epi8(0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1);
    int x = 0;
    for (; x < safe; x++) {
        __m128i v = _mm_shuffle_epi8(_mm_loadl_epi64((const __m128i *)(s + xofs[x])), shuffle);
        __m128i w = _mm_loadu_si128((const __m128i *)(xw + 8 * x));
        _mm_storeu_si128((__m128i *)(out + 3 * x), _mm_madd_epi16(v, w));
    }
    if (x < dw) horizontal_generic(s, 3, out + 3 * x, dw - x, xofs + x, xw + 8 * x);
}

__attribute__((target("avx2"))) static void vertical_avx2(const int32_t *restrict a, const int32_t *restrict b,
                                                         int32_t wa, int32_t wb, uint8_t *restrict out, int n) {
    const __m256i va = _mm256_set1_epi32(wa), vb = _mm256_set1_epi32(wb);
    const __m256i bias = _mm256_set1_epi32(1 << (2 * CIK_RESIZE_BITS - 1));
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i s0 = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_loadu_si256((const __m256i *)(a + i)), va),
                                      _mm256_mullo_epi32(_mm256_loadu_si256((const __m256i *)(b + i)), vb));
        __m256i s1 = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_loadu_si256((const __m256i *)(a + i + 8)), va),
                                      _mm256_mullo_epi32(_mm256_loadu_si256((const __m256i *)(b + i + 8)), vb));
        s0 = _mm256_srli_epi32(_mm256_add_epi32(s0, bias), 2 * CIK_RESIZE_BITS);
        s1 = _mm256_srli_epi32(_mm256_add_epi32(s1, bias), 2 * CIK_RESIZE_BITS);
        // Values are 0…255: pack to 16 then 8 bits and undo the per-lane interleave of the packs.
        __m256i w16 = _mm256_permute4x64_epi64(_mm256_packus_epi32(s0, s1), 0xD8);
        __m128i w8 = _mm_packus_epi16(_mm256_castsi256_si128(w16), _mm256_extracti128_si256(w16, 1));
        _mm_storeu_si128((__m128i *)(out + i), w8);
    }
    if (i < n) vertical_generic(a + i, b + i, wa, wb, out + i, n - i);
}

// Read and written atomically: every band thread may ask at once (a plain read and write was a data race, if a
// harmless one: each writer stores the same value).
static int has_avx2(void) {
    static int cached = -1;
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}
#endif

void cik_resize_bilinear_u8(const uint8_t *restrict src, size_t src_stride, int src_width, int src_height,
                             int channels, uint8_t *restrict dst, size_t dst_stride, int dst_width, int first_row,
                             int row_count, const int32_t *xofs, const int16_t *xw, const int32_t *yofs,
                             const int16_t *yw, int32_t *scratch) {
    const int n = dst_width * channels;
    // Two row buffers (one spare element each for the 3-channel store) and the source rows they hold.
    int32_t *rows[2] = {scratch, scratch + n + 4};
    int held[2] = {-1, -1};
    // Columns whose 8-byte load stays inside the last source row: in the last row the load ends at
    // xofs + 8 ≤ width·channels. Other rows have the next row after them, but the simple rule is enough.
    int safe3 = 0;
    while (safe3 < dst_width && xofs[safe3] + 8 <= src_width * channels) safe3++;
#ifdef CIK_HAVE_AVX2_PATH
    const int avx2 = has_avx2();
#endif
    for (int y = first_row; y < first_row + row_count; y++) {
        int j0 = yofs[y], j1 = j0 + 1 < src_height ? j0 + 1 : j0;
        for (int k = 0; k < 2; k++) {
            int j = k == 0 ? j0 : j1, other = k == 0 ? j1 : j0;
            if (held[0] == j || held[1] == j) continue;
            int slot = held[0] == other ? 1 : 0;  // keep the row the other tap needs
            const uint8_t *s = src + (size_t)j * src_stride;
#ifdef CIK_HAVE_AVX2_PATH
            if (avx2 && channels == 4)
                horizontal4_avx2(s, rows[slot], dst_width, xofs, xw);
            else if (avx2 && channels == 3)
                horizontal3_avx2(s, rows[slot], dst_width, j + 1 < src_height ? dst_width : safe3, xofs, xw);
            else
#endif
                horizontal_generic(s, channels, rows[slot], dst_width, xofs, xw);
            held[slot] = j;
        }
        const int32_t *r[2] = {held[0] == j0 ? rows[0] : rows[1], held[0] == j1 ? rows[0] : rows[1]};
        int32_t wb = yw[y], wa = ONE - wb;
        uint8_t *out = dst + (size_t)(y - first_row) * dst_stride;
#ifdef CIK_HAVE_AVX2_PATH
        if (avx2) { vertical_avx2(r[0], r[1], wa, wb, out, n); continue; }
#endif
        vertical_generic(r[0], r[1], wa, wb, out, n);
    }
}
