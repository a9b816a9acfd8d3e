; The sum loop of the design: a reassigned accumulator in a for loop. Minimal
; SSA has exactly two phis, both in the loop head, and nothing else of the
; sugar: no select, no copy, no leftover variable.
; RUN: %ssa-compare %s | FileCheck %s --check-prefix=SSA
; SSA: exit
; RUN: llquote-fmt %s | FileCheck %s
; RUN: llquote-fmt %s | grep -c " = phi " | FileCheck %s --check-prefix=PHIS
; RUN: llquote-fmt %s | FileCheck %s --check-prefix=NOSEL
; RUN: llquote-fmt %s -o %t.ll
; RUN: %expect-exit 42 lli %t.ll
; PHIS: {{^2$}}
; NOSEL-NOT: select

define i64 @sum(i64 %start, i64 %end) {
entry:
  %x = i64 0
  for i64 %i in %start to %end {
    %x = add i64 %i, %x
  }
  ret i64 %x
}
; CHECK-LABEL: define i64 @sum(i64 %start, i64 %end) {
; CHECK:       entry:
; CHECK-NEXT:    br label %for.cond
; CHECK:       for.cond:
; CHECK-NEXT:    %i.1 = phi i64 [ %start, %entry ], [ %i.2, %for.inc ]
; CHECK-NEXT:    %x.1 = phi i64 [ 0, %entry ], [ %x.2, %for.inc ]
; CHECK-NEXT:    %for.more = icmp slt i64 %i.1, %end
; CHECK-NEXT:    br i1 %for.more, label %for.body, label %for.end
; CHECK:       for.body:
; CHECK-NEXT:    %x.2 = add i64 %i.1, %x.1
; CHECK-NEXT:    br label %for.inc
; CHECK:       for.inc:
; CHECK-NEXT:    %i.2 = add i64 %i.1, 1
; CHECK-NEXT:    br label %for.cond
; CHECK:       for.end:
; CHECK-NEXT:    ret i64 %x.1

; 3 + 4 + ... + 9 = 42
define i32 @main() {
  %s = call i64 @sum(i64 3, i64 10)
  %r = trunc i64 %s to i32
  ret i32 %r
}
