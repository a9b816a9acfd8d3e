; Population count of 0xF0F0F0F0 by shifting: 16.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 3
; CHECK: exit 16

define i32 @main() {
  %x = i32 -252645136
  %c = i32 0
  for i32 %i in 0 to 32 {
    %b = and i32 %x, 1
    %c = add i32 %c, %b
    %x = lshr i32 %x, 1
  }
  ret i32 %c
}
