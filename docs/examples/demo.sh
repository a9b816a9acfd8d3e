#!/usr/bin/env bash
# The llquote demo: llquote-fmt lowers the dialect's loops and variables to
# minimal SSA, reads plain LLVM IR, optimises it for this machine, emits
# assembly, and points at a mistake the way LLVM tools do.
set -u
fmt=${1:?usage: demo.sh path/to/llquote-fmt}
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
[ "$status" -eq 1 ]
