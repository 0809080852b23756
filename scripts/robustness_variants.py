"""The robustness set's variants of a labelled image and the label transforms behind them (scripts/robustness-set).

Records are the evaluation harness's ground-truth records (pixels, top-left origin, the subject's own left/right);
images are OpenCV BGR arrays. `make_variants` returns every variant that applies to one image; `self_test` checks
the transforms on a synthetic image.
"""
import glob
import json
import sys
from pathlib import Path

import cv2
import numpy as np

VARIANTS = ["w640", "w480", "heads", "mirror", "crop"]
GREY = 128
# COCO-17 order with left and right exchanged (nose stays).
SWAP17 = [0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15]
HEAD17 = [0, 1, 2, 3, 4]
MIN_JOINTS_AFTER_CROP = 3

# --------------------------------------------------------------------------- label transforms
# A variant maps pixel coordinates (top-left origin) by x' = a x + b, y' = c y + d; `size` is the new (W, H).


def map_points(k, A, size, clip):
    a, b, c, d = A
    out = np.array(k, dtype=np.float64, copy=True)
    on = out[:, 2] > 0
    out[on, 0] = a * out[on, 0] + b
    out[on, 1] = c * out[on, 1] + d
    if clip:
        W, H = size
        off = on & ((out[:, 0] < 0) | (out[:, 0] >= W) | (out[:, 1] < 0) | (out[:, 1] >= H))
        out[off] = 0
    return out


def map_box(box, A, size, clip):
    if box is None:
        return None
    a, b, c, d = A
    xs = sorted([a * box[0] + b, a * (box[0] + box[2]) + b])
    ys = sorted([c * box[1] + d, c * (box[1] + box[3]) + d])
    if clip:
        W, H = size
        xs = [min(max(x, 0.0), W) for x in xs]
        ys = [min(max(y, 0.0), H) for y in ys]
        if xs[1] - xs[0] <= 0 or ys[1] - ys[0] <= 0:
            return None
    return [xs[0], ys[0], xs[1] - xs[0], ys[1] - ys[0]]


def map_point(p, A, size, clip):
    a, b, c, d = A
    x, y = a * p[0] + b, c * p[1] + d
    if clip and not (0 <= x < size[0] and 0 <= y < size[1]):
        return None
    return (x, y)


def swap_lr(name):
    if name.startswith("left"):
        return "right" + name[4:]
    if name.startswith("right"):
        return "left" + name[5:]
    return name


def map_person(p, A, size, mask_fn, mirror, clip):
    q = dict(p)
    q["box"] = map_box(p["box"], A, size, clip)
    if p.get("kpts") is not None:
        k = map_points(p["kpts"], A, size, clip)
        if mirror:
            k = k[SWAP17]
        if clip and (k[:, 2] > 0).sum() < MIN_JOINTS_AFTER_CROP:
            k = np.zeros_like(k)
        q["kpts"] = k
    if p.get("mask") is not None:
        q["mask"] = mask_fn(p["mask"])
    return q


def map_face(f, A, size, mirror, clip):
    box = map_box(f["box"], A, size, clip)
    if box is None or (clip and box[2] * box[3] < 0.5 * f["box"][2] * f["box"][3]):
        return None
    lm = {}
    for name, p in f["landmarks"].items():
        q = map_point(p, A, size, clip)
        if q is not None:
            lm[swap_lr(name) if mirror else name] = q
    return {"box": box, "box_src": f.get("box_src"), "landmarks": lm}


def map_body3d(b, A, mirror):
    a, bb, c, d = A
    K = np.asarray(b["K"], np.float64)
    K2 = [[K[0][0] * abs(a), 0.0, a * K[0][2] + bb], [0.0, K[1][1] * abs(c), c * K[1][2] + d], [0.0, 0.0, 1.0]]
    joints = {(swap_lr(n) if mirror else n): ((-x if mirror else x), y, z) for n, (x, y, z) in b["joints"].items()}
    kp = b.get("kpts2d")
    return {"joints": joints, "K": K2, "kpts2d": None if kp is None else map_points(kp, A, (1e9, 1e9), False)}


