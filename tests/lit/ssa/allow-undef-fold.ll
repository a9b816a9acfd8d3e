; Under --allow-undef, a read without a value on some path is poison there,
; and a phi that merges poison with one value that dominates it is that
; value, in both SSA modes. A loop of phis goes as a whole. A phi the author
; wrote, and a phi whose other value does not dominate it, stay.
; RUN: split-file %s %t
; RUN: llquote-fmt --allow-undef %t/after-if.ll | FileCheck %s --check-prefix=IF
; RUN: llquote-fmt --allow-undef --ssa=mem2reg %t/after-if.ll | FileCheck %s --check-prefix=IF
; RUN: llquote-fmt --allow-undef %t/loop.ll | FileCheck %s --check-prefix=LOOP
; RUN: llquote-fmt --allow-undef --ssa=mem2reg %t/loop.ll | FileCheck %s --check-prefix=LOOP
; RUN: llquote-fmt --allow-undef %t/kept.ll | FileCheck %s --check-prefix=KEPT
;
; IF-NOT: phi
; IF: %y = add i64 5, 1
;
; Only the counter and the sum need phis; %x is 2 wherever it has a value.
; LOOP-COUNT-2: phi i64
; LOOP-NOT: phi
; LOOP: add i64 %s{{[.a-z0-9]*}}, 2
;
; KEPT: %x.1 = phi i64 [ poison, %entry ], [ %x, %if.then ]
; KEPT: %p = phi i64 [ poison, %pre ], [ 7, %own ]
; KEPT: %q = add i64 %x.1, %p

;--- after-if.ll
define i64 @f(i1 %c, i64 %n) {
entry:
  if %c {
    %x = i64 5
  }
  %y = add i64 %x, 1
  ret i64 %y
}

;--- loop.ll
define i64 @g(i64 %n) {
entry:
  %s = i64 0
  for i64 %i in 0 to %n {
    %c = icmp eq i64 %i, 3
    if %c {
      %x = i64 2
    }
    %s = add i64 %s, %x
  }
  ret i64 %s
}

;--- kept.ll
define i64 @h(i1 %c, i64 %a) {
entry:
  if %c {
    %x = add i64 %a, 1
  }
  br label %pre
pre:
  br label %own
own:
  %p = phi i64 [ poison, %pre ], [ 7, %own ]
  %q = add i64 %x, %p
  br i1 %c, label %own, label %out
out:
  ret i64 %q
}
