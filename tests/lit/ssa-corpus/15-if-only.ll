; An if without else: abs(-9) + abs(4) = 13.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 1
; CHECK: exit 13

define i32 @abs(i32 %x) {
  %neg = icmp slt i32 %x, 0
  if %neg { %x = sub i32 0, %x }
  ret i32 %x
}
define i32 @main() {
  %a = call i32 @abs(i32 -9)
  %b = call i32 @abs(i32 4)
  %r = add i32 %a, %b
  ret i32 %r
}
