; A do-while by while true and break: digits of 98765 sum to 35.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 3
; CHECK: exit 35

define i32 @main() {
  %n = i32 98765
  %s = i32 0
  while true {
    %d = urem i32 %n, 10
    %s = add i32 %s, %d
    %n = udiv i32 %n, 10
    %zero = icmp eq i32 %n, 0
    if %zero { break }
  }
  ret i32 %s
}
