; Break the inner loop only: for each i < 6, add j while j < i: 0+0+1+3+6+10 = 20.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 4
; CHECK: exit 20

define i32 @main() {
  %s = i32 0
  for i32 %i in 0 to 6 {
    for i32 %j in 0 to 100 {
      %done = icmp sge i32 %j, %i
      if %done { break }
      %s = add i32 %s, %j
    }
  }
  ret i32 %s
}
