; The permute critical section of the design: a spinlock per destination
; cell, taken with an atomic exchange in a while loop over a reassigned flag.
; RUN: %ssa-compare %s | FileCheck %s --check-prefix=SSA
; SSA: exit
; RUN: llquote-fmt %s -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: %expect-exit 0 lli %t.ll

define void @combine_into(ptr %locks, ptr %cells, i64 %dst, float %x) {
entry:
  %baddr = getelementptr i8, ptr %locks, i64 %dst
  %spin = i1 true
  while %spin {
    %old = atomicrmw volatile xchg ptr %baddr, i8 1 acq_rel
    %spin = icmp ne i8 %old, 0
  }
  %cell = getelementptr float, ptr %cells, i64 %dst
  %v = load float, ptr %cell
  %v = fadd float %v, %x
  store float %v, ptr %cell
  store atomic volatile i8 0, ptr %baddr release, align 1
  ret void
}
; The flag is a phi of the constant true and the exchange's answer; the
; second definition of %v is a new version.
; CHECK-LABEL: define void @combine_into(
; CHECK:       while.cond:
; CHECK-NEXT:    %spin.1 = phi i1 [ true, %entry ], [ %spin.2, %while.body ]
; CHECK-NEXT:    br i1 %spin.1, label %while.body, label %while.end
; CHECK:       while.body:
; CHECK-NEXT:    %old = atomicrmw volatile xchg ptr %baddr, i8 1 acq_rel
; CHECK-NEXT:    %spin.2 = icmp ne i8 %old, 0
; CHECK:         %v.1 = fadd float %v, %x
; CHECK-NEXT:    store float %v.1, ptr %cell
; CHECK-NOT:     phi
; CHECK-LABEL: define i32 @main()

@locks = global [4 x i8] zeroinitializer
@cells = global [4 x float] zeroinitializer

; Scatters 1.0 + 2.0 + ... + 8.0 into cell (i mod 4): cell 1 gets 1 + 5 = 6.
define i32 @main() {
entry:
  for i64 %i in 1 to 9 {
    %d = urem i64 %i, 4
    %f = uitofp i64 %i to float
    call void @combine_into(ptr @locks, ptr @cells, i64 %d, float %f)
  }
  %p = getelementptr float, ptr @cells, i64 1
  %v = load float, ptr %p
  %ok = fcmp oeq float %v, 6.0e+00
  %lock = load i8, ptr @locks
  %free = icmp eq i8 %lock, 0
  %r = i32 1
  if %ok { if %free { %r = i32 0 } }
  ret i32 %r
}
