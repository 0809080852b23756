#include "CImageKernels.h"


void cimg_bilinear_rgba8(const uint8_t *restrict src, size_t src_stride, int src_height, uint8_t *restrict dst, size_t dst_stride,
                         int dst_width, int dst_height, const int32_t *x0ofs, const int32_t *x1ofs, const float *xw,
                         float scale_y) {
    for (int y = 0; y < dst_height; y++) {
        float fy = ((float)y + 0.5f) * scale_y - 0.5f;
        if (fy < 0) fy = 0;
        if (fy > (float)(src_height - 1)) fy = (float)(src_height - 1);
        int j = (int)fy;
        float ay = fy - (float)j;
        const uint8_t *r0 = src + (size_t)j * src_stride;
        const uint8_t *r1 = src + (size_t)(j + 1 < src_height ? j + 1 : src_height - 1) * src_stride;
        uint8_t *out = dst + (size_t)y * dst_stride;
        for (int x = 0; x < dst_width; x++) {
            const uint8_t *a0 = r0 + x0ofs[x], *a1 = r0 + x1ofs[x], *b0 = r1 + x0ofs[x], *b1 = r1 + x1ofs[x];
            float ax = xw[x];
            for (int c = 0; c < 4; c++) {
                float top = (float)a0[c] + ((float)a1[c] - (float)a0[c]) * ax;
                float bottom = (float)b0[c] + ((float)b1[c] - (float)b0[c]) * ax;
                float v = top + (bottom - top) * ay;
                out[4 * x + c] = (uint8_t)(v + 0.5f);  // v is within 0…255
            }
        }
    }
}
