#!/usr/bin/env python3
"""Peer side of `peoplevision bench faces`: times MediaPipe's face detection and face mesh.

    python faces_bench.py --images A.jpg B.jpg --iterations K --warmup W

Each image (JPEGs written by the Swift side) is decoded once with cv2.imread and converted to RGB; then,
with W untimed and K timed calls each (time.perf_counter_ns), prints one JSON line
{"op": ..., "image": NAME, "width": W, "height": H, "median_ms": ..., "faces": N} per measurement:

- facedet0: mp.solutions.face_detection.FaceDetection(model_selection=0).process(rgb) (short range)
- facedet1: the same with model_selection=1 (full range)
- facemesh: mp.solutions.face_mesh.FaceMesh(static_image_mode=True, max_num_faces=5,
            refine_landmarks=False).process(rgb): short-range detection + face_landmark.tflite per face
- facemesh_refine: the same with refine_landmarks=True (the attention mesh, 478 points with irises)

static_image_mode makes the detector run on every call, as ours does. One long-lived solution object per
configuration; MediaPipe uses its own TFLite + XNNPACK threads. Decode is excluded.
Requirements: requirements-segmentation.txt beside this file (mediapipe 0.10.21, numpy<2, OpenCV).
"""

import argparse
import json
import os
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

    fd = mp.solutions.face_detection
    fm = mp.solutions.face_mesh
    solutions = {
        "facedet0": (fd.FaceDetection(model_selection=0, min_detection_confidence=0.5),
                     lambda r: len(r.detections or [])),
        "facedet1": (fd.FaceDetection(model_selection=1, min_detection_confidence=0.5),
                     lambda r: len(r.detections or [])),
        "facemesh": (fm.FaceMesh(static_image_mode=True, max_num_faces=5, refine_landmarks=False),
                     lambda r: len(r.multi_face_landmarks or [])),
        "facemesh_refine": (fm.FaceMesh(static_image_mode=True, max_num_faces=5, refine_landmarks=True),
                            lambda r: len(r.multi_face_landmarks or [])),
    }
    for path in args.images:
        bgr = cv2.imread(path, cv2.IMREAD_COLOR)
        if bgr is None:
            raise SystemExit(f"cannot decode {path}")
        rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
        h, w = rgb.shape[:2]
        for op, (solution, count) in solutions.items():
            faces = count(solution.process(rgb))
            ms = statistics.median(timed(lambda: solution.process(rgb), args.warmup, args.iterations))
            print(json.dumps({"op": op, "image": os.path.basename(path), "width": w, "height": h,
                              "median_ms": ms, "faces": faces}), flush=True)


if __name__ == "__main__":
    main()