def map_record(rec, variant, A, size, mask_fn, mirror=False, clip=False):
    """The record's labels carried through the mapping A onto an image of `size`."""
    out = {k: v for k, v in rec.items() if k not in ("persons", "hands", "faces", "body3d", "semantic", "tasks")}
    out.update({"width": int(size[0]), "height": int(size[1]), "variant": variant, "tasks": set(rec["tasks"])})
    persons = [map_person(p, A, size, mask_fn, mirror, clip) for p in rec["persons"]]
    out["persons"] = [p for p in persons if p["box"] is not None or (p.get("mask") is not None and p["mask"].any())
                      or (p.get("kpts") is not None and (p["kpts"][:, 2] > 0).any())]
    hands = []
    for h in rec["hands"]:
        k = map_points(h["kpts"], A, size, clip)
        if not (k[:, 2] > 0).any():
            continue
        chir = h["chirality"]
        if mirror and chir in ("left", "right"):
            chir = "right" if chir == "left" else "left"
        hands.append({"kpts": k, "box": map_box(h["box"], A, size, clip), "chirality": chir})
    out["hands"] = hands
    out["faces"] = [f for f in (map_face(f, A, size, mirror, clip) for f in rec["faces"]) if f is not None]
    out["semantic"] = None if rec.get("semantic") is None else mask_fn(rec["semantic"])
    out["body3d"] = [map_body3d(b, A, mirror) for b in rec.get("body3d", [])]
    return out


# --------------------------------------------------------------------------- the five variants


def resized(rec, img, width):
    W, H = rec["width"], rec["height"]
    if W <= width:
        return None
    h = max(1, int(round(H * width / W)))
    A = (width / W, 0.0, h / H, 0.0)

    def mask_fn(m):
        return cv2.resize(m.astype("uint8"), (width, h), interpolation=cv2.INTER_NEAREST) > 0
    return map_record(rec, f"w{width}", A, (width, h), mask_fn), cv2.resize(img, (width, h), interpolation=cv2.INTER_AREA)


def mirrored(rec, img):
    W = rec["width"]
    return (map_record(rec, "mirror", (-1.0, float(W), 1.0, 0.0), (W, rec["height"]),
                       lambda m: np.ascontiguousarray(m[:, ::-1]), mirror=True),
            np.ascontiguousarray(img[:, ::-1]))


def person_box(p):
    if p.get("box") is not None and p["box"][2] > 0 and p["box"][3] > 0:
        return list(p["box"])
    k = p.get("kpts")
    if k is not None and (k[:, 2] > 0).sum() >= 2:
        v = k[k[:, 2] > 0, :2]
        return [v[:, 0].min(), v[:, 1].min(), np.ptp(v[:, 0]), np.ptp(v[:, 1])]
    m = p.get("mask")
    if m is not None and m.any():
        ys, xs = np.nonzero(m)
        return [xs.min(), ys.min(), xs.max() + 1 - xs.min(), ys.max() + 1 - ys.min()]
    return None


def crop_window(rec):
    """A window through the middle of the largest labelled person, keeping the larger part of the image."""
    W, H = rec["width"], rec["height"]
    boxes = [person_box(p) for p in rec["persons"] if not p.get("crowd")]
    boxes = [b for b in boxes if b is not None]
    if not boxes:
        return None
    x, y, w, h = max(boxes, key=lambda b: b[2] * b[3])
    cx, cy = int(round(x + w / 2)), int(round(y + h / 2))
    candidates = [(0, 0, cx, H), (cx, 0, W, H), (0, 0, W, cy), (0, cy, W, H)]
    return max(candidates, key=lambda c: (c[2] - c[0]) * (c[3] - c[1]))


def cropped(rec, img):
    win = crop_window(rec)
    if win is None:
        return None
    x0, y0, x1, y1 = win
    A = (1.0, float(-x0), 1.0, float(-y0))
    return (map_record(rec, "crop", A, (x1 - x0, y1 - y0), lambda m: m[y0:y1, x0:x1].copy(), clip=True),
            img[y0:y1, x0:x1].copy())


HEAD_TOP = {"head", "head top", "head-top", "head_top"}
NECK = {"neck", "upper-neck", "upper neck", "upper_neck"}


