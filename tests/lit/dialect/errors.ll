; Every error class of the dialect, with its message and position.
; RUN: split-file %s %t
; RUN: not llquote-fmt %t/undef.ll 2>&1 | FileCheck %s --check-prefix=UNDEF
; RUN: llquote-fmt --allow-undef %t/undef.ll | FileCheck %s --check-prefix=POISON
; RUN: not llquote-fmt %t/never.ll 2>&1 | FileCheck %s --check-prefix=NEVER
; RUN: not llquote-fmt %t/types.ll 2>&1 | FileCheck %s --check-prefix=TYPES
; RUN: not llquote-fmt %t/break.ll 2>&1 | FileCheck %s --check-prefix=BREAK
; RUN: not llquote-fmt %t/continue.ll 2>&1 | FileCheck %s --check-prefix=CONTINUE
; RUN: not llquote-fmt %t/zero-step.ll 2>&1 | FileCheck %s --check-prefix=ZERO
; RUN: not llquote-fmt %t/negative-step.ll 2>&1 | FileCheck %s --check-prefix=NEG
; RUN: not llquote-fmt %t/float-counter.ll 2>&1 | FileCheck %s --check-prefix=FLOAT
; RUN: not llquote-fmt %t/malformed-for.ll 2>&1 | FileCheck %s --check-prefix=MALFORMED
; RUN: not llquote-fmt %t/falls-off.ll 2>&1 | FileCheck %s --check-prefix=FALLS

;--- undef.ll
define i32 @f(i1 %c) {
entry:
  if %c {
    %x = i32 1
  }
  ret i32 %x
}
; UNDEF: undef.ll:6:11: error: '%x' is read here but is not assigned on every path to this point
; UNDEF-NEXT: ret i32 %x
; UNDEF: undef.ll:3:6: note: '%x' has no value when control comes through here
; With --allow-undef %x is poison where it has no value, which may be 1.
; POISON-NOT: phi
; POISON: ret i32 1
;--- never.ll
define i32 @f() {
  %y = add i32 %x, 1
  %x = i32 2
  ret i32 %y
}
; NEVER: never.ll:2:16: error: '%x' is read here but is not assigned on every path to this point
; NEVER: never.ll:2:3: note: '%x' has no value on the path from the function's entry, here
;--- types.ll
define void @f() {
  %x = i64 0
  %x = i32 1
  ret void
}
; TYPES: types.ll:3:3: error: '%x' is assigned a value of type 'i32' here, but a value of type 'i64' elsewhere
; TYPES: types.ll:2:3: note: '%x' is assigned a 'i64' here
;--- break.ll
define void @f() {
  break
}
; BREAK: break.ll:2:3: error: 'break' outside of a for or while loop
;--- continue.ll
define void @f(i1 %c) {
  if %c { continue }
  ret void
}
; CONTINUE: continue.ll:2:11: error: 'continue' outside of a for or while loop
;--- zero-step.ll
define void @f() {
  for i32 %i in 0 to 10 step 0 { }
  ret void
}
; ZERO: zero-step.ll:2:30: error: the step of a for loop must not be zero
;--- negative-step.ll
define void @f() {
  for i32 %i in 0 to 10 step -2 { }
  ret void
}
; NEG: negative-step.ll:2:30: error: the step of a for loop is a distance and must be positive; count down with 'downto'
;--- float-counter.ll
define void @f() {
  for float %i in 0.0 to 1.0 { }
  ret void
}
; FLOAT: float-counter.ll:2:7: error: the counter of a for loop must have an integer type, not 'float'
;--- malformed-for.ll
define void @f() {
  for i32 %i from 0 to 10 { }
  ret void
}
; MALFORMED: malformed-for.ll:2:14: error: expected 'in', found 'from'
;--- falls-off.ll
define void @f() {
  %x = i32 1
  %y = add i32 %x, 2
}
; FALLS: falls-off.ll:3:3: error: control reaches the end of the function without a terminator (ret, br, unreachable, ...)
