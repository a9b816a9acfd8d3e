#!/usr/bin/env bash
# Compares the optimised kernels two builds of llquote make for the array
# benchmark's programs, names aside: a change to how kernels are written
# (templates, fragments) that should not change the code shows it here.
#   bench/compare-kernels.sh OLD_BUILD NEW_BUILD
# Each build's llquote_bench_arrays runs --smoke with LLQ_DUMP_IR; every
# optimised kernel of the new build is matched with llvm-diff against the old
# build's kernels of the same skeleton. Prints the kernels with no match.
set -euo pipefail
old="$1"; new="$2"
diff_tool="$(command -v llvm-diff-19 || echo /usr/lib/llvm-19/bin/llvm-diff)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for side in old new; do
  build="${!side}"
  mkdir -p "$work/$side"
  LLQ_DUMP_IR="$work/$side" LLQ_CACHE_DIR="$work/cache-$side" \
    "$build/bench/arrays/llquote_bench_arrays" --smoke --out "$work/run-$side" > /dev/null
done
same=0; differ=0
for n in "$work"/new/*.opt.ll; do
  skeleton="$(basename "$n" | sed 's/_[0-9a-f]*\.opt\.ll$//')"
  found=0
  for o in "$work"/old/"$skeleton"_*.opt.ll; do
    [ -e "$o" ] || continue
    if "$diff_tool" "$o" "$n" > /dev/null 2>&1; then found=1; break; fi
  done
  if [ "$found" = 1 ]; then
    same=$((same + 1))
  else
    differ=$((differ + 1))
    echo "no kernel of the old build has the structure of $(basename "$n")"
  fi
done
echo "optimised kernels: $same the same, names aside; $differ different"
