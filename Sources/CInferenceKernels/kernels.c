#include "CInferenceKernels.h"
#include "parallelize.h"

#include <stdlib.h>
#include <string.h>

// Each kernel body is written once as an always-inline function and instantiated three times: for
// the baseline x86-64 target, with AVX2+FMA and with AVX-512, chosen at run time (the Debian toolchain
// builds for baseline x86-64, where the vectorised loops would only get SSE2).
#if defined(__x86_64__)
#define PVK_FAST __attribute__((target("avx2,fma")))
#define PVK_WIDE __attribute__((target("avx512f,avx512vl,avx2,fma")))
// 0 = baseline, 1 = AVX2+FMA, 2 = AVX-512 (512-bit vectors: no CPU tuning asks for 256-bit here).
static int pvk_level(void) {
    static int cached = -1;
    int level = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (level < 0) {
        __builtin_cpu_init();
        level = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") ? 2
                : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")      ? 1
                                                                                        : 0;
        __atomic_store_n(&cached, level, __ATOMIC_RELAXED);
    }
    return level;
}
#else
#define PVK_FAST
#define PVK_WIDE
static int pvk_level(void) { return 0; }
#endif
#define PVK_INLINE static inline __attribute__((always_inline))

static inline float pvk_clamp(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

void pvk_expand_taps(const float *weights, size_t width, size_t channels, float *expanded) {
    for (size_t t = 0; t < 9; t++)
        for (size_t x = 0; x < width; x++)
            memcpy(expanded + (t * width + x) * channels, weights + t * channels, channels * sizeof(float));
}

// acc[i] (i over one output row, width × channels) += Σ taps input[neighbour of i] · w[tap][channel of i],
// with zero padding. The taps go in XNNPACK's depthwise order (column by column: kx outer, ky inner)
// with one fused multiply-add each, so results match it bit for bit where XNNPACK uses FMA (rounding
// differences alone, amplified through a deep network, moved pose landmarks by 3 % on random input).
// Interior pixels take all nine taps in one pass; the first and last pixel skip the padding column.
PVK_INLINE void pvk_row_taps(const float *restrict input, float *restrict acc, size_t height, size_t width,
                             size_t channels, size_t y, const float *restrict expanded) {
    const size_t c = channels, row = width * channels;
    const float *r[3], *w[9];
    int valid[3];
    for (size_t ky = 0; ky < 3; ky++) {
        valid[ky] = !((y == 0 && ky == 0) || (y + 1 == height && ky == 2));
        r[ky] = valid[ky] ? input + (y + ky - 1) * row : input + y * row;
        for (size_t kx = 0; kx < 3; kx++) w[ky * 3 + kx] = expanded + (ky * 3 + kx) * row;
    }
    if (valid[0] && valid[2] && width >= 3) {
        const float *restrict r0 = r[0], *restrict r1 = r[1], *restrict r2 = r[2];
        const float *restrict w00 = w[0], *restrict w01 = w[1], *restrict w02 = w[2];
        const float *restrict w10 = w[3], *restrict w11 = w[4], *restrict w12 = w[5];
        const float *restrict w20 = w[6], *restrict w21 = w[7], *restrict w22 = w[8];
        for (size_t i = c; i < row - c; i++) {
            float a = acc[i];
            a += r0[i - c] * w00[i];
            a += r1[i - c] * w10[i];
            a += r2[i - c] * w20[i];
            a += r0[i] * w01[i];
            a += r1[i] * w11[i];
            a += r2[i] * w21[i];
            a += r0[i + c] * w02[i];
            a += r1[i + c] * w12[i];
            a += r2[i + c] * w22[i];
            acc[i] = a;
        }
        // First pixel (no left column) and last pixel (no right column), same order.
        for (size_t k = 0; k < c; k++) {
            float a = acc[k];
            for (size_t kx = 1; kx < 3; kx++)
                for (size_t ky = 0; ky < 3; ky++) a += r[ky][k + (kx - 1) * c] * w[ky * 3 + kx][k];
            acc[k] = a;
            size_t j = row - c + k;
            float b = acc[j];
            for (size_t kx = 0; kx < 2; kx++)
                for (size_t ky = 0; ky < 3; ky++) b += r[ky][j + kx * c - c] * w[ky * 3 + kx][j];
            acc[j] = b;
        }
        return;
    }
    // First and last image rows (and images narrower than three pixels): one pass per tap.
    for (size_t kx = 0; kx < 3; kx++) {
        for (size_t ky = 0; ky < 3; ky++) {
            if (!valid[ky]) continue;
            const float *restrict src = r[ky];
            const float *restrict wt = w[ky * 3 + kx];
            if (kx == 0) {
                for (size_t i = c; i < row; i++) acc[i] += src[i - c] * wt[i];
            } else if (kx == 1) {
                for (size_t i = 0; i < row; i++) acc[i] += src[i] * wt[i];
            } else {
                for (size_t i = 0; i + c < row; i++) acc[i] += src[i + c] * wt[i];
            }
        }
    }
}

// The same sum when the channel count divides 16: a 16-float vector then holds whole pixels, so each
// tap's weights fit one register (no weight loads in the loop). Same tap order as above; the first and
// last 16 floats of the row (which hold the edge pixels) take the scalar path.
typedef float pvk_v16 __attribute__((vector_size(64)));
typedef float pvk_v16u __attribute__((vector_size(64), aligned(4)));  // for unaligned loads
#define pvk_load16(p) (*(const pvk_v16u *)(p))

PVK_INLINE void pvk_row_taps16(const float *restrict input, float *restrict acc, size_t height, size_t width,
                               size_t channels, size_t y, const float *restrict weights) {
    const size_t c = channels, row = width * channels;
    const float *r[3];
    int valid[3];
    for (size_t ky = 0; ky < 3; ky++) {
        valid[ky] = !((y == 0 && ky == 0) || (y + 1 == height && ky == 2));
        r[ky] = valid[ky] ? input + (y + ky - 1) * row : input + y * row;
    }
    pvk_v16 w[9];
    for (size_t t = 0; t < 9; t++)
        for (size_t j = 0; j < 16; j++) w[t][j] = weights[t * c + j % c];
    if (valid[0] && valid[2]) {
        const float *r0 = r[0], *r1 = r[1], *r2 = r[2];
        for (size_t i = 16; i + 16 <= row - 16; i += 16) {
            pvk_v16 a = pvk_load16(acc + i);
            a += pvk_load16(r0 + i - c) * w[0];
            a += pvk_load16(r1 + i - c) * w[3];
            a += pvk_load16(r2 + i - c) * w[6];
            a += pvk_load16(r0 + i) * w[1];
            a += pvk_load16(r1 + i) * w[4];
            a += pvk_load16(r2 + i) * w[7];
            a += pvk_load16(r0 + i + c) * w[2];
            a += pvk_load16(r1 + i + c) * w[5];
            a += pvk_load16(r2 + i + c) * w[8];
            memcpy(acc + i, &a, sizeof a);
        }
    } else {
        for (size_t i = 16; i + 16 <= row - 16; i += 16) {
            pvk_v16 a = pvk_load16(acc + i);
            for (size_t kx = 0; kx < 3; kx++)
                for (size_t ky = 0; ky < 3; ky++)
                    if (valid[ky]) a += pvk_load16(r[ky] + i + kx * c - c) * w[ky * 3 + kx];
            memcpy(acc + i, &a, sizeof a);
        }
    }
    // The first and last 16 floats: per element, skipping taps that fall on padding.
    for (size_t e = 0; e < 32; e++) {
        size_t i = e < 16 ? e : row - 32 + e;
        float a = acc[i];
        for (size_t kx = 0; kx < 3; kx++) {
            if ((kx == 0 && i < c) || (kx == 2 && i + c >= row)) continue;
            for (size_t ky = 0; ky < 3; ky++)
                if (valid[ky]) a += r[ky][i + kx * c - c] * weights[(ky * 3 + kx) * c + i % c];
        }
        acc[i] = a;
    }
}

typedef struct {
    const float *input;
    float *output;
    size_t height, width, channels;
    const float *weights, *bias, *expanded;
    float bias1, lo, hi;
    int to_one;
} pvk_taps_job;

PVK_INLINE void pvk_taps_row(const pvk_taps_job *job, size_t y, float *restrict acc) {
    const size_t c = job->channels, row = job->width * c;
    if (job->to_one) {
        for (size_t i = 0; i < row; i++) acc[i] = 0;
    } else {
        for (size_t x = 0; x < job->width; x++)
            for (size_t k = 0; k < c; k++) acc[x * c + k] = job->bias ? job->bias[k] : 0;
    }
    if (16 % c == 0 && row % 16 == 0 && row >= 32)
        pvk_row_taps16(job->input, acc, job->height, job->width, c, y, job->weights);
    else
        pvk_row_taps(job->input, acc, job->height, job->width, c, y, job->expanded);
    if (job->to_one) {
        float *restrict out = job->output + y * job->width;
        for (size_t x = 0; x < job->width; x++) {
            float s = job->bias1;
            for (size_t k = 0; k < c; k++) s += acc[x * c + k];
            out[x] = pvk_clamp(s, job->lo, job->hi);
        }
    } else {
        float *restrict out = job->output + y * row;
        for (size_t i = 0; i < row; i++) out[i] = pvk_clamp(acc[i], job->lo, job->hi);
    }
}

// One task per output row; the row accumulator lives on the stack when small, else on the heap.
#define PVK_STACK_FLOATS 8192
PVK_INLINE void pvk_taps_task(void *context, size_t y) {
    const pvk_taps_job *job = context;
    size_t n = job->width * job->channels;
    float stack[PVK_STACK_FLOATS];
    float *acc = n <= PVK_STACK_FLOATS ? stack : malloc(n * sizeof(float));
    if (!acc) return;
    pvk_taps_row(job, y, acc);
    if (acc != stack) free(acc);
}
static void pvk_taps_task_base(void *context, size_t y) { pvk_taps_task(context, y); }
PVK_FAST static void pvk_taps_task_fast(void *context, size_t y) { pvk_taps_task(context, y); }
PVK_WIDE static void pvk_taps_task_wide(void *context, size_t y) { pvk_taps_task(context, y); }

static void pvk_run_taps(pvk_taps_job *job, pthreadpool_t pool) {
    static void (*const tasks[3])(void *, size_t) = {pvk_taps_task_base, pvk_taps_task_fast, pvk_taps_task_wide};
    pvk_parallelize(pool, tasks[pvk_level()], job, job->height);
}

void pvk_depthwise3x3(const float *input, float *output, size_t height, size_t width, size_t channels,
                      const float *weights, const float *bias, const float *expanded,
                      float output_min, float output_max, pthreadpool_t pool) {
    pvk_taps_job job = {input, output, height, width, channels, weights, bias, expanded, 0, output_min, output_max, 0};
    pvk_run_taps(&job, pool);
}

void pvk_conv3x3_to1(const float *input, float *output, size_t height, size_t width, size_t channels,
                     const float *weights, float bias, const float *expanded,
                     float output_min, float output_max, pthreadpool_t pool) {
    pvk_taps_job job = {input, output, height, width, channels, weights, NULL, expanded, bias, output_min, output_max, 1};
    pvk_run_taps(&job, pool);
}

// 1×1 convolution over blocks of pixels: eight output channels at a time as one vector,
// accumulated from broadcast input values and the matching weight column.
typedef float pvk_v8 __attribute__((vector_size(32)));

typedef struct {
    const float *input;
    float *output;
    size_t pixels, in_c, out_c;
    const float *weights, *bias;
    float lo, hi;
} pvk_pointwise_job;

#define PVK_PIXEL_BLOCK 256

PVK_INLINE void pvk_pointwise_block(const pvk_pointwise_job *job, size_t block) {
    const size_t in_c = job->in_c, out_c = job->out_c;
    const size_t p0 = block * PVK_PIXEL_BLOCK;
    const size_t p1 = p0 + PVK_PIXEL_BLOCK < job->pixels ? p0 + PVK_PIXEL_BLOCK : job->pixels;
#if defined(__clang__)
    const pvk_v8 lo = {job->lo, job->lo, job->lo, job->lo, job->lo, job->lo, job->lo, job->lo};
    const pvk_v8 hi = {job->hi, job->hi, job->hi, job->hi, job->hi, job->hi, job->hi, job->hi};
#endif
    for (size_t o = 0; o < out_c; o += 8) {
        pvk_v8 columns[64];  // columns[i][j] = weights[o + j][i]
        pvk_v8 b;
        for (size_t j = 0; j < 8; j++) b[j] = job->bias ? job->bias[o + j] : 0;
        for (size_t i = 0; i < in_c; i++)
            for (size_t j = 0; j < 8; j++) columns[i][j] = job->weights[(o + j) * in_c + i];
        for (size_t p = p0; p < p1; p++) {
            const float *restrict src = job->input + p * in_c;
            pvk_v8 acc = b;
            for (size_t i = 0; i < in_c; i++) acc += src[i] * columns[i];
#if defined(__clang__)
            acc = __builtin_elementwise_min(__builtin_elementwise_max(acc, lo), hi);
            memcpy(job->output + p * out_c + o, &acc, sizeof acc);
#else
            float *restrict dst = job->output + p * out_c + o;
            for (size_t j = 0; j < 8; j++) dst[j] = pvk_clamp(acc[j], job->lo, job->hi);
#endif
        }
    }
}

static void pvk_pointwise_task_base(void *context, size_t block) { pvk_pointwise_block(context, block); }
PVK_FAST static void pvk_pointwise_task_fast(void *context, size_t block) { pvk_pointwise_block(context, block); }
PVK_WIDE static void pvk_pointwise_task_wide(void *context, size_t block) { pvk_pointwise_block(context, block); }

void pvk_conv1x1(const float *input, float *output, size_t pixels, size_t input_channels, size_t output_channels,
                 const float *weights, const float *bias, float output_min, float output_max, pthreadpool_t pool) {
    if (output_channels % 8 != 0 || input_channels > 64) return;
    pvk_pointwise_job job = {input, output, pixels, input_channels, output_channels, weights, bias, output_min, output_max};
    size_t blocks = (pixels + PVK_PIXEL_BLOCK - 1) / PVK_PIXEL_BLOCK;
    static void (*const tasks[3])(void *, size_t) = {pvk_pointwise_task_base, pvk_pointwise_task_fast, pvk_pointwise_task_wide};
    pvk_parallelize(pool, tasks[pvk_level()], &job, blocks);
}

// Depthwise K×K convolution (K = 3 or 5, stride 1 or 2) for channel counts that are multiples of 8:
// one 16-channel block per zmm register with AVX-512 (a last 8-channel block masked), one 8-channel
// block per ymm register with AVX2.
// Each output row is one task; within it, each channel block keeps its K² tap weights in registers and
// computes several output pixels per step with fused multiply-adds whose input operand comes straight
// from memory. As in XNNPACK's depthwise kernels, each output starts from the bias and takes the taps
// column by column (kx outer, ky inner) in one chain, padding taps included (as products with zero), so
// the results are bit-identical to XNNPACK's. Rows above or below the image read from a zero row; the
// pixels whose window crosses the left or right edge take a separate per-pixel path.
#if defined(__x86_64__)
#include <immintrin.h>

typedef struct {
    const float *input;
    float *output;
    const float *weights, *bias, *zeros;
    size_t in_h, in_w, channels, out_h, out_w, pad_top, pad_left;
    size_t x_begin, x_end;  // output columns whose window lies inside the image
    float lo, hi;
} pvk_dw_job;

// A depthwise layer's job, with its interior columns: pad_left ≤ ox·stride and ox·stride − pad_left + kernel ≤ in_w.
static pvk_dw_job pvk_dw_make_job(const float *input, float *output, size_t in_h, size_t in_w, size_t channels,
                                  size_t out_h, size_t out_w, size_t kernel, size_t stride, size_t pad_top,
                                  size_t pad_left, const float *weights, const float *bias, const float *zeros, float lo,
                                  float hi) {
    size_t x_begin = (pad_left + stride - 1) / stride;
    size_t x_end = in_w + pad_left >= kernel ? (in_w + pad_left - kernel) / stride + 1 : 0;
    if (x_end > out_w) x_end = out_w;
    if (x_begin > out_w) x_begin = out_w;
    if (x_end < x_begin) x_end = x_begin;
    pvk_dw_job job = {input, output, weights, bias, zeros, in_h, in_w, channels, out_h, out_w, pad_top, pad_left,
                      x_begin, x_end, lo, hi};
    return job;
}

// The per-ISA pieces: vector type, width, load, multiply-add, clamp, store.
#define PVK_DW_ROWS                                                                                              \
    const size_t C = job->channels, K = KSIZE, S = STRIDE;                                                       \
    const float *rows[KSIZE];                                                                                    \
    for (size_t ky = 0; ky < K; ky++) {                                                                          \
        size_t iy = oy * S + ky;                                                                                 \
        rows[ky] = iy >= job->pad_top && iy - job->pad_top < job->in_h ? job->input + (iy - job->pad_top) * job->in_w * C \
                                                                       : job->zeros;                             \
    }                                                                                                            \
    float *out_row = PVK_DW_OUT_ROW;

// Where a depthwise task writes its output row (the fused depthwise-pointwise task writes to a scratch row).
#define PVK_DW_OUT_ROW job->output + oy * job->out_w * C

// The channel blocks [CB_BEGIN, CB_END) in steps of W.
#define PVK_DW_BLOCKS(V, W, LOAD, ZERO, SET1, FMA, MAX, MIN, STORE, NX, CB_BEGIN, CB_END)                       \
    for (size_t cb = CB_BEGIN; cb < CB_END; cb += W) {                                                           \
        const V lo = SET1(job->lo), hi = SET1(job->hi);                                                          \
        V w[KSIZE * KSIZE];                                                                                      \
        for (size_t kx = 0; kx < K; kx++)                                                                        \
            for (size_t ky = 0; ky < K; ky++) w[kx * K + ky] = LOAD(job->weights + (ky * K + kx) * C + cb);      \
        const V b = job->bias ? LOAD(job->bias + cb) : ZERO();                                                   \
        size_t ox = job->x_begin;                                                                                \
        for (; ox + NX <= job->x_end; ox += NX) {                                                                \
            V a[NX];                                                                                             \
            for (size_t j = 0; j < NX; j++) a[j] = b;                                                            \
            const size_t base = ((ox * S - job->pad_left) * C) + cb;                                             \
            for (size_t kx = 0; kx < K; kx++)                                                                    \
                for (size_t ky = 0; ky < K; ky++) {                                                              \
                    const float *p = rows[ky] + base + kx * C;                                                   \
                    for (size_t j = 0; j < NX; j++) a[j] = FMA(LOAD(p + j * S * C), w[kx * K + ky], a[j]);       \
                }                                                                                                \
            for (size_t j = 0; j < NX; j++) STORE(out_row + (ox + j) * C + cb, MIN(MAX(a[j], lo), hi));          \
        }                                                                                                        \
        /* The rest (edge pixels and the interior's last < NX), NX at a time, the last group repeating   \
           its last pixel: taps left or right of the image read the zero row, so they multiply zero     \
           as XNNPACK's padding does. */                                                                 \
        const size_t edges = job->out_w - (ox - job->x_begin);                                           \
        for (size_t e0 = 0; e0 < edges; e0 += NX) {                                                      \
            size_t xs[NX];                                                                               \
            for (size_t j = 0; j < NX; j++) {                                                            \
                size_t e = e0 + j < edges ? e0 + j : edges - 1;                                          \
                xs[j] = e < job->x_begin ? e : e - job->x_begin + ox;                                    \
            }                                                                                            \
            V a[NX];                                                                                     \
            for (size_t j = 0; j < NX; j++) a[j] = b;                                                    \
            for (size_t kx = 0; kx < K; kx++) {                                                          \
                size_t offset[NX];                                                                       \
                int inside[NX];                                                                          \
                for (size_t j = 0; j < NX; j++) {                                                        \
                    const size_t ix = xs[j] * S + kx;                                                    \
                    inside[j] = ix >= job->pad_left && ix - job->pad_left < job->in_w;                   \
                    offset[j] = inside[j] ? (ix - job->pad_left) * C + cb : cb;                          \
                }                                                                                        \
                for (size_t ky = 0; ky < K; ky++)                                                        \
                    for (size_t j = 0; j < NX; j++)                                                      \
                        a[j] = FMA(LOAD((inside[j] ? rows[ky] : job->zeros) + offset[j]), w[kx * K + ky], a[j]); \
            }                                                                                            \
            for (size_t j = 0; j < NX; j++) STORE(out_row + xs[j] * C + cb, MIN(MAX(a[j], lo), hi));    \
        }                                                                                                \
    }

// AVX-512: whole 16-channel blocks, then a last block of 8 channels (when C is an odd multiple of 8)
// with masked loads and stores, so nothing outside the tensors is read or written.
#define PVK_LOAD8(p) _mm512_maskz_loadu_ps(0xFF, (p))
#define PVK_STORE8(p, v) _mm512_mask_storeu_ps((p), 0xFF, (v))
#define PVK_DW_WIDE_BODY(NX)                                                                                     \
    PVK_DW_ROWS                                                                                                  \
    PVK_DW_BLOCKS(__m512, 16, _mm512_loadu_ps, _mm512_setzero_ps, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_max_ps, \
                  _mm512_min_ps, _mm512_storeu_ps, NX, 0, C / 16 * 16)                                           \
    PVK_DW_BLOCKS(__m512, 16, PVK_LOAD8, _mm512_setzero_ps, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_max_ps,      \
                  _mm512_min_ps, PVK_STORE8, NX, C / 16 * 16, C)
#define PVK_DW_FAST_BODY(NX)                                                                                     \
    PVK_DW_ROWS                                                                                                  \
    PVK_DW_BLOCKS(__m256, 8, _mm256_loadu_ps, _mm256_setzero_ps, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_max_ps, \
                  _mm256_min_ps, _mm256_storeu_ps, NX, 0, C)

// One task function per (ISA, K, stride); the tap loops unroll with K and the weights stay in registers.
#define PVK_DW_TASKS(KS, ST, NXW, NXF)                                                                 \
    PVK_WIDE static void pvk_dw_wide_##KS##_##ST(void *context, size_t oy) {                             \
        const pvk_dw_job *job = context;                                                                 \
        enum { KSIZE = KS, STRIDE = ST };                                                                \
        PVK_DW_WIDE_BODY(NXW)                                                                            \
    }                                                                                                    \
    PVK_FAST static void pvk_dw_fast_##KS##_##ST(void *context, size_t oy) {                             \
        const pvk_dw_job *job = context;                                                                 \
        enum { KSIZE = KS, STRIDE = ST };                                                                \
        PVK_DW_FAST_BODY(NXF)                                                                            \
    }
