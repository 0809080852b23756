#!/usr/bin/env python3
"""Peer side of `peoplevision bench segmentation`: times MediaPipe's selfie segmentation and a photo greeting.

    python segmentation_bench.py --images A.jpg B.jpg --iterations K --warmup W --background BG.jpg --out OUT_DIR

Each image (JPEGs written by the Swift side, e.g. 512x512 and 1920x1080) is decoded once with cv2.imread
and converted to RGB; then, with W untimed and K timed calls each (time.perf_counter_ns), prints one
JSON line {"op": ..., "width": W, "height": H, "median_ms": ...} per measurement:

- segment_ms0: mp.solutions.selfie_segmentation.SelfieSegmentation(model_selection=0).process(rgb)
               (the 256x256 "general" model). Decode excluded.
- segment_ms1: the same with model_selection=1 (the 144x256 "landscape" model). Decode excluded.
- greeting:    only for the largest image, the whole photo greeting as a Python user would write it,
               per iteration: cv2.imread(photo) and cv2.imread(background) -> cvtColor BGR->RGB ->
               SelfieSegmentation(model_selection=1).process (one long-lived instance, created outside
               the loop) -> segmentation_mask (float32, already the image's size; cv2.resize is a no-op
               guard) -> background cv2.resize'd to the image -> out = fg*m + bg*(1-m) in float32 with
               numpy, back to uint8 -> cv2.imencode('.jpg', out, [IMWRITE_JPEG_QUALITY, 90]) -> the
               bytes written to OUT_DIR/greeting-peer.jpg.
- video_greeting (with --video): the video greeting as a Python user writes it, per run: cv2.VideoCapture
               over the clip, per frame BGR->RGB, SelfieSegmentation(model_selection=1).process (one instance,
               as above), the numpy blend over the background resized once, cv2.VideoWriter('mp4v') to
               OUT_DIR/video-greeting-peer.mp4. Prints the median over --video-runs runs of the time per frame.

Each SelfieSegmentation runs in IMAGE mode (static_image_mode is not an option of this solution; the
graph has no temporal smoothing). MediaPipe uses its own TFLite + XNNPACK threads.
Requirements: requirements-segmentation.txt beside this file (own venv: mediapipe 0.10.21 needs numpy<2).
"""

import argparse
import json
import os
import statistics

import cv2
import mediapipe as mp
import numpy as np
from peer_timing import timed




def read(path):
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        raise SystemExit(f"cannot decode {path}")
    return img


def greeting(segmenter, photo_path, background_path, out_path):
    bgr = read(photo_path)
    h, w = bgr.shape[:2]
    rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    mask = segmenter.process(rgb).segmentation_mask
    if mask.shape[:2] != (h, w):
        mask = cv2.resize(mask, (w, h), interpolation=cv2.INTER_LINEAR)
    m = mask[:, :, None]
    bg = cv2.resize(read(background_path), (w, h), interpolation=cv2.INTER_LINEAR)
    out = (bgr.astype(np.float32) * m + bg.astype(np.float32) * (1.0 - m)).clip(0, 255).astype(np.uint8)
    ok, jpeg = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 90])
    if not ok:
        raise SystemExit("cv2.imencode failed")
    with open(out_path, "wb") as f:
        f.write(jpeg.tobytes())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--images", nargs="+", required=True)
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--background", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--video", default=None)
    ap.add_argument("--video-runs", type=int, default=3)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    selfie = mp.solutions.selfie_segmentation
    segmenters = {0: selfie.SelfieSegmentation(model_selection=0), 1: selfie.SelfieSegmentation(model_selection=1)}
    images = [(path, cv2.cvtColor(read(path), cv2.COLOR_BGR2RGB)) for path in args.images]
    for path, rgb in images:
        h, w = rgb.shape[:2]
        for selection, segmenter in segmenters.items():
            ms = statistics.median(timed(lambda: segmenter.process(rgb), args.warmup, args.iterations))
            print(json.dumps({"op": f"segment_ms{selection}", "width": w, "height": h, "median_ms": ms}), flush=True)

    path, rgb = max(images, key=lambda item: item[1].shape[0] * item[1].shape[1])
    h, w = rgb.shape[:2]
    out_path = os.path.join(args.out, "greeting-peer.jpg")
    ms = statistics.median(
        timed(lambda: greeting(segmenters[1], path, args.background, out_path), args.warmup, args.iterations))
    print(json.dumps({"op": "greeting", "width": w, "height": h, "median_ms": ms}), flush=True)

    if args.video:
        per_frame = []
        for _ in range(args.video_runs + 1):  # the first run warms up
            frames, ms = video_greeting(segmenters[1], args.video, args.background, os.path.join(args.out, "video-greeting-peer.mp4"))
            per_frame.append(ms / max(frames, 1))
        cap = cv2.VideoCapture(args.video)
        w, h = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
        cap.release()
        print(json.dumps({"op": "video_greeting", "width": w, "height": h, "median_ms": statistics.median(per_frame[1:]),
                          "frames": frames}), flush=True)


def video_greeting(segmenter, video_path, background_path, out_path):
    """Greets every frame of the clip; returns the frame count and the wall time in ms."""
    import time
    start = time.perf_counter_ns()
    cap = cv2.VideoCapture(video_path)
    if not cap.isOpened():
        raise SystemExit(f"cannot open {video_path}")
    fps = cap.get(cv2.CAP_PROP_FPS) or 30
    w, h = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
    bg = cv2.resize(read(background_path), (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    out = cv2.VideoWriter(out_path, cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
    frames = 0
    while True:
        ok, bgr = cap.read()
        if not ok:
            break
        mask = segmenter.process(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)).segmentation_mask
        m = mask[:, :, None]
        out.write((bgr.astype(np.float32) * m + bg * (1.0 - m)).clip(0, 255).astype(np.uint8))
        frames += 1
    cap.release()
    out.release()
    return frames, (time.perf_counter_ns() - start) / 1e6


if __name__ == "__main__":
    main()
