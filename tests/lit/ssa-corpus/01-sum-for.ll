; A for loop summing its counter: 0 + 1 + ... + 9 = 45.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 2
; CHECK: exit 45

define i32 @main() {
  %s = i32 0
  for i32 %i in 0 to 10 {
    %s = add i32 %s, %i
  }
  ret i32 %s
}
