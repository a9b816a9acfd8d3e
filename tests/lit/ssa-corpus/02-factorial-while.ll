; A while loop: 5! = 120.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 3
; CHECK: exit 120

define i32 @main() {
  %n = i32 5
  %f = i32 1
  %more = icmp sgt i32 %n, 1
  while %more {
    %f = mul i32 %f, %n
    %n = sub i32 %n, 1
    %more = icmp sgt i32 %n, 1
  }
  ret i32 %f
}
