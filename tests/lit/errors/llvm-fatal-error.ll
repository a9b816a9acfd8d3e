; A fatal error LLVM still raises in code generation (here: an AVX-512
; intrinsic on a CPU without AVX-512, which the x86 backend cannot split) is
; one error line and exit status 1: no "LLVM ERROR", no stack dump, and no
; partial output, not even on stdout.
; RUN: %expect-exit 1 llquote-fmt --emit=asm --mtriple=x86_64-unknown-linux-gnu --mcpu=x86-64 %s > %t.out 2> %t.err
; RUN: FileCheck %s --input-file=%t.err --implicit-check-not="LLVM ERROR" --implicit-check-not="Stack dump" --implicit-check-not=PLEASE
; RUN: count 1 < %t.err
; RUN: count 0 < %t.out
; RUN: rm -f %t.s
; RUN: %expect-exit 1 llquote-fmt --emit=asm --mtriple=x86_64-unknown-linux-gnu --mcpu=x86-64 %s -o %t.s
; RUN: not test -e %t.s

; CHECK: llquote-fmt: error: Do not know how to split the result of this operator!

declare <16 x float> @llvm.x86.avx512.rcp14.ps.512(<16 x float>, <16 x float>, i16)

define <16 x float> @reciprocal(<16 x float> %x) {
  %r = call <16 x float> @llvm.x86.avx512.rcp14.ps.512(<16 x float> %x, <16 x float> %x, i16 -1)
  ret <16 x float> %r
}
