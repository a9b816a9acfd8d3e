define i32 @g() {
  %r = call i32 asm "", "={@ccz},^Wa,~{memory}"(i32 0)
  call void asm sideeffect "", "@2ab"(i32 1)
  ret i32 %r
}
