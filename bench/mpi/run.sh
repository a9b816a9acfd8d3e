#!/usr/bin/env bash
# Runs the MPI benchmark: n-body, Jacobi and dot on 2 ranks x 1 thread and on
# 1 rank x 2 threads, interleaved round by round, plus the ping-pong and
# allreduce that parametrize the communication model; writes samples.csv and
# results.md (bench/mpi/report.py).
#   bench/mpi/run.sh [--quick]
# BUILD (default: build) is the CMake build directory; OUT (default:
# bench/results/mpi/<cpu>-<n>core) receives the files.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build}"
llc="$(command -v llc-19 || echo /usr/lib/llvm-19/bin/llc)"
cpu="$("$llc" --version 2>/dev/null | sed -n 's/^ *Host CPU: *//p')"
out="${OUT:-$root/bench/results/mpi/${cpu:-unknown}-$(nproc)core}"
cmake --build "$build" --target llquote_bench_mpi -j "${JOBS:-2}"
bench="$build/bench/mpi/llquote_bench_mpi"
# Open MPI refuses root unless told; the benchmark does nothing as root that
# it would not do as another user.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rounds=3 reps=5
nbody="1000 4000 16000" jacobi="256 1024 4096" dot="65536 1048576 16777216"
if [ "${1:-}" = "--quick" ]; then
  rounds=1 reps=3 nbody="4000" jacobi="1024" dot="1048576"
fi
mkdir -p "$out"
samples="$out/samples.csv"
echo "op,n,ranks,threads,rep,seconds,bytes_sent,collectives,comm_seconds" > "$samples"
# Two ranks bound to a core each; one rank with two threads left unbound, or
# Open MPI would bind it, and both of its threads, to one core.
two_by_one() { mpirun -np 2 --bind-to core "$bench" --threads 1 "$@"; }
one_by_two() { mpirun -np 1 --bind-to none "$bench" --threads 2 "$@"; }
for n in 8 1048576; do two_by_one --op pingpong --n $n --reps $reps >> "$samples"; done
two_by_one --op allreduce --n 1 --reps $reps >> "$samples"
for round in $(seq $rounds); do
  for op in nbody jacobi dot; do
    for n in ${!op}; do
      two_by_one --op $op --n $n --reps $reps >> "$samples"
      one_by_two --op $op --n $n --reps $reps >> "$samples"
    done
  done
  echo "round $round of $rounds done" >&2
done
python3 "$root/bench/mpi/report.py" "$out"
