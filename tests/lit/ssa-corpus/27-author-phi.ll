; An author-written phi among reassigned variables: its operands are read at the end of each predecessor.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 2
; CHECK: exit 52

define i32 @f(i1 %c) {
entry:
  %x = i32 5
  br i1 %c, label %then, label %else
then:
  %x = mul i32 %x, 3
  %y1 = add i32 %x, 1
  br label %join
else:
  %x = add i32 %x, 2
  %y2 = mul i32 %x, 2
  br label %join
join:
  %y = phi i32 [ %y1, %then ], [ %y2, %else ]
  %xx = phi i32 [ %x, %then ], [ %x, %else ]
  %r = add i32 %xx, %y
  ret i32 %r
}
define i32 @main() {
  %a = call i32 @f(i1 true)
  %b = call i32 @f(i1 false)
  %r = add i32 %a, %b
  ret i32 %r
}
