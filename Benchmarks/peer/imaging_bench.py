#!/usr/bin/env python3
"""Peer side of `peoplevision bench imaging`: times OpenCV on the everyday imaging operations.

    python imaging_bench.py --image PATH --iterations K --warmup W --threads N

PATH is the 1920x1080 JPEG (quality 90) written by the Swift side. cv2.setNumThreads(N); each op
gets W untimed and K timed calls (time.perf_counter_ns) and prints one JSON line
{"op": ..., "median_ms": ...}:

- jpeg_decode: cv2.imdecode(file bytes, IMREAD_COLOR) -> BGR uint8
- jpeg_encode: cv2.imencode('.jpg', img, [IMWRITE_JPEG_QUALITY, 90]); OpenCV's defaults (4:2:0 chroma,
  standard Huffman tables) are also PeopleVision's at that quality, so both sides produce the same kind of file
- png_encode:  cv2.imencode('.png', img) with OpenCV's defaults (compression 1, run-length strategy)
- resize_256:  cv2.resize(img, (256, 256), interpolation=INTER_LINEAR)
- blend:       out = bg + m*(fg - bg), m = mask/255 from a uint8 single-channel mask of the image's
               size, as cv2.add(cv2.multiply(fg, m3, scale=1/255), cv2.multiply(bg, 255 - m3,
               scale=1/255)) with m3 = cv2.merge([mask]*3) and 255 - m3 = cv2.bitwise_not(m3), all
               inside the timed call. Each product is rounded to uint8, so the result is within
               1 LSB of the exact blend (as is cv2.blendLinear with float32 weights m/255 and
               1 - m/255, which measured ~1.6x slower than this on a 2-core x86-64 VM).
               fg is the decoded image, bg its mirror image, mask a soft radial ramp; the timing
               does not depend on the pixel values (no branches on them).

OpenCV works on 3-channel BGR; PeopleVision decodes to 4-channel RGBA, so its resize and blend
move a third more bytes.
Requirements: requirements-imaging.txt beside this file.
"""

import argparse
import json
import statistics

import cv2
import numpy as np
from peer_timing import timed




def blend(fg, bg, mask):
    m3 = cv2.merge([mask, mask, mask])
    return cv2.add(cv2.multiply(fg, m3, scale=1 / 255.0), cv2.multiply(bg, cv2.bitwise_not(m3), scale=1 / 255.0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--image", required=True)
    ap.add_argument("--iterations", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    cv2.setNumThreads(args.threads)

    with open(args.image, "rb") as f:
        data = np.frombuffer(f.read(), dtype=np.uint8)
    img = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if img is None:
        raise SystemExit(f"cannot decode {args.image}")
    h, w = img.shape[:2]
    bg = np.ascontiguousarray(cv2.flip(img, 1))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r = np.hypot((xx - w / 2) / (0.3 * w), (yy - h / 2) / (0.4 * h))
    mask = np.clip(255 * (1.5 - r), 0, 255).astype(np.uint8)

    ops = [
        ("jpeg_decode", lambda: cv2.imdecode(data, cv2.IMREAD_COLOR)),
        ("jpeg_encode", lambda: cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])),
        ("png_encode", lambda: cv2.imencode(".png", img)),
        ("resize_256", lambda: cv2.resize(img, (256, 256), interpolation=cv2.INTER_LINEAR)),
        ("blend", lambda: blend(img, bg, mask)),
    ]
    for name, fn in ops:
        ms = statistics.median(timed(fn, args.warmup, args.iterations))
        print(json.dumps({"op": name, "median_ms": ms}), flush=True)


if __name__ == "__main__":
    main()
