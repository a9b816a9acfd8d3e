; A dbg.declare without !dbg becomes a debug record without a location,
; which LLVM 19's verifier crashes on while it prints it. llquote drops the
; broken debug info with a warning, as LLVM's reader does with invalid
; debug info, and the module is read without it.
; RUN: llquote-fmt %s 2>&1 | FileCheck %s --implicit-check-not="Stack dump" --implicit-check-not="call void @llvm.dbg"

; CHECK: warning: ignoring invalid debug info in {{.*}}debug-record-no-location.ll
; CHECK: define void @f() {
; CHECK-NEXT: %x = alloca i32
; CHECK-NEXT: ret void
define void @f() !dbg !4 {
  %x = alloca i32
  call void @llvm.dbg.declare(metadata ptr %x, metadata !7, metadata !DIExpression()), !dgb !9
  ret void, !dbg !9
}

declare void @llvm.dbg.declare(metadata, metadata, metadata)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}
!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "f.c", directory: "/")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !5, unit: !0, spFlags: DISPFlagDefinition)
!5 = !DISubroutineType(types: !6)
!6 = !{null}
!7 = !DILocalVariable(name: "x", scope: !4, file: !1, line: 2, type: !8)
!8 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!9 = !DILocation(line: 2, scope: !4)
