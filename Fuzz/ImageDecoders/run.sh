#!/usr/bin/env bash
# Builds the image-decoder fuzz target with libFuzzer + AddressSanitizer and runs it once per
# format.
#   Fuzz/ImageDecoders/run.sh [RUNS] [FORMATS...]   (default 100000 runs; jpeg png webp heic)
# Seeds are written by the target itself (FUZZ_MAKE_SEEDS), from the encoders, plus the
# installed sample images when present.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
runs="${1:-100000}"
shift || true
formats=("$@")
[ ${#formats[@]} -eq 0 ] && formats=(jpeg png webp heic)
work="$root/.build/fuzz-image-decoders"
mkdir -p "$work"
binary="$work/fuzz-image-decoders"

# Only the codec half of PVImaging (PixelBuffer, Orientation, Codecs/) is compiled in: the
# decoders need nothing else, and the build stays independent of the kernels.
# The C shim, instrumented for coverage and ASan (its libraries are Debian's, uninstrumented).
clang -O1 -g -fsanitize=address,fuzzer-no-link -I "$root/Sources/CImageCodecs/include" \
    $(pkg-config --cflags libpng16 libjpeg) -c "$root/Sources/CImageCodecs/shim.c" -o "$work/shim.o"
cat > "$work/module.modulemap" <<MAP
module CImageCodecs {
    header "$root/Sources/CImageCodecs/include/CImageCodecs.h"
    export *
}
MAP
swiftc -O -g -parse-as-library -sanitize=fuzzer,address -module-name PVImaging -package-name PeopleVision \
    -Xcc -fmodule-map-file="$work/module.modulemap" \
    -I "$root/Sources/CLibJPEG" -I "$root/Sources/CLibPNG" -I "$root/Sources/CLibHEIF" -I "$root/Sources/CLibWebP" \
    $(pkg-config --cflags libpng16 libjpeg libheif libwebp | sed 's/-I/-Xcc -I/g') \
    "$root/Sources/PVImaging/PixelBuffer.swift" "$root/Sources/PVImaging/Orientation.swift" \
    "$root"/Sources/PVImaging/Codecs/*.swift "$here/FuzzImageDecoders.swift" \
    "$work/shim.o" -ljpeg -lpng16 -lheif -lwebp -lwebpdemux -o "$binary"

models="${PEOPLEVISION_MODELS:-$HOME/.cache/peoplevision/models}"
for format in "${formats[@]}"; do
    corpus="$work/corpus-$format"
    rm -rf "$corpus"
    # x265 (used only to write the HEIC seeds) keeps a few small allocations until exit.
    FUZZ_FORMAT="$format" FUZZ_MAKE_SEEDS="$corpus" ASAN_OPTIONS=detect_leaks=0 "$binary"
    case "$format" in
        jpeg) [ -f "$models/rocket.jpg" ] && cp "$models/rocket.jpg" "$corpus/" ;;
        png) for f in camera chelsea; do [ -f "$models/$f.png" ] && cp "$models/$f.png" "$corpus/"; done ;;
    esac
    echo "== $format"
    set +e
    FUZZ_FORMAT="$format" ASAN_OPTIONS=detect_leaks=1 "$binary" -runs="$runs" -max_len=200000 \
        -rss_limit_mb=4096 -timeout=20 -print_final_stats=1 -artifact_prefix="$work/$format-" "$corpus" \
        > "$work/$format.log" 2>&1
    status=$?
    set -e
    grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|Done )|ERROR|SUMMARY|Test unit written" "$work/$format.log" || true
    if [ $status -ne 0 ]; then
        echo "fuzz-image-decoders: $format failed (exit $status); log: $work/$format.log" >&2
        failed=1
    fi
done
exit "${failed:-0}"
