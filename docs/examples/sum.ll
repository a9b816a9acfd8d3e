; The sum loop: a reassigned accumulator in a for loop.
define i64 @sum(i64 %start, i64 %end) {
entry:
  %x = i64 0
  for i64 %i in %start to %end {
    %x = add i64 %i, %x
  }
  ret i64 %x
}
