; Break out of a for loop at 7: 0 + ... + 6 = 21.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 2
; CHECK: exit 21

define i32 @main() {
  %s = i32 0
  for i32 %i in 0 to 100 {
    %stop = icmp eq i32 %i, 7
    if %stop { break }
    %s = add i32 %s, %i
  }
  ret i32 %s
}
