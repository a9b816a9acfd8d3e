; Versions are named `x.1`, `x.2`, ... at their first mention in text order,
; skipping names the author already gave: here `%x.1` and `%x.3`, which are
; not versions of `%x`. Both SSA modes name alike.
; RUN: llquote-fmt %s | FileCheck %s
; RUN: llquote-fmt --ssa=mem2reg %s | FileCheck %s

define i32 @f(i32 %n) {
entry:
  %x = i32 0
  %x.1 = add i32 %n, 7
  %x.3 = add i32 %n, 9
  for i32 %i in 0 to %n {
    %x = add i32 %x, %i
  }
  %x = add i32 %x, %x.1
  %r = add i32 %x, %x.3
  ret i32 %r
}

; CHECK:      %x.1 = add i32 %n, 7
; CHECK-NEXT: %x.3 = add i32 %n, 9
; CHECK:      for.cond:
; CHECK:      %x.2 = phi i32 [ 0, %entry ], [ %x.4, %for.inc ]
; CHECK:      for.body:
; CHECK-NEXT: %x.4 = add i32 %x.2, %i.1
; CHECK:      for.end:
; CHECK-NEXT: %x.5 = add i32 %x.2, %x.1
; CHECK-NEXT: %r = add i32 %x.5, %x.3