PVK_DW_TASKS(3, 1, 8, 4)
PVK_DW_TASKS(3, 2, 8, 4)
PVK_DW_TASKS(5, 1, 4, 4)
PVK_DW_TASKS(5, 2, 4, 4)
#endif

int pvk_depthwise_level(size_t channels, size_t kernel, size_t stride, int max_level) {
    if ((kernel != 3 && kernel != 5) || (stride != 1 && stride != 2) || channels == 0) return 0;
    int level = pvk_level() < max_level ? pvk_level() : max_level;
    return channels % 8 == 0 ? level : 0;
}

int pvk_depthwise(const float *input, float *output, size_t in_h, size_t in_w, size_t channels, size_t out_h,
                  size_t out_w, size_t kernel, size_t stride, size_t pad_top, size_t pad_left, const float *weights,
                  const float *bias, const float *zeros, float output_min, float output_max, int max_level,
                  pthreadpool_t pool) {
    int level = pvk_depthwise_level(channels, kernel, stride, max_level);
    if (level == 0 || out_h == 0 || out_w == 0 || !zeros) return 0;
#if defined(__x86_64__)
    pvk_dw_job job = pvk_dw_make_job(input, output, in_h, in_w, channels, out_h, out_w, kernel, stride, pad_top,
                                     pad_left, weights, bias, zeros, output_min, output_max);
    void (*task)(void *, size_t);
    int k5 = kernel == 5, s2 = stride == 2;
    if (level == 2)
        task = k5 ? (s2 ? pvk_dw_wide_5_2 : pvk_dw_wide_5_1) : (s2 ? pvk_dw_wide_3_2 : pvk_dw_wide_3_1);
    else
        task = k5 ? (s2 ? pvk_dw_fast_5_2 : pvk_dw_fast_5_1) : (s2 ? pvk_dw_fast_3_2 : pvk_dw_fast_3_1);
    pvk_parallelize(pool, task, &job, out_h);
    return level;
#else
    return 0;
#endif
}

