; A mistake: %n is an i64, used as an i32.
define i32 @first(i64 %n, ptr %p) {
entry:
  %i = add i32 %n, 1
  ret i32 %i
}
