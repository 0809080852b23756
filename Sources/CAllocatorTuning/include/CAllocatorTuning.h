#ifndef PV_ALLOCATOR_TUNING_H
#define PV_ALLOCATOR_TUNING_H

#include <stddef.h>

/// Keeps freed blocks up to `keep` bytes in the heap for reuse instead of returning them to the kernel, and
/// returns free heap memory only above `trim` bytes (glibc's mallopt M_MMAP_THRESHOLD and M_TRIM_THRESHOLD).
/// Returns 1 when both settings were taken, 0 otherwise (another C library: nothing to tune).
int pv_keep_large_blocks(size_t keep, size_t trim);

#endif
