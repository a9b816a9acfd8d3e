; Step 100 from -128 to 127: -128, -28, 72 (the next would wrap): 3.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 3
; CHECK: exit 3

define i32 @main() {
  %n = i32 0
  for i8 %i in -128 to 127 step 100 {
    %n = add i32 %n, 1
  }
  ret i32 %n
}