// 1×1 convolution with AVX-512 register tiles: `MR` pixels × `NV` 16-channel vectors of one output chunk
// accumulate in registers. Each output starts from its bias and takes the input channels in order, one fused
// multiply-add each, as XNNPACK's GEMM kernels do, so the results are bit-identical to XNNPACK's; a residual
// (a following ADD), a PReLU and the clamp are applied before the single store. Weights are packed by
// `pvk_pointwise_pack`: output chunks of 64, 48, 32, 16 or 8 channels, each [input channel][chunk width].
#if defined(__x86_64__)
typedef float pvk_v16 __attribute__((vector_size(64)));
typedef float pvk_v8w __attribute__((vector_size(32)));
typedef int pvk_i16 __attribute__((vector_size(64)));
typedef int pvk_i8w __attribute__((vector_size(32)));

// Output chunk widths, widest first, whose register tiles were fastest on the models' layer shapes.
static size_t pvk_chunk_width(size_t remaining) {
    return remaining >= 64 ? 64 : remaining >= 48 ? 48 : remaining >= 32 ? 32 : remaining >= 16 ? 16 : 8;
}

#define PVK_PW_TILE(NAME, V, VI, VW, MR, NV)                                                                      \
    PVK_WIDE static void NAME(const float *in, size_t in_c, const float *w, const float *b, const float *res,      \
                              const float *slopes, float *out, size_t out_c, float lo, float hi) {                \
        V acc[MR][NV];                                                                                             \
        for (int j = 0; j < NV; j++) {                                                                             \
            V bj;                                                                                                  \
            memcpy(&bj, b + VW * j, sizeof bj);                                                                    \
            for (int m = 0; m < MR; m++) acc[m][j] = bj;                                                           \
        }                                                                                                          \
        for (size_t k = 0; k < in_c; k++) {                                                                        \
            V wk[NV];                                                                                              \
            memcpy(wk, w + k * NV * VW, sizeof wk);                                                                \
            for (int m = 0; m < MR; m++) {                                                                         \
                const float a = in[m * in_c + k];                                                                  \
                for (int j = 0; j < NV; j++) acc[m][j] += a * wk[j];                                               \
            }                                                                                                      \
        }                                                                                                          \
        V vlo, vhi;                                                                                                \
        for (int i = 0; i < VW; i++) { vlo[i] = lo; vhi[i] = hi; }                                                 \
        for (int m = 0; m < MR; m++)                                                                               \
            for (int j = 0; j < NV; j++) {                                                                         \
                V r = acc[m][j];                                                                                   \
                if (res) {                                                                                         \
                    V q;                                                                                           \
                    memcpy(&q, res + m * out_c + VW * j, sizeof q);                                                \
                    r += q;                                                                                        \
                }                                                                                                  \
                if (slopes) { /* PReLU as XNNPACK computes it: x·slope where x < 0, else x unchanged */            \
                    V sl;                                                                                          \
                    memcpy(&sl, slopes + VW * j, sizeof sl);                                                       \
                    const VI negative = r < 0;                                                                     \
                    r = (V)((negative & (VI)(r * sl)) | (~negative & (VI)r));                                      \
                }                                                                                                  \
                r = __builtin_elementwise_min(__builtin_elementwise_max(r, vlo), vhi);                             \
                memcpy(out + m * out_c + VW * j, &r, sizeof r);                                                    \
            }                                                                                                      \
    }

