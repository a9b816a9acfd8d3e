; A step of 3: 0 + 3 + ... + 18 = 63, with the latch exit.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 3
; CHECK: exit 63

define i32 @main() {
  %s = i32 0
  for i32 %i in 0 to 20 step 3 {
    %s = add i32 %s, %i
  }
  ret i32 %s
}
