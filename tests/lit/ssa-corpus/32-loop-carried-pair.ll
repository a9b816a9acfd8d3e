; Two loops in sequence sharing a variable, with an early exit from the first.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 5
; CHECK: exit 227

define i32 @main() {
  %v = i32 1
  for i32 %i in 0 to 20 {
    %v = mul i32 %v, 3
    %v = urem i32 %v, 1000
    %big = icmp sgt i32 %v, 500
    if %big { break }
  }
  for i32 %i in 0 to 5 {
    %v = add i32 %v, %i
  }
  %r = and i32 %v, 255
  ret i32 %r
}
