; Minimal SSA around unreachable code and equal constants, and undefined
; reads reported alike in both SSA modes, at the read that has no value.
; RUN: split-file %s %t
;
; A loop body that always leaves: its latch (for.inc, the while's back edge
; from if.end) has no predecessors, and an edge from it carries no value.
; RUN: llquote-fmt %t/for-break.ll | FileCheck %s --check-prefix=NOPHI
; RUN: llquote-fmt --ssa=mem2reg %t/for-break.ll | FileCheck %s --check-prefix=NOPHI
; RUN: llquote-fmt %t/while-leaves.ll | FileCheck %s --check-prefix=NOPHI
; RUN: llquote-fmt --ssa=mem2reg %t/while-leaves.ll | FileCheck %s --check-prefix=NOPHI
; Equal constants are one value.
; RUN: llquote-fmt %t/equal-constants.ll | FileCheck %s --check-prefix=CONST
; RUN: llquote-fmt --ssa=mem2reg %t/equal-constants.ll | FileCheck %s --check-prefix=CONST
; NOPHI-NOT: phi
; NOPHI: ret i64 %y
; CONST-NOT: phi
; CONST: ret i64 5
;
; An undefined read is an error in both modes, poison only with --allow-undef.
; RUN: not llquote-fmt %t/if-only.ll 2>&1 | FileCheck %s --check-prefix=IFONLY
; RUN: not llquote-fmt --ssa=mem2reg %t/if-only.ll 2>&1 | FileCheck %s --check-prefix=IFONLY
; RUN: llquote-fmt --allow-undef %t/if-only.ll | FileCheck %s --check-prefix=REFINED
; RUN: llquote-fmt --allow-undef --ssa=mem2reg %t/if-only.ll | FileCheck %s --check-prefix=REFINED
; IFONLY: if-only.ll:6:16: error: '%x' is read here but is not assigned on every path to this point
; IFONLY-NEXT: %y = add i64 %x, 1
; IFONLY: if-only.ll:3:6: note: '%x' has no value when control comes through here
; Both modes fold the phi of poison and 5, as poison allows (LLVM's mem2reg
; does the same): see allow-undef-fold.ll.
; REFINED-NOT: phi
; REFINED: %y = add i64 5, 1
;
; Through a copy, the read without a value is the copy's, of %y.
; RUN: not llquote-fmt %t/copy.ll 2>&1 | FileCheck %s --check-prefix=COPY
; RUN: not llquote-fmt --ssa=mem2reg %t/copy.ll 2>&1 | FileCheck %s --check-prefix=COPY
; COPY: copy.ll:6:14: error: '%y' is read here but is not assigned on every path to this point
; COPY-NEXT: %x = i64 %y
; COPY: copy.ll:4:3: note: '%y' has no value when control comes through here

;--- for-break.ll
define i64 @f(i64 %a, i64 %b) {
entry:
  %x = add i64 %a, 1
  for i64 %i in 0 to %b {
    break
  }
  %y = add i64 %x, %a
  ret i64 %y
}
;--- while-leaves.ll
define i64 @g(i64 %a, i64 %b) {
entry:
  %x = add i64 %a, 1
  %c = icmp slt i64 %a, %b
  %go = i1 true
  while %go {
    if %c {
      break
    } else {
      ret i64 %x
    }
  }
  %y = add i64 %x, %a
  ret i64 %y
}
;--- equal-constants.ll
define i64 @h(i1 %c) {
entry:
  if %c {
    %x = i64 5
  } else {
    %x = i64 5
  }
  ret i64 %x
}
;--- if-only.ll
define i64 @u(i1 %c) {
entry:
  if %c {
    %x = i64 5
  }
  %y = add i64 %x, 1
  ret i64 %y
}
;--- copy.ll
define i64 @v(i64 %b) {
entry:
  %x = i64 1
  for i64 %i in 0 to %b {
    %t = add i64 %x, 1
    %x = i64 %y
    %y = i64 5
  }
  ret i64 %x
}
