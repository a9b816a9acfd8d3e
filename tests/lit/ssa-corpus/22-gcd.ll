; Euclid: gcd(1071, 462) = 21.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 3
; CHECK: exit 21

define i32 @main() {
  %a = i32 1071
  %b = i32 462
  %nz = icmp ne i32 %b, 0
  while %nz {
    %r = urem i32 %a, %b
    %a = i32 %b
    %b = i32 %r
    %nz = icmp ne i32 %b, 0
  }
  ret i32 %a
}
