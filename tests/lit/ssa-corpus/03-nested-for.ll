; Nested for loops: sum of i*j for i, j < 5 = 100.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 4
; CHECK: exit 100

define i32 @main() {
  %s = i32 0
  for i32 %i in 0 to 5 {
    for i32 %j in 0 to 5 {
      %p = mul i32 %i, %j
      %s = add i32 %s, %p
    }
  }
  ret i32 %s
}