PVK_PW_TILE(pvk_pw_4x64, pvk_v16, pvk_i16, 16, 4, 4)
PVK_PW_TILE(pvk_pw_1x64, pvk_v16, pvk_i16, 16, 1, 4)
PVK_PW_TILE(pvk_pw_6x48, pvk_v16, pvk_i16, 16, 6, 3)
PVK_PW_TILE(pvk_pw_1x48, pvk_v16, pvk_i16, 16, 1, 3)
PVK_PW_TILE(pvk_pw_6x32, pvk_v16, pvk_i16, 16, 6, 2)
PVK_PW_TILE(pvk_pw_1x32, pvk_v16, pvk_i16, 16, 1, 2)
PVK_PW_TILE(pvk_pw_8x16, pvk_v16, pvk_i16, 16, 8, 1)
PVK_PW_TILE(pvk_pw_1x16, pvk_v16, pvk_i16, 16, 1, 1)
PVK_PW_TILE(pvk_pw_8x8, pvk_v8w, pvk_i8w, 8, 8, 1)
PVK_PW_TILE(pvk_pw_1x8, pvk_v8w, pvk_i8w, 8, 1, 1)

typedef void (*pvk_pw_tile_fn)(const float *, size_t, const float *, const float *, const float *, const float *,
                               float *, size_t, float, float);

