; While with both: sum of non-multiples of 3 below 15, stopping at 13: 1+2+4+5+7+8+10+11 = 48.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 3
; CHECK: exit 48

define i32 @main() {
  %i = i32 0
  %s = i32 0
  %go = i1 true
  while %go {
    %i = add i32 %i, 1
    %stop = icmp eq i32 %i, 13
    if %stop { break }
    %r = urem i32 %i, 3
    %m3 = icmp eq i32 %r, 0
    if %m3 { continue }
    %s = add i32 %s, %i
    %go = icmp slt i32 %i, 15
  }
  ret i32 %s
}
