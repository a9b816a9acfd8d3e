define void @f() {
  callbr void asm "", "x @y,!i"() to label %a [label %b]
a:
  ret void
b:
  ret void
}