def raw_heads(folder):
    """{image file name: [(head top, neck) per annotation]} from a dataset's COCO-style files whose skeleton names
    a head top and a neck (joints the common ground truth leaves out); empty when there are none."""
    out = {}
    for f in sorted(glob.glob(str(folder / "*.json")) + glob.glob(str(folder / "annotations" / "*.json"))):
        try:
            d = json.loads(Path(f).read_text())
            names = [n.lower() for n in d["categories"][0]["keypoints"]]
            files = {im["id"]: im["file_name"] for im in d["images"]}
        except (KeyError, IndexError, TypeError, ValueError):
            continue
        top = next((i for i, n in enumerate(names) if n in HEAD_TOP), None)
        neck = next((i for i, n in enumerate(names) if n in NECK), None)
        if top is None or neck is None:
            continue
        for a in d.get("annotations", []):
            k = np.asarray(a["keypoints"], np.float64).reshape(len(names), -1)
            out.setdefault(files.get(a["image_id"]), []).append(k)
    return {"_index": (top, neck)} | out if out else {}


def head_hints(raw, rec):
    """Per labelled person, (head top, neck) when a raw annotation holds every one of its labelled joints."""
    if not raw:
        return [None] * len(rec["persons"])
    top, neck = raw["_index"]
    anns = raw.get(rec["file"]) or next((v for f, v in raw.items() if f != "_index" and f.endswith(rec["file"])), [])
    hints = []
    for p in rec["persons"]:
        k = p.get("kpts")
        hint = None
        if k is not None and (k[:, 2] > 0).any():
            mine = {(x, y) for x, y, v in k if v > 0}
            for a in anns:
                pts = {(x, y) for x, y in a[:, :2]}
                if mine <= pts and a[top, 2] > 0 and a[neck, 2] > 0:
                    hint = (a[top, :2], a[neck, :2])
                    break
        hints.append(hint)
    return hints


def head_box(p, hint=None):
    """[x0, y0, x1, y1] around the person's head: from the head joints (head top and neck, else nose, eyes and
    ears), else from the top of the person's mask, else above the shoulders along the torso."""
    if hint is not None:
        t, n = np.asarray(hint[0]), np.asarray(hint[1])
        c, side = (t + n) / 2, 1.2 * float(np.linalg.norm(t - n))
        if side > 0:
            return [c[0] - side / 2, c[1] - side / 2, c[0] + side / 2, c[1] + side / 2]
    k = p.get("kpts")
    if k is None or not (k[:, 2] > 0).any():
        return mask_head(p.get("mask"))
    lab = k[:, 2] > 0
    sw = None
    if lab[5] and lab[6]:
        sw = float(np.linalg.norm(k[5, :2] - k[6, :2]))
    head = [i for i in HEAD17 if lab[i]]
    if head:
        pts = k[head, :2]
        c = pts.mean(0)
        side = max(1.8 * float(np.ptp(pts, axis=0).max()), 0.9 * sw if sw else 0.0)
        if side <= 0:
            b = person_box(p)
            side = 0.2 * max(b[2], b[3]) if b else 0.0
    elif sw:
        mid = (k[5, :2] + k[6, :2]) / 2
        up = np.array([0.0, -1.0])
        if lab[11] and lab[12]:
            t = mid - (k[11, :2] + k[12, :2]) / 2
            if np.linalg.norm(t) > 0:
                up = t / np.linalg.norm(t)
        c = mid + up * 0.6 * sw
        side = 1.1 * sw
    else:
        return mask_head(p.get("mask"))
    if side <= 0:
        return None
    return [c[0] - side / 2, c[1] - side / 2, c[0] + side / 2, c[1] + side / 2]


def mask_head(m):
    """The top of a person mask (a sixth of its height, as wide as the mask is there)."""
    if m is None or not m.any():
        return None
    ys = np.nonzero(m.any(1))[0]
    y0, y1 = ys[0], ys[0] + max(1, int(round((ys[-1] + 1 - ys[0]) / 6)))
    xs = np.nonzero(m[y0:y1].any(0))[0]
    return [xs[0], y0, xs[-1] + 1, y1]


