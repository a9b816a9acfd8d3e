; --emit selects LLVM IR, target assembly or an object file.
; RUN: llquote-fmt -O2 --emit=asm --mtriple=x86_64-unknown-linux-gnu --mcpu=x86-64 %s | FileCheck %s --check-prefix=ASM
; RUN: llquote-fmt --emit=asm --mtriple=aarch64-unknown-linux-gnu %s | FileCheck %s --check-prefix=ARM
; RUN: llquote-fmt --emit=obj --mtriple=x86_64-unknown-linux-gnu %s -o %t.o
; RUN: llvm-nm %t.o | FileCheck %s --check-prefix=OBJ
; RUN: llquote-fmt --emit=llvm %s | FileCheck %s --check-prefix=IR

; ASM: add_one:
; ASM: leal 1(%rdi), %eax
; ARM: add_one:
; ARM: add w0, w0, #1
; OBJ: T add_one
; IR: define i32 @add_one(i32 %x)
define i32 @add_one(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}
