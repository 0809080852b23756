#!/usr/bin/env bash
# Builds the model-reader fuzz target with libFuzzer and AddressSanitizer and runs it.
#   Fuzz/ModelReader/run.sh [RUNS]        (default 1,000,000 inputs)
# Seeds: the installed models, cut to their first 64 KiB (the FlatBuffer tables sit at the start
# of some files and at the end of others, so the last 64 KiB are added too), and the attention
# mesh's custom-operator options (FlexBuffers), which the target also reads as they are.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
runs="${1:-1000000}"
work="$root/.build/fuzz-model-reader"
mkdir -p "$work/corpus"
models="${PEOPLEVISION_MODELS:-$HOME/.cache/peoplevision/models}"
for f in "$models"/*.tflite; do
    n=$(basename "$f" .tflite)
    head -c 65536 "$f" > "$work/corpus/$n.head"
    tail -c 65536 "$f" > "$work/corpus/$n.tail"
    [ "$(stat -c %s "$f")" -lt 400000 ] && cp "$f" "$work/corpus/$n.whole"
done
swiftc -O -parse-as-library -sanitize=fuzzer,address -module-name PVTFLite \
    "$root"/Sources/PVTFLite/*.swift "$here/FuzzModelReader.swift" -o "$work/fuzz-model-reader"
# Custom-operator options (FlexBuffers) of the attention mesh, as seeds of their own.
if [ -f "$models/face_landmark_with_attention.tflite" ]; then
    FUZZ_MAKE_SEEDS="$work/corpus" FUZZ_SEED_MODEL="$models/face_landmark_with_attention.tflite" \
        ASAN_OPTIONS=detect_leaks=0 "$work/fuzz-model-reader"
fi
"$work/fuzz-model-reader" -runs="$runs" -max_len=300000 -rss_limit_mb=4096 -timeout=10 "$work/corpus" 2>&1 | tail -n 12