def headless(rec, img, hints=None):
    W, H = rec["width"], rec["height"]
    hints = hints or [None] * len(rec["persons"])
    boxes = [head_box(p, h) for p, h in zip(rec["persons"], hints)]
    boxes += [[f["box"][0], f["box"][1], f["box"][0] + f["box"][2], f["box"][1] + f["box"][3]] for f in rec["faces"]]
    cover = np.zeros((H, W), bool)
    for b in boxes:
        if b is None:
            continue
        x0, y0 = max(0, int(np.floor(b[0]))), max(0, int(np.floor(b[1])))
        x1, y1 = min(W, int(np.ceil(b[2]))), min(H, int(np.ceil(b[3])))
        cover[y0:y1, x0:x1] = True
    out_img = img.copy()
    out_img[cover] = GREY
    out = map_record(rec, "heads", (1.0, 0.0, 1.0, 0.0), (W, H), lambda m: m & ~cover)
    out["faces"] = []
    out["tasks"].discard("faces")
    for p in out["persons"]:
        if p.get("kpts") is not None:
            k = p["kpts"]
            k[HEAD17, 2] = np.where(k[HEAD17, 2] > 0, 1.0, 0.0)  # labelled, now occluded
    return out, out_img


def make_variants(rec, img, hints=None):
    """{variant: (record, image)} for the variants that apply to this image."""
    made = {"w640": resized(rec, img, 640), "w480": resized(rec, img, 480), "heads": headless(rec, img, hints),
            "mirror": mirrored(rec, img), "crop": cropped(rec, img)}
    return {v: r for v, r in made.items() if r is not None}


def synthetic():
    """A 200x100 image with two people, a labelled face and a left hand (numbers chosen by hand)."""
    k = np.zeros((17, 3))
    k[0] = [40, 20, 2]                    # nose
    k[1], k[2] = [44, 16, 2], [36, 16, 2]  # subject's left eye on the image's right (facing the camera)
    k[5], k[6] = [55, 35, 2], [25, 35, 2]  # shoulders
    k[9], k[10] = [60, 70, 2], [20, 70, 2]  # wrists
    k[11], k[12] = [50, 70, 2], [30, 70, 2]  # hips
    k[15], k[16] = [50, 98, 2], [30, 98, 2]  # ankles
    k2 = np.zeros((17, 3))
    k2[5], k2[6] = [160, 40, 2], [140, 40, 2]
    k2[11], k2[12] = [158, 80, 2], [142, 80, 2]
    m1, m2 = np.zeros((100, 200), bool), np.zeros((100, 200), bool)
    m1[10:100, 20:62] = True
    m2[25:100, 135:165] = True
    hk = np.zeros((21, 3))
    hk[0], hk[4] = [60, 70, 2], [66, 78, 2]
    rec = {"dataset": "synthetic", "key": "a", "file": "a.png", "path": "a.png", "width": 200, "height": 100,
           "persons": [{"box": [20, 10, 42, 90], "kpts": k, "mask": m1},
                       {"box": [135, 25, 30, 75], "kpts": k2, "mask": m2}],
           "masks_complete": True, "semantic": None,
           "hands": [{"kpts": hk, "box": [58, 68, 10, 12], "chirality": "left"}],
           "faces": [{"box": [32, 10, 16, 20], "box_src": "annotated",
                      "landmarks": {"leftEye": (44, 16), "rightEye": (36, 16), "mouth": (40, 26)}}],
           "body3d": [], "tasks": {"segmentation", "instances", "bodies", "faces", "hands"}}
    img = np.zeros((100, 200, 3), np.uint8)
    img[:, :100] = 200  # left half bright
    return rec, img


