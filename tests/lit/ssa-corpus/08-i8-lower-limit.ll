; An i8 counter down to -128: 127..-127 is 255 iterations, no wrap.
; RUN: %ssa-compare %s | FileCheck %s
; CHECK: phis 2
; CHECK: exit 255

define i32 @main() {
  %n = i32 0
  for i8 %i in 127 downto -128 {
    %n = add i32 %n, 1
  }
  ret i32 %n
}
