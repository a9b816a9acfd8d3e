; -O runs the new pass manager pipeline on the given target machine.
; RUN: llquote-fmt -O2 %s | FileCheck %s --check-prefix=O2
; RUN: llquote-fmt -O0 %s | FileCheck %s --check-prefix=O0
; The loop vectorizer sees the vector width of the pinned CPU.
; RUN: llquote-fmt -O3 --mtriple=x86_64-unknown-linux-gnu --mcpu=haswell %s | FileCheck %s --check-prefix=VEC
; RUN: llquote-fmt -O3 --mtriple=x86_64-unknown-linux-gnu --mcpu=x86-64 %s | FileCheck %s --check-prefix=SSE

; O2-LABEL: define {{.*}}i32 @fold()
; O2-NEXT: entry:
; O2-NEXT: ret i32 5
; O0-LABEL: define i32 @fold()
; O0: %s = add i32 2, 3
define i32 @fold() {
entry:
  %s = add i32 2, 3
  ret i32 %s
}

; VEC-LABEL: define {{.*}}void @inc(
; VEC: add <8 x i32>
; SSE-LABEL: define {{.*}}void @inc(
; SSE: add <4 x i32>
define void @inc(ptr noalias %a, i64 %n) {
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  %v = load i32, ptr %p, align 4
  %w = add i32 %v, 1
  store i32 %w, ptr %p, align 4
  %i1 = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i1, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
