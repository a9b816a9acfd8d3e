; The name of the type is followed by a comment, and '=' is on the next line.
; COMMENT: self-contained-type-comment.ll:[[@LINE+1]]:1: error: '%myTy' contains itself, not a pointer to itself
%myTy;note
 = type { %myTy }
define void @foo(ptr %p) {
  getelementptr %myTy, ptr %p
  ret void
}
