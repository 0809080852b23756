"""Analyse a list of images on Spark with `peoplevision analyze --jsonl` and write the results as Parquet.

Each partition of image paths is piped through one `peoplevision analyze --jsonl` process (`RDD.pipe`): the process
loads the models once and analyses the partition's images on every core it is given, writing one JSON line per image
in input order. The lines become a DataFrame (one row per image: counts, mask file names, the error if any, and the
whole record as a JSON string) written as Parquet.

    spark-submit analyze_people.py IMAGES OUTPUT.parquet [--binary PATH] [--models DIR] [--requests faces,bodies]

IMAGES is a text file of image paths (one a line; any Hadoop path Spark reads: local, HDFS, S3) or a local directory,
searched recursively for images. On a cluster the binary, the models and the images must be readable at the same
paths on every executor (the container image of Examples/Kubernetes carries the binary and the models).
"""

import argparse
import hashlib
import json
import os
import shlex
import sys

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".heic", ".heif", ".webp")


def image_paths_in(directory):
    """Every image file under `directory`, sorted, as absolute paths."""
    found = []
    for root, dirs, files in os.walk(directory):
        dirs.sort()
        found.extend(os.path.join(root, f) for f in sorted(files) if f.lower().endswith(IMAGE_SUFFIXES))
    return [os.path.abspath(p) for p in found]


def record_path(image, out_dir):
    """Where the JSON record of `image` (and its mask PNGs, beside it) goes under `out_dir`.

    A folder per image, named by a hash of its path, keeps images of the same file name apart without any global
    view of the list; the file keeps the image's name, so the record names its masks as `analyze --json` does.
    """
    digest = hashlib.sha1(image.encode("utf-8")).hexdigest()[:16]
    stem = os.path.splitext(os.path.basename(image))[0]
    return os.path.join(out_dir, digest, stem + ".json")


def job_line(image, requests, out_dir):
    """One job line of `analyze --jsonl`: the image, its analyses, where its masks go, and its path echoed as `id`."""
    job = {"image": image, "id": image}
    if requests:
        job["requests"] = requests
    if out_dir:
        job["out"] = record_path(image, out_dir)
    return json.dumps(job, sort_keys=True)


def _count(value):
    return len(value) if isinstance(value, list) else None


def parse_result(line):
    """A result line of `analyze --jsonl` as a row (a dict of the DataFrame's columns)."""
    try:
        record = json.loads(line)
    except ValueError:
        record = None
    if not isinstance(record, dict):
        # Not a result line: keep it, so that the output says what went wrong instead of dropping it.
        return {"image": None, "name": None, "line": None, "width": None, "height": None, "faces": None,
                "bodies": None, "bodies3d": None, "hands": None, "full_bodies": None, "upper_bodies": None,
                "segmentation": None, "instances": None, "elapsed_ms": None,
                "error": "not a JSON result line: " + line[:200], "record": line}
    rectangles = record.get("humanRectangles") if isinstance(record.get("humanRectangles"), dict) else {}
    name = record.get("image")
    return {
        "image": record.get("id", name),
        "name": os.path.basename(name) if isinstance(name, str) else None,
        "line": record.get("line"),
        "width": record.get("width"),
        "height": record.get("height"),
        "faces": _count(record.get("faces")),
        "bodies": _count(record.get("bodies")),
        "bodies3d": _count(record.get("bodies3d")),
        "hands": _count(record.get("hands")),
        "full_bodies": _count(rectangles.get("fullBody")),
        "upper_bodies": _count(rectangles.get("upperBody")),
        "segmentation": record.get("segmentation"),
        "instances": record.get("instances"),
        "elapsed_ms": record.get("elapsed_ms"),
        "error": record.get("error"),
        "record": line,
    }


def schema():
    """The DataFrame's schema (nullable throughout: an error row has only `image`, `line` and `error`)."""
    from pyspark.sql.types import DoubleType, IntegerType, LongType, StringType, StructField, StructType

    return StructType([
        StructField("image", StringType()),
        StructField("name", StringType()),
        StructField("line", LongType()),
        StructField("width", IntegerType()),
        StructField("height", IntegerType()),
        StructField("faces", IntegerType()),
        StructField("bodies", IntegerType()),
        StructField("bodies3d", IntegerType()),
        StructField("hands", IntegerType()),
        StructField("full_bodies", IntegerType()),
        StructField("upper_bodies", IntegerType()),
        StructField("segmentation", StringType()),
        StructField("instances", StringType()),
        StructField("elapsed_ms", DoubleType()),
        StructField("error", StringType()),
        StructField("record", StringType()),
    ])


def arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("images", help="a text file of image paths (one a line) or a directory of images")
    parser.add_argument("output", help="where the Parquet results go (replaced)")
    parser.add_argument("--binary", default=os.environ.get("PEOPLEVISION", "peoplevision"),
                        help="the peoplevision binary on the executors (default: $PEOPLEVISION, else on PATH)")
    parser.add_argument("--models", default=os.environ.get("PEOPLEVISION_MODELS"),
                        help="the models folder on the executors (default: $PEOPLEVISION_MODELS, else the binary's)")
    parser.add_argument("--requests", default=None,
                        help="comma-separated analyses (default: all of `analyze`)")
    parser.add_argument("--quality", default=None, help="person-segmentation level: fast, balanced or accurate")
    parser.add_argument("--masks", default=None,
                        help="a folder every executor can write (shared storage) for each image's JSON record and "
                             "mask PNGs; without it, the records name the masks by a placeholder")
    parser.add_argument("--partitions", type=int, default=None,
                        help="partitions, so processes (default: Spark's default parallelism)")
    return parser.parse_args(argv)


def jobs_rdd(spark, args):
    """The job lines, one per image, as an RDD of strings."""
    requests = [r.strip() for r in args.requests.split(",")] if args.requests else None
    sc = spark.sparkContext
    if os.path.isdir(args.images):
        paths = sc.parallelize(image_paths_in(args.images), args.partitions or sc.defaultParallelism)
    else:
        paths = sc.textFile(args.images, args.partitions or sc.defaultParallelism)
        paths = paths.map(lambda p: p.strip()).filter(lambda p: p and not p.startswith("#"))
        if args.partitions:
            paths = paths.repartition(args.partitions)
    out_dir = os.path.abspath(args.masks) if args.masks else None
    return paths.map(lambda p: job_line(p, requests, out_dir))


def command(args):
    """The command each partition is piped through."""
    cmd = [args.binary, "analyze", "--jsonl"]
    if args.quality:
        cmd += ["--quality", args.quality]
    return cmd


def run(spark, args):
    """Analyses the images and writes the Parquet results; returns the number of rows written."""
    env = {"PEOPLEVISION_MODELS": args.models} if args.models else {}
    lines = jobs_rdd(spark, args).pipe(" ".join(shlex.quote(c) for c in command(args)), env=env,
                                       checkCode=True)
    rows = lines.map(parse_result)
    frame = spark.createDataFrame(rows, schema())
    frame.write.mode("overwrite").parquet(args.output)
    return spark.read.parquet(args.output).count()


def main(argv=None):
    args = arguments(sys.argv[1:] if argv is None else argv)
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("peoplevision-analyze").getOrCreate()
    try:
        count = run(spark, args)
        print(f"analyze_people: {count} rows written to {args.output}", file=sys.stderr)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
