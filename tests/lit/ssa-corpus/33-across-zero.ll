; Counting across zero and toward negative bounds: -5..4 sums to -5, -10
; downto -20 (exclusive) sums to -145; the result is 150 + (-5) + (-145) = 0.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 4
; CHECK: exit 0

define i32 @main() {
  %s = i32 150
  for i32 %i in -5 to 5 {
    %s = add i32 %s, %i
  }
  for i32 %j in -10 downto -20 {
    %s = add i32 %s, %j
  }
  ret i32 %s
}
