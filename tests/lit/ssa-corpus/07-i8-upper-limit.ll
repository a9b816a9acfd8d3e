; An i8 counter up to 127: 120..126 is 7 iterations, no wrap.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 2
; CHECK: exit 7

define i32 @main() {
  %n = i32 0
  for i8 %i in 120 to 127 {
    %n = add i32 %n, 1
  }
  ret i32 %n
}
