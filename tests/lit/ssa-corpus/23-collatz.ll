; Collatz steps from 27: 111.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 4
; CHECK: exit 111

define i32 @main() {
  %n = i64 27
  %steps = i32 0
  %more = icmp ne i64 %n, 1
  while %more {
    %low = and i64 %n, 1
    %even = icmp eq i64 %low, 0
    if %even {
      %n = lshr i64 %n, 1
    } else {
      %n = mul i64 %n, 3
      %n = add i64 %n, 1
    }
    %steps = add i32 %steps, 1
    %more = icmp ne i64 %n, 1
  }
  ret i32 %steps
}
