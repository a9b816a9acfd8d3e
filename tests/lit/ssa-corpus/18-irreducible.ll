; Irreducible control flow: two entries into a cycle; %x is never redefined inside it.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 3
; CHECK: exit 30

define i32 @f(i1 %c) {
entry:
  %x = i32 10
  %k = i32 0
  br i1 %c, label %a, label %b
a:
  %k = add i32 %k, 1
  %da = icmp slt i32 %k, 2
  br i1 %da, label %b, label %out
b:
  %k = add i32 %k, 1
  %db = icmp slt i32 %k, 2
  br i1 %db, label %a, label %out
out:
  %r = mul i32 %x, %k
  ret i32 %r
}
define i32 @main() {
  %p = call i32 @f(i1 true)
  %q = call i32 @f(i1 false)
  %r = add i32 %p, %q
  %r2 = sub i32 %r, 10
  ret i32 %r2
}
