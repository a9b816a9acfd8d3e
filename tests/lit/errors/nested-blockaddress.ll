; blockaddress takes a function's name and a block's name. LLVM 19's reader
; crashes on a blockaddress inside another (in either place); llquote refuses
; it at the inner one, before LLVM reads the text.
; RUN: split-file %s %t
; RUN: not llquote-fmt %t/in-function.ll 2>&1 | FileCheck %s --check-prefix=FN --implicit-check-not="Stack dump"
; RUN: not llquote-fmt %t/in-block.ll 2>&1 | FileCheck %s --check-prefix=BB --implicit-check-not="Stack dump"
; RUN: llquote-fmt %t/fine.ll | FileCheck %s --check-prefix=FINE
; FN: in-function.ll:1:30: error: expected global name, {{.*}} found 'blockaddress'
; BB: in-block.ll:1:34: error: expected local name, {{.*}} found 'blockaddress'
; FINE: @A = global ptr blockaddress(@f, %next)

;--- in-function.ll
@A = global ptr blockaddress(blockaddress(@f, %next), %next)
define void @f() {
entry:
  br label %next
next:
  ret void
}

;--- in-block.ll
@A = global ptr blockaddress(@f, blockaddress(@f, %next))
define void @f() {
entry:
  br label %next
next:
  ret void
}

;--- fine.ll
@A = global ptr blockaddress(@f, %next)
define void @f() {
entry:
  br label %next
next:
  ret void
}