typedef struct {
    const float *input, *packed, *bias, *residual, *slopes;
    float *output;
    size_t pixels, in_c, out_c;
    float lo, hi;
} pvk_pw_job;

// Pixels per task: a block of input rows stays in the level-1 cache while every output chunk passes over it.
#define PVK_PW_BLOCK 48

// Pixels [p0, p1) of `job`, reading them from `input` (pixel p0's first channel) instead of `job->input`.
PVK_INLINE void pvk_pw_span(const pvk_pw_job *job, const float *input, size_t p0, size_t p1) {
    const size_t in_c = job->in_c, out_c = job->out_c;
    for (size_t o = 0; o < out_c;) {
        const size_t width = pvk_chunk_width(out_c - o);
        pvk_pw_tile_fn tile, single;
        size_t mr;
        switch (width) {
        case 64: tile = pvk_pw_4x64; single = pvk_pw_1x64; mr = 4; break;
        case 48: tile = pvk_pw_6x48; single = pvk_pw_1x48; mr = 6; break;
        case 32: tile = pvk_pw_6x32; single = pvk_pw_1x32; mr = 6; break;
        case 16: tile = pvk_pw_8x16; single = pvk_pw_1x16; mr = 8; break;
        default: tile = pvk_pw_8x8; single = pvk_pw_1x8; mr = 8; break;
        }
        const float *w = job->packed + o * in_c, *b = job->bias + o, *sl = job->slopes ? job->slopes + o : NULL;
        size_t p = p0;
        for (; p + mr <= p1; p += mr)
            tile(input + (p - p0) * in_c, in_c, w, b, job->residual ? job->residual + p * out_c + o : NULL, sl,
                 job->output + p * out_c + o, out_c, job->lo, job->hi);
        for (; p < p1; p++)
            single(input + (p - p0) * in_c, in_c, w, b, job->residual ? job->residual + p * out_c + o : NULL, sl,
                   job->output + p * out_c + o, out_c, job->lo, job->hi);
        o += width;
    }
}

