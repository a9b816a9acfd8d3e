; Skip odd counters: 0 + 2 + ... + 18 = 90.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 3
; CHECK: exit 90

define i32 @main() {
  %s = i32 0
  for i32 %i in 0 to 20 {
    %odd = and i32 %i, 1
    %isodd = icmp ne i32 %odd, 0
    if %isodd { continue }
    %s = add i32 %s, %i
  }
  ret i32 %s
}
