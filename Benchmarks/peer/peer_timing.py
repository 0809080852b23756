"""Timing shared by the peer scripts of `peoplevision bench …`."""
import time


def timed(fn, warmup, iterations):
    """Runs fn `warmup` times untimed, then `iterations` times; returns the times in milliseconds."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iterations):
        start = time.perf_counter_ns()
        fn()
        times.append((time.perf_counter_ns() - start) / 1e6)
    return times
