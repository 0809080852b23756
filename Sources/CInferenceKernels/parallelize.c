#include "parallelize.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PVK_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define PVK_TSAN 1
#endif

#ifdef PVK_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

typedef struct {
    void (*task)(void *, size_t);
    void *context;
} pvk_tsan_job;

static void pvk_tsan_task(void *context, size_t i) {
    pvk_tsan_job *job = context;
    __tsan_acquire(job);  // ordered after the caller's writes
    job->task(job->context, i);
    __tsan_release(job);  // and before the caller's reads once the pool returns
}
#endif

void pvk_parallelize(pthreadpool_t pool, void (*task)(void *, size_t), void *context, size_t range) {
#ifdef PVK_TSAN
    pvk_tsan_job job = {task, context};
    __tsan_release(&job);
    pthreadpool_parallelize_1d(pool, pvk_tsan_task, &job, range, 0);
    __tsan_acquire(&job);
#else
    pthreadpool_parallelize_1d(pool, task, context, range, 0);
#endif
}
