; Counting down: 10 + 9 + ... + 1 = 55.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 2
; CHECK: exit 55

define i32 @main() {
  %s = i32 0
  for i32 %i in 10 downto 0 {
    %s = add i32 %s, %i
  }
  ret i32 %s
}
