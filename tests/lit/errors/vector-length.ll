; A vector type of more than 65536 elements is refused at its count,
; wherever it stands: LLVM's reader builds a splat, a shufflevector mask
; written as zeroinitializer and a folded constant expression element by
; element, and for such a vector runs out of memory inside LLVM. Vectors up
; to the limit, and longer arrays, are read as LLVM reads them.
; RUN: split-file --leading-lines %s %t
; RUN: not llquote-fmt %t/splat.ll 2>&1 | FileCheck %s --check-prefix=SPLAT
; RUN: not llquote-fmt %t/mask.ll 2>&1 | FileCheck %s --check-prefix=MASK
; RUN: not llquote-fmt %t/scalable.ll 2>&1 | FileCheck %s --check-prefix=SCALABLE
; RUN: not llquote-fmt %t/type-only.ll 2>&1 | FileCheck %s --check-prefix=TYPE
; RUN: not llquote-fmt %t/too-wide.ll 2>&1 | FileCheck %s --check-prefix=WIDE
; RUN: llquote-fmt %t/limit.ll | FileCheck %s --check-prefix=LIMIT

;--- splat.ll
; SPLAT: splat.ll:[[@LINE+2]]:9: error: vector of 4294967295 elements; llquote reads vectors of at most 65536 (LLVM builds some vector constants element by element)
; SPLAT-NEXT: define <4294967295 x i8> @f() {
define <4294967295 x i8> @f() {
  ret <4294967295 x i8> splat (i8 1)
}
;--- mask.ll
; MASK: mask.ll:[[@LINE+3]]:24: error: vector of 65537 elements; llquote reads
define <4 x i8> @f(<4 x i8> %a) {
  %s = shufflevector <4 x i8> %a, <4 x i8> %a,
                      <65537 x i32> zeroinitializer
  ret <4 x i8> %a
}
;--- scalable.ll
; SCALABLE: scalable.ll:[[@LINE+1]]:23: error: vector of 2000000 elements
@g = global <vscale x 2000000 x i8> zeroinitializer
;--- type-only.ll
; TYPE: type-only.ll:[[@LINE+1]]:18: error: vector of 3000000000 elements
declare void @h(<3000000000 x float>)
;--- too-wide.ll
; A count too wide for 32 bits is LLVM's to report.
; WIDE: too-wide.ll:[[@LINE+1]]:18: error: size too large for vector
declare void @h(<4294967296 x float>)
;--- limit.ll
; LIMIT: declare void @h(<65536 x float>, [4294967295 x i8])
declare void @h(<65536 x float>, [4294967295 x i8])
