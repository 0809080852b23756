#include "CAllocatorTuning.h"

#include <limits.h>  // defines __GLIBC__ on glibc systems

#if defined(__GLIBC__)
#include <malloc.h>

int pv_keep_large_blocks(size_t keep, size_t trim) {
    if (keep > INT_MAX || trim > INT_MAX) return 0;
    return mallopt(M_MMAP_THRESHOLD, (int)keep) == 1 && mallopt(M_TRIM_THRESHOLD, (int)trim) == 1;
}
#else
int pv_keep_large_blocks(size_t keep, size_t trim) {
    (void)keep;
    (void)trim;
    return 0;
}
#endif
