; Verifier errors point at the instruction they are about.
; RUN: not llquote-fmt %s 2>&1 | FileCheck %s
define i32 @f(i32 %a) {
entry:
; CHECK: [[@LINE+2]]:3: error: Only PHI nodes may reference their own value!
; CHECK-NEXT: %y = add i32 %y, %a
  %y = add i32 %y, %a
  ret i32 %y
}
