; The largest of three by reassignment: max(17, 42, 23) = 42.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 2
; CHECK: exit 42

define i32 @max3(i32 %a, i32 %b, i32 %c) {
  %m = i32 %a
  %gb = icmp sgt i32 %b, %m
  if %gb { %m = i32 %b }
  %gc = icmp sgt i32 %c, %m
  if %gc { %m = i32 %c } else { %m = add i32 %m, 0 }
  ret i32 %m
}
define i32 @main() {
  %r = call i32 @max3(i32 17, i32 42, i32 23)
  ret i32 %r
}
