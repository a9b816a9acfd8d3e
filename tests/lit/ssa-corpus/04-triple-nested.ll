; Three nested loops counting iterations: 3*4*5 = 60.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 6
; CHECK: exit 60

define i32 @main() {
  %c = i32 0
  for i32 %a in 0 to 3 {
    for i32 %b in 0 to 4 {
      for i32 %d in 0 to 5 {
        %c = add i32 %c, 1
      }
    }
  }
  ret i32 %c
}
