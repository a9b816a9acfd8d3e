#!/usr/bin/env bash
# Builds and runs the array benchmarks, then writes the ratio table and plots.
#   bench/arrays/run.sh [--quick | --full | --smoke] [more options of llquote_bench_arrays]
# BUILD (default: build) is the CMake build directory; OUT (default:
# bench/results/arrays/<cpu>-<n>core, <cpu> as LLVM names the host's, so
# that each kind of machine keeps its own results beside the others')
# receives samples.csv, checks.csv, machine.json, results.md and plots/*.svg.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build}"
llc="$(command -v llc-19 || echo /usr/lib/llvm-19/bin/llc)"
cpu="$("$llc" --version 2>/dev/null | sed -n 's/^ *Host CPU: *//p')"
out="${OUT:-$root/bench/results/arrays/${cpu:-unknown}-$(nproc)core}"
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
