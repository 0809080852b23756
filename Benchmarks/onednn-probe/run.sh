#!/bin/sh
# Builds and runs the oneDNN layer probe with clang, as SwiftPM builds the kernels (needs Debian's
# libdnnl-dev: apt-get install libdnnl-dev; the package itself does not use oneDNN).
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/.build/onednn-probe
mkdir -p "$out"
"${CC:-clang}" -O2 -I"$root/Sources/CInferenceKernels/include" "$here/probe.c" "$root/Sources/CInferenceKernels/kernels.c" \
   -ldnnl -lpthreadpool -o "$out/probe"
OMP_NUM_THREADS=1 "$out/probe"
