; A syntax error after the type: the type's error comes first in the text.
; SYNTAX: self-contained-type-syntax.ll:[[@LINE+1]]:1: error: '%myTy' contains itself
%myTy = type { %myTy }
define void @foo(ptr %p) {
  getelementptr %myTy, ptr %p i ,28 1
  ret void
}
