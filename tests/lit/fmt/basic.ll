; Plain LLVM IR comes out as the same module, names and flags intact.
; RUN: llquote-fmt %s | FileCheck %s
; RUN: llquote-fmt - < %s | FileCheck %s
; RUN: llquote-fmt %s -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: %roundtrip %s

%pair = type { i32, float }
@counter = internal global i64 0, align 8

; CHECK: define i32 @scale(i32 noundef %x, ptr %p) #0 {
define i32 @scale(i32 noundef %x, ptr %p) #0 {
entry:
; CHECK: %twice = shl nuw nsw i32 %x, 1
  %twice = shl nuw nsw i32 %x, 1
; CHECK: %f = getelementptr inbounds %pair, ptr %p, i64 0, i32 1
  %f = getelementptr inbounds %pair, ptr %p, i64 0, i32 1
  %old = atomicrmw add ptr @counter, i64 1 seq_cst, align 8
; CHECK: ret i32 %twice
  ret i32 %twice
}
; CHECK: attributes #0 = { nounwind }
attributes #0 = { nounwind }