static void pvk_pw_task(void *context, size_t block) {
    const pvk_pw_job *job = context;
    const size_t p0 = block * PVK_PW_BLOCK;
    const size_t p1 = p0 + PVK_PW_BLOCK < job->pixels ? p0 + PVK_PW_BLOCK : job->pixels;
    pvk_pw_span(job, job->input + p0 * job->in_c, p0, p1);
}

// A depthwise convolution whose output only a 1×1 convolution reads, fused: each task computes one depthwise
// output row into a scratch row on its stack (it stays in the level-1 cache) and runs the 1×1 convolution
// over it at once, so the depthwise output never reaches memory. The arithmetic is that of the two kernels.
typedef struct {
    pvk_dw_job dw;
    pvk_pw_job pw;
} pvk_dwpw_job;

#undef PVK_DW_OUT_ROW
#define PVK_DW_OUT_ROW scratch
#define PVK_DWPW_TASK(KS, ST, NXW)                                                                     \
    PVK_WIDE static void pvk_dwpw_##KS##_##ST(void *context, size_t oy) {                               \
        const pvk_dwpw_job *fused = context;                                                             \
        const pvk_dw_job *job = &fused->dw;                                                              \
        enum { KSIZE = KS, STRIDE = ST };                                                                \
        float scratch[PVK_DWPW_SCRATCH] __attribute__((aligned(64)));                                    \
        PVK_DW_WIDE_BODY(NXW)                                                                            \
        pvk_pw_span(&fused->pw, scratch, oy * job->out_w, (oy + 1) * job->out_w);                        \
    }
