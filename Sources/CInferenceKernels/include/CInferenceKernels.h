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

/// Fills `expanded` (9 × width × channels floats) from [3][3][channels] weights.
void pvk_expand_taps(const float *weights, size_t width, size_t channels, float *expanded);

#ifdef __cplusplus
}
#endif

#endif
