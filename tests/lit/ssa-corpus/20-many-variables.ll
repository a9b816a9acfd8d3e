; Ten variables updated in one loop.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 11
; CHECK: exit 239

define i32 @main() {
  %v0 = i32 0
  %v1 = i32 1
  %v2 = i32 2
  %v3 = i32 3
  %v4 = i32 4
  %v5 = i32 5
  %v6 = i32 6
  %v7 = i32 7
  %v8 = i32 8
  %v9 = i32 9
  for i32 %it in 0 to 5 {
    %m0 = mul i32 0, %it
    %v0 = add i32 %v0, %m0
    %m1 = mul i32 1, %it
    %v1 = add i32 %v1, %m1
    %m2 = mul i32 2, %it
    %v2 = add i32 %v2, %m2
    %m3 = mul i32 3, %it
    %v3 = add i32 %v3, %m3
    %m4 = mul i32 4, %it
    %v4 = add i32 %v4, %m4
    %m5 = mul i32 5, %it
    %v5 = add i32 %v5, %m5
    %m6 = mul i32 6, %it
    %v6 = add i32 %v6, %m6
    %m7 = mul i32 7, %it
    %v7 = add i32 %v7, %m7
    %m8 = mul i32 8, %it
    %v8 = add i32 %v8, %m8
    %m9 = mul i32 9, %it
    %v9 = add i32 %v9, %m9
  }
  %t = i32 0
  %t = add i32 %t, %v0
  %t = add i32 %t, %v1
  %t = add i32 %t, %v2
  %t = add i32 %t, %v3
  %t = add i32 %t, %v4
  %t = add i32 %t, %v5
  %t = add i32 %t, %v6
  %t = add i32 %t, %v7
  %t = add i32 %t, %v8
  %t = add i32 %t, %v9
  %r = and i32 %t, 255
  ret i32 %r
}
