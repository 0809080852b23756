#!/usr/bin/env python3
"""Peer side of `peoplevision bench inference`: times the stock LiteRT (TensorFlow Lite)
interpreter on MediaPipe's models.

    python tflite_bench.py --models-dir DIR --threads N --iterations K --warmup W [--json] MODEL ...

MODEL is a model file name without `.tflite`. Each model gets `ai_edge_litert` Interpreter(
num_threads=N) with default settings (XNNPACK delegate), the SplitMix64 random input of
Tests/Fixtures/README.md (seed 1, the model's range), W warm-up and K timed `invoke()` calls.
With --json, one JSON object per model and line:
{"model": ..., "threads": N, "median_ms": ..., "min_ms": ..., "mean_ms": ...}.

The selfie segmentation models contain MediaPipe's custom op Convolution2DTransposeBias,
which the stock interpreter cannot resolve: their graph runs cut before the op, and the numpy
tail (the op and the LOGISTIC after it, see tflite_common.py) is timed separately, W + K times,
and added statistic by statistic; their JSON has a "note" saying so.
Requirements: requirements-tflite.txt beside this file.
"""

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

import tflite_common as tc
from peer_timing import timed




def bench(models_dir, name, threads, iterations, warmup):
    lo, hi = tc.MODEL_RANGES.get(name, (0.0, 1.0))
    pm = tc.PeerModel(Path(models_dir) / f"{name}.tflite", threads=threads)
    pm.set_input(tc.splitmix64_input([int(d) for d in pm.input["shape"]], 1, lo, hi))
    head = timed(pm.invoke, warmup, iterations)
    result = {"model": name, "threads": threads,
              "median_ms": statistics.median(head), "min_ms": min(head), "mean_ms": statistics.fmean(head)}
    if pm.tail:
        head_values = pm.head_values()
        tail = timed(lambda: pm.finish(dict(head_values)), warmup, iterations)
        result["median_ms"] += statistics.median(tail)
        result["min_ms"] += min(tail)
        result["mean_ms"] += statistics.fmean(tail)
        result["note"] = (
            f"{tc.CUSTOM_OP} is a MediaPipe custom op: interpreter time of the graph cut before it "
            f"(median {statistics.median(head):.3f} ms) plus the numpy tail "
            f"({', '.join(pm.tail_ops).replace('CUSTOM:', '')}; median {statistics.median(tail):.3f} ms), "
            "timed separately and added per statistic")
    for key in ("median_ms", "min_ms", "mean_ms"):
        result[key] = round(result[key], 4)
    return result


def main():
    parser = argparse.ArgumentParser(description="Time the stock LiteRT interpreter on .tflite models.")
    parser.add_argument("--models-dir", default=os.environ.get(
        "PEOPLEVISION_MODELS", str(Path.home() / ".cache" / "peoplevision" / "models")))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("models", nargs="+", metavar="MODEL")
    args = parser.parse_args()
    if args.threads < 1 or args.iterations < 1 or args.warmup < 0:
        parser.error("need --threads >= 1, --iterations >= 1, --warmup >= 0")
    failed = False
    for name in args.models:
        name = name.removesuffix(".tflite")
        try:
            result = bench(args.models_dir, name, args.threads, args.iterations, args.warmup)
        except Exception as error:  # report and go on with the other models
            failed = True
            result = {"model": name, "threads": args.threads, "error": f"{type(error).__name__}: {error}"}
        if args.json:
            print(json.dumps(result), flush=True)
        elif "error" in result:
            print(f"{name:34} error: {result['error']}", flush=True)
        else:
            print(f"{name:34} {args.threads} thr  median {result['median_ms']:9.3f} ms  "
                  f"min {result['min_ms']:9.3f} ms  mean {result['mean_ms']:9.3f} ms", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
