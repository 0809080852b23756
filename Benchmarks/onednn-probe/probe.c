// The alternative back end, measured: oneDNN 2.6 (Debian's libdnnl-dev) against our C kernels on the
// layers that dominate pose_landmark_full and palm_detection_full (NHWC, fp32, one thread, best of 5×20 runs).
// Not part of the package; see run.sh.
#include <dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "CInferenceKernels.h"
#define CHECK(x) do { dnnl_status_t s = (x); if (s != dnnl_success) { printf("failed: %s (status %d)\n", #x, s); exit(1); } } while (0)
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static double dnnl_conv(dnnl_engine_t eng, dnnl_stream_t st, int H, int W, int IC, int OC, int K, int groups) {
    dnnl_dims_t src = {1, IC, H, W}, dst = {1, OC, H, W}, strides = {1, 1}, pad = {K / 2, K / 2}, bias = {OC};
    dnnl_memory_desc_t sd, dd, wd, bd;
    CHECK(dnnl_memory_desc_init_by_tag(&sd, 4, src, dnnl_f32, dnnl_nhwc));
    CHECK(dnnl_memory_desc_init_by_tag(&dd, 4, dst, dnnl_f32, dnnl_nhwc));
    CHECK(dnnl_memory_desc_init_by_tag(&bd, 1, bias, dnnl_f32, dnnl_a));
    if (groups > 1) { dnnl_dims_t w = {groups, OC / groups, IC / groups, K, K}; CHECK(dnnl_memory_desc_init_by_tag(&wd, 5, w, dnnl_f32, dnnl_format_tag_any)); }
    else { dnnl_dims_t w = {OC, IC, K, K}; CHECK(dnnl_memory_desc_init_by_tag(&wd, 4, w, dnnl_f32, dnnl_format_tag_any)); }
    dnnl_convolution_desc_t cd;
    CHECK(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct, &sd, &wd, &bd, &dd, strides, pad, pad));
    dnnl_primitive_desc_t pd; CHECK(dnnl_primitive_desc_create(&pd, &cd, NULL, eng, NULL));
    const char *impl; dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    const dnnl_memory_desc_t *wq = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    dnnl_memory_t ms, md, mw, mb;
    CHECK(dnnl_memory_create(&ms, &sd, eng, DNNL_MEMORY_ALLOCATE)); CHECK(dnnl_memory_create(&md, &dd, eng, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_create(&mw, wq, eng, DNNL_MEMORY_ALLOCATE)); CHECK(dnnl_memory_create(&mb, &bd, eng, DNNL_MEMORY_ALLOCATE));
    dnnl_primitive_t p; CHECK(dnnl_primitive_create(&p, pd));
    dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_BIAS, mb}, {DNNL_ARG_DST, md}};
    for (int i = 0; i < 5; i++) CHECK(dnnl_primitive_execute(p, st, 4, args));
    dnnl_stream_wait(st);
    double best = 1e9;
    for (int r = 0; r < 5; r++) { double t0 = now(); for (int i = 0; i < 20; i++) dnnl_primitive_execute(p, st, 4, args); dnnl_stream_wait(st); double t = (now() - t0) / 20; if (t < best) best = t; }
    printf("  oneDNN implementation: %s\n", impl);
    return best * 1e3;
}
int main() {
    dnnl_engine_t eng; CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    dnnl_stream_t st; CHECK(dnnl_stream_create(&st, eng, dnnl_stream_default_flags));
    size_t H = 256, W = 256, C = 8;
    float *in = aligned_alloc(64, H*W*C*4), *out = aligned_alloc(64, H*W*C*4), *w = calloc(9*C*8, 4), *b = calloc(8, 4), *ex = aligned_alloc(64, 9*W*C*4);
    for (size_t i = 0; i < H*W*C; i++) in[i] = (i % 13) * 0.1f;
    pvk_expand_taps(w, W, C, ex);
    double best[3] = {1e9, 1e9, 1e9};
    for (int r = 0; r < 5; r++) {
        double t0 = now(); for (int i = 0; i < 20; i++) pvk_depthwise3x3(in, out, H, W, C, w, b, ex, 0, 6, NULL);
        double t1 = now(); for (int i = 0; i < 20; i++) pvk_conv3x3_to1(in, out, H, W, C, w, 0, ex, 0, 6, NULL);
        double t2 = now(); for (int i = 0; i < 20; i++) pvk_conv1x1(in, out, H*W, 8, 8, w, b, 0, 6, NULL);
        double t3 = now();
        double t[3] = {(t1-t0)/20, (t2-t1)/20, (t3-t2)/20};
        for (int k = 0; k < 3; k++) if (t[k] < best[k]) best[k] = t[k];
    }
    printf("dw 3x3 256x256x8:  ours %.3f ms\n", best[0]*1e3); printf("  oneDNN %.3f ms\n", dnnl_conv(eng, st, 256, 256, 8, 8, 3, 8));
    printf("conv 3x3 8->1:     ours %.3f ms\n", best[1]*1e3); printf("  oneDNN %.3f ms\n", dnnl_conv(eng, st, 256, 256, 8, 1, 3, 1));
    printf("conv 1x1 8->8:     ours %.3f ms\n", best[2]*1e3); printf("  oneDNN %.3f ms\n", dnnl_conv(eng, st, 256, 256, 8, 8, 1, 1));
    printf("dw 5x5 96x96x32:   oneDNN %.3f ms\n", dnnl_conv(eng, st, 96, 96, 32, 32, 5, 32));
    printf("conv 1x1 48x48 64->64: oneDNN %.3f ms\n", dnnl_conv(eng, st, 48, 48, 64, 64, 1, 1));
}
