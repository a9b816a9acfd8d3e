; DIRECT: self-contained-type-direct.ll:[[@LINE+1]]:1: error: '%myTy' contains itself, not a pointer to itself
%myTy = type { %myTy }
define void @foo(ptr %p) {
  getelementptr %myTy, ptr %p
  ret void
}
