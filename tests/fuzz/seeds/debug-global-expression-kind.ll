; A DIGlobalVariableExpression whose variable is not a DIGlobalVariable
; (here a tuple): LLVM 19's verifier casts it without a check and reads past
; the node, which crashes under AddressSanitizer (found by the template
; fuzzer). llquote finds it first and drops the debug info with a warning,
; as LLVM's reader does with invalid debug info.
; RUN: llquote-fmt %s 2>&1 | FileCheck %s --implicit-check-not="Stack dump" --implicit-check-not="invalid tag" --implicit-check-not="!dbg"

; CHECK: warning: ignoring invalid debug info in {{.*}}debug-global-expression-kind.ll
; CHECK: @g = global float 0.000000e+00
@g = global float 0.0, !dbg !0
!llvm.module.flags = !{!15}
!llvm.dbg.cu = !{!6}
!0 = !DIGlobalVariableExpression(var: !5, expr: !DIExpression())
!3 = !DIFile(filename: "em.f90", directory: "tests")
!5 = !{null}
!6 = distinct !DICompileUnit(language: DW_LANG_Fortran95, file: !3, producer: "x", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, globals: !8)
!8 = !{!0}
!15 = !{i32 2, !"Debug Info Version", i32 3}
