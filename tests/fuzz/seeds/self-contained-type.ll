%myTy = type { %myTy }
define void @foo(ptr %p) {
  getelementptr %myTy, ptr %p
  ret void
}
