; A switch inside a loop, each case reassigning the accumulator.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 3
; CHECK: exit 238

define i32 @main() {
entry:
  %acc = i32 0
  for i32 %i in 0 to 12 {
    %r = urem i32 %i, 4
    switch i32 %r, label %c3 [
      i32 0, label %c0
      i32 1, label %c1
      i32 2, label %c2
    ]
  c0:
    %acc = add i32 %acc, 1
    br label %next
  c1:
    %acc = mul i32 %acc, 2
    br label %next
  c2:
    %acc = sub i32 %acc, 3
    br label %next
  c3:
    %acc = xor i32 %acc, 5
    br label %next
  next:
  }
  %out = and i32 %acc, 255
  ret i32 %out
}
