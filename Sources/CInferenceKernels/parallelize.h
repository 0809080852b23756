#ifndef PVK_PARALLELIZE_H
#define PVK_PARALLELIZE_H

#include <stddef.h>
#include <pthreadpool.h>

// Runs task(context, i) for every i in 0..<range on pool (NULL: the calling thread), as
// pthreadpool_parallelize_1d does; every kernel hands its rows to the pool through it.
//
// Debian's pthreadpool is not built with ThreadSanitizer, which therefore cannot see that a worker's task
// starts after the caller's writes (the pool publishes it through its own atomics and futexes) and ends
// before the pool returns: every row a worker reads or writes would be reported against the caller. Under
// ThreadSanitizer the tasks run through a wrapper that declares those two edges; other builds call the pool
// directly.
void pvk_parallelize(pthreadpool_t pool, void (*task)(void *, size_t), void *context, size_t range);

#endif
