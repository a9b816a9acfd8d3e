; An object file with inline assembly: the target's assembly parser reads
; it. A mistake in the assembly is one error, and the exit status is 1.
; RUN: llquote-fmt --emit=obj --mtriple=x86_64-unknown-linux-gnu %s -o %t.o
; RUN: llvm-objdump -d %t.o | FileCheck %s
; RUN: sed 's/movl \$\$42, /frobnicate /' %s > %t.bad.ll
; RUN: %expect-exit 1 llquote-fmt --emit=obj --mtriple=x86_64-unknown-linux-gnu %t.bad.ll -o %t.bad.o 2>&1 \
; RUN:   | FileCheck %s --check-prefix=BAD --implicit-check-not="LLVM ERROR"

; CHECK: movl $0x2a, %eax
; BAD: error: <inline asm>:1:2: invalid instruction mnemonic 'frobnicate'

define i32 @answer() {
  %r = call i32 asm "movl $$42, $0", "=r"()
  ret i32 %r
}
