#!/usr/bin/env python3
"""Peer side of `peoplevision bench bodies`: times MediaPipe's Python pose and hands solutions.

    python bodies_bench.py --images A.png B.png --iterations K --warmup W

Each image (written by the Swift side) is decoded once with cv2.imread and converted to RGB; then, with W
untimed and K timed calls each (time.perf_counter_ns), prints one JSON line per image and solution:
{"op": "pose" | "hands", "image": PATH, "width": W, "height": H, "median_ms": ..., "found": N}

- pose:  mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1).process(rgb) — pose_detection +
         pose_landmark_full, one person at most (found = 0 or 1).
- hands: mp.solutions.hands.Hands(static_image_mode=True, max_num_hands=2, model_complexity=1).process(rgb) —
         palm_detection_full + hand_landmark_full on up to two hands.

One long-lived instance per solution (created outside the timed loop); static_image_mode runs the detectors on
every call, as PeopleVision's still-image requests do. Decode excluded on both sides. MediaPipe uses its own
TFLite + XNNPACK threads. Requirements: requirements-segmentation.txt (the mediapipe venv).
"""

import argparse
import json
import statistics

import cv2
import mediapipe as mp
from peer_timing import timed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--images", nargs="+", required=True)
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args()

    pose = mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1)
    hands = mp.solutions.hands.Hands(static_image_mode=True, max_num_hands=2, model_complexity=1)
    for path in args.images:
        bgr = cv2.imread(path, cv2.IMREAD_COLOR)
        if bgr is None:
            raise SystemExit(f"cannot decode {path}")
        rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
        h, w = rgb.shape[:2]
        found = 1 if pose.process(rgb).pose_landmarks is not None else 0
        ms = statistics.median(timed(lambda: pose.process(rgb), args.warmup, args.iterations))
        print(json.dumps({"op": "pose", "image": path, "width": w, "height": h, "median_ms": ms, "found": found}),
              flush=True)
        found = len(hands.process(rgb).multi_hand_landmarks or [])
        ms = statistics.median(timed(lambda: hands.process(rgb), args.warmup, args.iterations))
        print(json.dumps({"op": "hands", "image": path, "width": w, "height": h, "median_ms": ms, "found": found}),
              flush=True)


if __name__ == "__main__":
    main()
