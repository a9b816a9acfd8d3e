define i32 @f(i32 %x) {
entry:
  %y = add nsw i32 %x, -42
  ret i32 %y
}
