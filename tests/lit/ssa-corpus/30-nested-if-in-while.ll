; Nested ifs and continue in a while: classify 1..30 into three counters.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 7
; CHECK: exit 57

define i32 @main() {
  %i = i32 0
  %c1 = i32 0
  %c2 = i32 0
  %c3 = i32 0
  %more = i1 true
  while %more {
    %i = add i32 %i, 1
    %more = icmp slt i32 %i, 30
    %r2 = urem i32 %i, 2
    %even = icmp eq i32 %r2, 0
    if %even {
      %r3 = urem i32 %i, 3
      %by3 = icmp eq i32 %r3, 0
      if %by3 {
        %c1 = add i32 %c1, 1
        continue
      }
      %c2 = add i32 %c2, 1
    } else {
      %c3 = add i32 %c3, %i
    }
  }
  %a = mul i32 %c1, 100
  %b = mul i32 %c2, 10
  %s = add i32 %a, %b
  %s = add i32 %s, %c3
  %r = and i32 %s, 255
  ret i32 %r
}
