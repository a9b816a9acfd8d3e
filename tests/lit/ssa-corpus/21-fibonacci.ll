; Fibonacci by swapping two variables: fib(12) = 144.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 3
; CHECK: exit 144

define i32 @main() {
  %a = i32 0
  %b = i32 1
  for i32 %i in 0 to 12 {
    %t = add i32 %a, %b
    %a = i32 %b
    %b = i32 %t
  }
  ret i32 %a
}
