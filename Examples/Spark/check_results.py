"""Checks the Parquet results of analyze_people.py against the records of the plain command.

    python check_results.py RESULTS.parquet IMAGES.txt SPARK_MASKS PLAIN_DIR

IMAGES.txt lists the images the job was given; PLAIN_DIR holds the records `peoplevision analyze --manifest` wrote
for them at `record_path(image, PLAIN_DIR)` (analyze_people.py), SPARK_MASKS the job's own (its `--masks`). An image
matches when its Parquet row has no error, its record equals the plain one with the timing field (`elapsed_ms`) and
the batch fields (`line`, `id`) left out, and every mask PNG the record names is byte for byte the plain run's.
Prints the counts; exits 1 unless every image matches.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze_people import record_path  # noqa: E402

IGNORED = ("elapsed_ms", "line", "id")


def comparable(record):
    return {k: v for k, v in record.items() if k not in IGNORED}


MASK_KEYS = ("segmentation", "instances")


def mask_names(record):
    """The mask files a record names (the PNG file names of `segmentation` and `instances`)."""
    return sorted(record[k] for k in MASK_KEYS if isinstance(record.get(k), str) and record[k].endswith(".png"))


def same_bytes(a, b):
    if not (os.path.isfile(a) and os.path.isfile(b)):
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def differences(image, row, spark_masks, plain_dir):
    """Why the row of `image` does not match the plain run (empty when it does)."""
    if row is None:
        return ["no row in the Parquet results"]
    if row["error"]:
        return [f"error row: {row['error']}"]
    plain_path = record_path(image, plain_dir)
    if not os.path.isfile(plain_path):
        return [f"the plain run wrote no record ({plain_path})"]
    with open(plain_path, encoding="utf-8") as f:
        plain = json.load(f)
    batch = json.loads(row["record"])
    problems = []
    a, b = comparable(batch), comparable(plain)
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            problems.append(f"field {key} differs")
    for name in mask_names(plain):
        mine = os.path.join(os.path.dirname(record_path(image, spark_masks)), name)
        theirs = os.path.join(os.path.dirname(plain_path), name)
        if not same_bytes(mine, theirs):
            problems.append(f"mask {name} differs")
    return problems


def main(argv):
    results, images_txt, spark_masks, plain_dir = argv
    with open(images_txt, encoding="utf-8") as f:
        images = [line.strip() for line in f if line.strip()]
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[1]").appName("peoplevision-check").getOrCreate()
    try:
        rows = {r["image"]: r.asDict() for r in spark.read.parquet(results).select("image", "error", "record").collect()}
    finally:
        spark.stop()
    matching, masks = 0, 0
    for image in images:
        problems = differences(image, rows.get(image), spark_masks, plain_dir)
        if problems:
            print(f"MISMATCH {image}: {'; '.join(problems)}")
        else:
            matching += 1
            masks += len(mask_names(json.loads(rows[image]["record"])))
    extra = len(set(rows) - set(images))
    print(f"images: {len(images)}, Parquet rows: {len(rows)}, matching: {matching}, masks compared: {masks}"
          + (f", rows for images not asked: {extra}" if extra else ""))
    return 0 if matching == len(images) and len(rows) == len(images) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
