; Irreducible control flow where both nodes of the cycle update the variable.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 5
; CHECK: exit 21

define i32 @f(i1 %c, i32 %n) {
entry:
  %s = i32 0
  %i = i32 0
  br i1 %c, label %a, label %b
a:
  %s = add i32 %s, 1
  %i = add i32 %i, 1
  %da = icmp slt i32 %i, %n
  br i1 %da, label %b, label %out
b:
  %s = add i32 %s, 10
  %i = add i32 %i, 1
  %db = icmp slt i32 %i, %n
  br i1 %db, label %a, label %out
out:
  ret i32 %s
}
define i32 @main() {
  %p = call i32 @f(i1 true, i32 2)
  %q = call i32 @f(i1 false, i32 1)
  %r = add i32 %p, %q
  ret i32 %r
}
