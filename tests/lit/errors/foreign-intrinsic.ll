; A call to another target's intrinsic is refused before code generation,
; at the call, naming the intrinsic and its target: LLVM's instruction
; selector would stop with "LLVM ERROR: Cannot select" and a stack dump.
; RUN: %expect-exit 1 llquote-fmt --emit=asm --mtriple=x86_64-unknown-linux-gnu %s 2>&1 \
; RUN:   | FileCheck %s --implicit-check-not="LLVM ERROR" --implicit-check-not="Stack dump"
; RUN: %expect-exit 1 llquote-fmt --emit=obj --mtriple=aarch64-unknown-linux-gnu %s -o %t.o 2>&1 \
; RUN:   | FileCheck %s --check-prefix=ARM

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define i32 @thread_id(i32 %x) {
  %y = add i32 %x, 1
; CHECK: foreign-intrinsic.ll:[[@LINE+2]]:17: error: '@llvm.nvvm.read.ptx.sreg.tid.x' is an intrinsic of the nvptx target; code cannot be generated for it on x86_64-unknown-linux-gnu
; ARM: foreign-intrinsic.ll:[[@LINE+1]]:17: error: '@llvm.nvvm.read.ptx.sreg.tid.x' is an intrinsic of the nvptx target; code cannot be generated for it on aarch64-unknown-linux-gnu
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CHECK-NEXT: {{^}}  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CHECK-NEXT: {{^}}                ^
  %r = add i32 %t, %y
  ret i32 %r
}

; IR output needs no code generation: the module prints as it is.
; RUN: llquote-fmt --mtriple=x86_64-unknown-linux-gnu -O1 %s | FileCheck %s --check-prefix=IR
; IR: call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
