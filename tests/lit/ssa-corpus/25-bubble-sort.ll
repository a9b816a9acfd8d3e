; Bubble sort of a global array, then a weighted checksum of the result.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 4
; CHECK: exit 74

@a = global [10 x i32] [i32 9, i32 4, i32 7, i32 1, i32 8, i32 2, i32 6, i32 3, i32 5, i32 0]
define i32 @main() {
  for i32 %i in 0 to 10 {
    %last = sub i32 9, %i
    for i32 %j in 0 to %last {
      %pj = getelementptr i32, ptr @a, i32 %j
      %j1 = add i32 %j, 1
      %pk = getelementptr i32, ptr @a, i32 %j1
      %x = load i32, ptr %pj
      %y = load i32, ptr %pk
      %gt = icmp sgt i32 %x, %y
      if %gt {
        store i32 %y, ptr %pj
        store i32 %x, ptr %pk
      }
    }
  }
  %c = i32 0
  for i32 %k in 0 to 10 {
    %p = getelementptr i32, ptr @a, i32 %k
    %v = load i32, ptr %p
    %w = add i32 %k, 1
    %m = mul i32 %v, %w
    %c = add i32 %c, %m
  }
  %r = and i32 %c, 255
  ret i32 %r
}
