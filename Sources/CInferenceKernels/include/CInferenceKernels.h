// Convolution kernels for the layer shapes the Debian XNNPACK build runs slowly: few-channel
// 3×3 depthwise and 3×3 → one-channel convolutions over large images, and 1×1 convolutions with
// few channels. Tensors are NHWC float32 with batch 1; rows are split over the pthreadpool
// (NULL = the calling thread). Each kernel picks an AVX2+FMA version at run time when the CPU has it.
#ifndef CINFERENCEKERNELS_H
#define CINFERENCEKERNELS_H

#include <stddef.h>
#include <pthreadpool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// 3×3 depthwise convolution, stride 1, one pixel of zero padding on every side, multiplier 1.
/// `weights`: [3][3][channels] (TFLite's [1, 3, 3, C]); `bias`: [channels].
/// `expanded`: 9 × width × channels floats, tap t's weights repeated along a row (from
/// pvk_expand_taps), so the interior of a row is one element-wise pass per tap.
void pvk_depthwise3x3(const float *input, float *output, size_t height, size_t width, size_t channels,
                      const float *weights, const float *bias, const float *expanded,
                      float output_min, float output_max, pthreadpool_t pool);

/// 3×3 convolution to one output channel, stride 1, one pixel of zero padding on every side.
/// `weights`: [3][3][channels] (TFLite's [1, 3, 3, C]); `bias`: one value; `expanded` as above.
void pvk_conv3x3_to1(const float *input, float *output, size_t height, size_t width, size_t channels,
                     const float *weights, float bias, const float *expanded,
                     float output_min, float output_max, pthreadpool_t pool);

/// 1×1 convolution: output[p][o] = bias[o] + Σ input[p][i] · weights[o][i] (TFLite's [O, 1, 1, I]).
/// `output_channels` must be a multiple of 8 and `input_channels` at most 64.
void pvk_conv1x1(const float *input, float *output, size_t pixels, size_t input_channels, size_t output_channels,
                 const float *weights, const float *bias, float output_min, float output_max, pthreadpool_t pool);

/// Depthwise `kernel`×`kernel` convolution (3 or 5), stride 1 or 2, multiplier 1, dilation 1, zero padding
/// `pad_top`/`pad_left` (the bottom and right padding follow from the output size). `weights`:
/// [kernel][kernel][channels] (TFLite's [1, K, K, C]); `bias`: [channels] or NULL. Bit-identical to
/// XNNPACK's depthwise kernels (same tap order, one fused multiply-add chain per output).
/// `channels` must be a multiple of 8. Runs with AVX-512 or AVX2+FMA as the CPU has them, never above
/// `max_level` (1 = AVX2, 2 = AVX-512). `zeros`: at least `in_w × channels` zero floats, read for the
/// padding rows and columns (the caller keeps one per layer, so nothing is allocated per run).
/// Returns the level used, or 0 with the output untouched when the shape or the CPU is not supported.
int pvk_depthwise(const float *input, float *output, size_t in_h, size_t in_w, size_t channels, size_t out_h,
                  size_t out_w, size_t kernel, size_t stride, size_t pad_top, size_t pad_left, const float *weights,
                  const float *bias, const float *zeros, float output_min, float output_max, int max_level,
                  pthreadpool_t pool);

/// The level `pvk_depthwise` would run these parameters at on this CPU (0 = not supported).
int pvk_depthwise_level(size_t channels, size_t kernel, size_t stride, int max_level);

/// Whether `pvk_pointwise` runs these channel counts on this CPU (AVX-512, output channels a multiple of 8).
int pvk_pointwise_supported(size_t input_channels, size_t output_channels);

/// Packs TFLite's [O, 1, 1, I] 1×1 weights (`input_channels × output_channels` floats into `packed`) and the bias
/// (`output_channels` floats into `packed_bias`; zeros when `bias` is NULL) for `pvk_pointwise`.
void pvk_pointwise_pack(const float *weights, const float *bias, size_t input_channels, size_t output_channels,
                        float *packed, float *packed_bias);

/// 1×1 convolution, optionally followed by the addition of `residual` (same shape as the output, or NULL) and a
/// PReLU with per-channel `slopes` (or NULL): output[p][o] = clamp(prelu(bias[o] + Σ_i input[p][i] · weights[o][i]
/// (+ residual[p][o]))), each sum taken in input channel order with fused multiply-adds, bit-identical to XNNPACK's
/// convolution followed by its ADD and PRELU. Returns 0 with the output untouched when `pvk_pointwise_supported`
/// is false.
int pvk_pointwise(const float *input, float *output, size_t pixels, size_t input_channels, size_t output_channels,
                  const float *packed, const float *packed_bias, const float *residual, const float *slopes,
                  float output_min, float output_max, pthreadpool_t pool);

/// Most floats of one depthwise output row (`out_w × channels`) `pvk_depthwise_pointwise` fuses (its scratch row).
#define PVK_DWPW_SCRATCH 16384

/// `pvk_depthwise` (AVX-512 level) followed by `pvk_pointwise` on its output, fused row by row so that the
/// depthwise output is never stored: the same arithmetic, so the same results as the two calls. Returns 0 with the
/// output untouched when either kernel would refuse its part or a depthwise row exceeds `PVK_DWPW_SCRATCH` floats.
int pvk_depthwise_pointwise(const float *input, float *output, size_t in_h, size_t in_w, size_t channels,
                            size_t out_h, size_t out_w, size_t kernel, size_t stride, size_t pad_top, size_t pad_left,
                            const float *dw_weights, const float *dw_bias, const float *zeros, float dw_min,
                            float dw_max, size_t output_channels, const float *packed, const float *packed_bias,
                            const float *residual, const float *slopes, float output_min, float output_max,
                            pthreadpool_t pool);

/// Fills `expanded` (9 × width × channels floats) from [3][3][channels] weights.
void pvk_expand_taps(const float *weights, size_t width, size_t channels, float *expanded);

#ifdef __cplusplus
}
#endif

#endif
