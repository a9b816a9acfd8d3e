#!/usr/bin/env bash
# The llquote demo: llquote-fmt lowers the dialect's loops and variables to
# minimal SSA, reads plain LLVM IR, optimises it for this machine, emits
# assembly, and points at a mistake the way LLVM tools do.
set -u
fmt=${1:?usage: demo.sh path/to/llquote-fmt [path/to/examples]}
examples=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
step "llquote-fmt sum.ll: a for loop over a reassigned variable, in minimal SSA"
cat "$here/sum.ll"
echo "  ->"
"$fmt" "$here/sum.ll" | sed -n '/^define/,/^}/p' || exit 1
step "llquote-fmt saxpy.ll: plain LLVM IR, as LLVM reads it"
"$fmt" "$here/saxpy.ll" || exit 1
step "llquote-fmt -O3 saxpy.ll: optimised for this machine's vector width"
"$fmt" -O3 "$here/saxpy.ll" | grep -E 'define|<[0-9]+ x float>' | head -6 || exit 1
step "llquote-fmt -O3 --emit=asm saxpy.ll: the vector loop"
"$fmt" -O3 --emit=asm "$here/saxpy.ll" | grep -E 'vfmadd|mulps|addps|vmul|vadd' | head -4
step "llquote-fmt typo.ll: a located error, exit status 1"
"$fmt" "$here/typo.ll"
status=$?
echo "(exit status $status)"
[ "$status" -eq 1 ] || exit 1
[ -n "$examples" ] || exit 0

# The skeletons: templates in the dialect, instantiated per operation,
# lowered to SSA, JIT-compiled and run on every core.
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
step "Jacobi iteration: one stencil skeleton, compiled once and prepared; each step runs from one grid into the other"
LLQ_VERBOSE=1 LLQ_CACHE_DIR="$cache" "$examples/llquote-example-jacobi" --n 1024 --steps 4 || exit 1
step "A dot product, fold (+) 0 (zipWith (*) x y): one fused kernel"
LLQ_VERBOSE=1 LLQ_CACHE_DIR="$cache" "$examples/llquote-example-dot" --n 10000000 || exit 1
step "The same program again: a new process loads the kernel from the disk cache"
LLQ_VERBOSE=1 LLQ_CACHE_DIR="$cache" "$examples/llquote-example-dot" --n 10000000 || exit 1
step "All-pairs n-body, Black-Scholes and Gaussian + Sobel, each checked against plain C++"
"$examples/llquote-example-nbody" --n 2000 --steps 2 || exit 1
"$examples/llquote-example-blackscholes" --n 1000000 || exit 1
"$examples/llquote-example-blursobel" --width 2048 --height 2048 || exit 1
