define i32 @f(i32 %x) {
  %a = add i32 %x, 1
  %b = add i32 %x, 2
  %s = add i32 %a, %b
  ret i32 %s
; UNBOUND: antiquote-uselistorder.ll:[[@LINE+1]]:26: error: unbound antiquote '$const:second'
  uselistorder i32 %x, { $const:second, 0 }
}
; BOUND: define i32 @f(i32 %x)
