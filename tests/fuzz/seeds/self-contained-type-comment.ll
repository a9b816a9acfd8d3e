%myTy;ii
 = type { %myTy }
define void @foo(ptr %p) {
  getelementptr %myTy, ptr %p
  riet void
}