PVK_DWPW_TASK(3, 1, 8)
PVK_DWPW_TASK(3, 2, 8)
PVK_DWPW_TASK(5, 1, 4)
PVK_DWPW_TASK(5, 2, 4)
#endif

int pvk_pointwise_supported(size_t input_channels, size_t output_channels) {
#if defined(__x86_64__)
    return pvk_level() == 2 && input_channels > 0 && output_channels > 0 && output_channels % 8 == 0;
#else
    (void)input_channels;
    (void)output_channels;
    return 0;
#endif
}

void pvk_pointwise_pack(const float *weights, const float *bias, size_t input_channels, size_t output_channels,
                        float *packed, float *packed_bias) {
#if defined(__x86_64__)
    for (size_t o = 0; o < output_channels;) {
        const size_t width = pvk_chunk_width(output_channels - o);
        for (size_t k = 0; k < input_channels; k++)
            for (size_t j = 0; j < width; j++)
                packed[o * input_channels + k * width + j] = weights[(o + j) * input_channels + k];
        o += width;
    }
#else
    memcpy(packed, weights, input_channels * output_channels * sizeof(float));
#endif
    for (size_t o = 0; o < output_channels; o++) packed_bias[o] = bias ? bias[o] : 0;
}

int pvk_pointwise(const float *input, float *output, size_t pixels, size_t input_channels, size_t output_channels,
                  const float *packed, const float *packed_bias, const float *residual, const float *slopes,
                  float output_min, float output_max, pthreadpool_t pool) {
#if defined(__x86_64__)
    if (!pvk_pointwise_supported(input_channels, output_channels)) return 0;
    pvk_pw_job job = {input, packed, packed_bias, residual, slopes, output, pixels, input_channels, output_channels,
                      output_min, output_max};
    pvk_parallelize(pool, pvk_pw_task, &job, (pixels + PVK_PW_BLOCK - 1) / PVK_PW_BLOCK);
    return 1;
#else
    (void)input; (void)output; (void)pixels; (void)input_channels; (void)output_channels; (void)packed;
    (void)packed_bias; (void)residual; (void)slopes; (void)output_min; (void)output_max; (void)pool;
    return 0;
#endif
}

