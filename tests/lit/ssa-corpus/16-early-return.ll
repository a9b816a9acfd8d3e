; Return from inside a loop: the first square above 50 is 64.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 1
; CHECK: exit 64

define i32 @first_square_above(i32 %limit) {
  for i32 %i in 0 to 100 {
    %sq = mul i32 %i, %i
    %big = icmp sgt i32 %sq, %limit
    if %big { ret i32 %sq }
  }
  ret i32 0
}
define i32 @main() {
  %r = call i32 @first_square_above(i32 50)
  ret i32 %r
}