def self_test():
    rec, img = synthetic()
    fails = []

    def check(ok, what):
        if not ok:
            fails.append(what)

    v = make_variants(rec, img)
    check(set(v) == {"heads", "mirror", "crop"}, f"a 200 px wide image has no w640/w480 variant: {sorted(v)}")
    m, mi = v["mirror"]
    k = m["persons"][0]["kpts"]
    check(tuple(k[5]) == (175, 35, 2) and tuple(k[6]) == (145, 35, 2),
          f"mirror: left shoulder takes the right one's mirrored place: {k[5]}, {k[6]}")
    check(tuple(k[1]) == (164, 16, 2), f"mirror: left eye = mirrored right eye: {k[1]}")
    check(m["persons"][0]["box"] == [138, 10, 42, 90], f"mirror: box {m['persons'][0]['box']}")
    check(m["persons"][0]["mask"][50, 199 - 20] and not m["persons"][0]["mask"][50, 20], "mirror: mask flipped")
    check(m["hands"][0]["chirality"] == "right" and tuple(m["hands"][0]["kpts"][0]) == (140, 70, 2),
          f"mirror: hand chirality and joints {m['hands'][0]}")
    f = m["faces"][0]["landmarks"]
    check(f["leftEye"] == (164, 16) and f["rightEye"] == (156, 16), f"mirror: face eyes {f}")
    check(mi[50, 150, 0] == 200 and mi[50, 50, 0] == 0, "mirror: image flipped")
    back, _ = mirrored(m, mi)
    check(np.array_equal(back["persons"][0]["kpts"], rec["persons"][0]["kpts"]), "mirror twice: the original joints")

    c, ci = v["crop"]
    # the largest person (42x90 at x 20) is cut at its centre x = 41; the right part (159 px) is the larger
    check((c["width"], c["height"]) == (159, 100) and ci.shape[:2] == (100, 159), f"crop size {c['width']}x{c['height']}")
    k = c["persons"][0]["kpts"]
    check(tuple(k[5]) == (14, 35, 2) and k[6, 2] == 0 and k[0, 2] == 0,
          f"crop: shoulder shifted, joints outside unlabelled: {k[5]}, {k[6]}, {k[0]}")
    check(c["persons"][0]["box"] == [0.0, 10.0, 21.0, 90.0], f"crop: box clipped {c['persons'][0]['box']}")
    check(c["persons"][0]["mask"].shape == (100, 159) and c["persons"][0]["mask"].sum() == 90 * 21, "crop: mask")
    check(tuple(c["persons"][1]["kpts"][5]) == (119, 40, 2), "crop: the other person shifted")
    check(c["faces"] == [], "crop: a face mostly outside is dropped")

    h, hi = v["heads"]
    check(h["faces"] == [] and "faces" not in h["tasks"], "heads: faces dropped")
    check(tuple(hi[20, 40]) == (GREY,) * 3 and hi[90, 40, 0] == 200, "heads: head grey, body untouched")
    check(h["persons"][0]["kpts"][0, 2] == 1 and h["persons"][0]["kpts"][5, 2] == 2, "heads: head joints occluded")
    check(not h["persons"][0]["mask"][20, 40] and h["persons"][0]["mask"][90, 40], "heads: grey box leaves the mask")
    # the second person has no head joints: the box sits above the shoulders, along the torso
    check(tuple(hi[28, 150]) == (GREY,) * 3 and tuple(hi[45, 150]) != (GREY,) * 3, "heads: box above the shoulders")

    hb = head_box({"kpts": None, "mask": rec["persons"][0]["mask"]})
    check(list(hb) == [20, 10, 62, 25], f"heads: from the mask's top sixth {hb}")
    hb = head_box(rec["persons"][0], ((40.0, 5.0), (40.0, 25.0)))
    check(np.allclose(hb, [28, 3, 52, 27]), f"heads: from head top and neck {hb}")
    raw = {"_index": (2, 3), "a.png": [np.array([[25, 35, 2], [55, 35, 2], [40, 5, 2], [40, 25, 2]], float)]}
    hints = head_hints(raw, {"file": "a.png", "persons": [{"kpts": rec["persons"][1]["kpts"]},
                                                          {"kpts": np.array([[25, 35, 2], [55, 35, 2]], float)}]})
    check(hints[0] is None and hints[1] is not None and tuple(hints[1][0]) == (40, 5),
          f"heads: a raw annotation holding every labelled joint gives the hint {hints}")

    big = dict(rec, width=1000, height=500)
    r, ri = resized(big, np.zeros((500, 1000, 3), np.uint8), 640)
    check((r["width"], r["height"]) == (640, 320) and ri.shape[:2] == (320, 640), "resize: size")
    check(tuple(r["persons"][0]["kpts"][5]) == (55 * 0.64, 35 * 0.64, 2), f"resize: joints {r['persons'][0]['kpts'][5]}")
    check(np.allclose(r["persons"][0]["box"], [12.8, 6.4, 26.88, 57.6]), f"resize: box {r['persons'][0]['box']}")
    check(r["persons"][0]["mask"].shape == (320, 640), "resize: mask size")
    for x in fails:
        print("robustness-set self-test FAILED:", x, file=sys.stderr)
    print(f"robustness-set self-test: {'ok' if not fails else f'{len(fails)} failures'}")
    return 1 if fails else 0
