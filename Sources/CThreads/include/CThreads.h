#ifndef CTHREADS_H
#define CTHREADS_H

#ifdef __cplusplus
extern "C" {
#endif

/// CPUs in the calling thread's affinity mask, or 0 where the system does not say.
int pvt_affinity_cpu_count(void);

#ifdef __cplusplus
}
#endif

#endif
