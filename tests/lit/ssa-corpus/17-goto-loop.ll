; A loop written with labels and br, over a reassigned variable: 2^7 = 128.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 2
; CHECK: exit 128

define i32 @main() {
entry:
  %x = i32 1
  %n = i32 0
  br label %head
head:
  %more = icmp slt i32 %n, 7
  br i1 %more, label %body, label %exit
body:
  %x = shl i32 %x, 1
  %n = add i32 %n, 1
  br label %head
exit:
  ret i32 %x
}
