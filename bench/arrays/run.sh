#!/usr/bin/env bash
# Builds and runs the array benchmarks, then writes the ratio table and plots.
#   bench/arrays/run.sh [--quick | --full | --smoke] [more options of llquote_bench_arrays]
# BUILD (default: build) is the CMake build directory; OUT (default:
# bench/results/arrays) receives samples.csv, checks.csv, machine.json,
# results.md and plots/*.svg.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build}"
out="${OUT:-$root/bench/results/arrays}"
if [ ! -f "$build/build.ninja" ] && [ ! -f "$build/Makefile" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build" --target llquote_bench_arrays -j "${JOBS:-2}"
mode=(--quick)
case "${1:-}" in --quick|--full|--smoke) mode=("$1"); shift ;; esac
status=0
"$build/bench/arrays/llquote_bench_arrays" "${mode[@]}" --out "$out" "$@" || status=$?
python3 "$root/bench/arrays/report.py" "$out"
exit $status
