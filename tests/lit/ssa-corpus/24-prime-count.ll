; Primes below 100 by trial division with break: 25.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 5
; CHECK: exit 25

define i32 @main() {
  %count = i32 0
  for i32 %n in 2 to 100 {
    %prime = i1 true
    for i32 %d in 2 to %n {
      %sq = mul i32 %d, %d
      %past = icmp sgt i32 %sq, %n
      if %past { break }
      %r = urem i32 %n, %d
      %div = icmp eq i32 %r, 0
      if %div {
        %prime = i1 false
        break
      }
    }
    if %prime { %count = add i32 %count, 1 }
  }
  ret i32 %count
}
