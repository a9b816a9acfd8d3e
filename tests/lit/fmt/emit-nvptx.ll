; --mtriple names any registered target, not only the ones ORC can JIT:
; NVPTX has no JIT, and PTX comes out of the target registry's machine.
; RUN: llquote-fmt --emit=asm --mtriple=nvptx64-nvidia-cuda --mcpu=sm_90 %s | FileCheck %s

; CHECK: .target sm_90
; CHECK: .address_size 64
; CHECK: .visible .entry scale(
; CHECK: mov.u32 {{%r[0-9]+}}, %tid.x;
; CHECK: ret;

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @scale(ptr addrspace(1) %a, float %k) {
  %i = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr float, ptr addrspace(1) %a, i32 %i
  %v = load float, ptr addrspace(1) %p
  %w = fmul float %v, %k
  store float %w, ptr addrspace(1) %p
  ret void
}