int pvk_depthwise_pointwise(const float *input, float *output, size_t in_h, size_t in_w, size_t channels,
                            size_t out_h, size_t out_w, size_t kernel, size_t stride, size_t pad_top, size_t pad_left,
                            const float *dw_weights, const float *dw_bias, const float *zeros, float dw_min,
                            float dw_max, size_t output_channels, const float *packed, const float *packed_bias,
                            const float *residual, const float *slopes, float output_min, float output_max,
                            pthreadpool_t pool) {
#if defined(__x86_64__)
    if (pvk_depthwise_level(channels, kernel, stride, 2) != 2 || !pvk_pointwise_supported(channels, output_channels) ||
        out_w * channels > PVK_DWPW_SCRATCH || out_h == 0 || out_w == 0 || !zeros)
        return 0;
    pvk_dwpw_job job = {
        pvk_dw_make_job(input, NULL, in_h, in_w, channels, out_h, out_w, kernel, stride, pad_top, pad_left, dw_weights,
                        dw_bias, zeros, dw_min, dw_max),
        {NULL, packed, packed_bias, residual, slopes, output, out_h * out_w, channels, output_channels, output_min,
         output_max}};
    int k5 = kernel == 5, s2 = stride == 2;
    void (*task)(void *, size_t) = k5 ? (s2 ? pvk_dwpw_5_2 : pvk_dwpw_5_1) : (s2 ? pvk_dwpw_3_2 : pvk_dwpw_3_1);
    pvk_parallelize(pool, task, &job, out_h);
    return 1;
#else
    (void)input; (void)output; (void)in_h; (void)in_w; (void)channels; (void)out_h; (void)out_w; (void)kernel;
    (void)stride; (void)pad_top; (void)pad_left; (void)dw_weights; (void)dw_bias; (void)zeros; (void)dw_min;
    (void)dw_max; (void)output_channels; (void)packed; (void)packed_bias; (void)residual; (void)slopes;
    (void)output_min; (void)output_max; (void)pool;
    return 0;
#endif
}
