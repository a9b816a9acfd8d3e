; A step read from a variable, and a bound reassigned inside the loop (read once, before).
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 4
; CHECK: exit 196

define i32 @main() {
  %n = i32 50
  %st = i32 7
  %s = i32 0
  for i32 %i in 0 to %n step %st {
    %s = add i32 %s, %i
    %n = sub i32 %n, 1
    %st = i32 1
  }
  %r = and i32 %s, 255
  ret i32 %r
}
