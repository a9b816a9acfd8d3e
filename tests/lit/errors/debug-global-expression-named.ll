; The same mistyped DIGlobalVariableExpression as in
; debug-global-expression-kind.ll, reached from named metadata that is not
; debug info: stripping debug info leaves it, and LLVM 19's verifier would
; still cast it unchecked (found by the parser fuzzer). It is refused, at
; the node.
; RUN: not llquote-fmt %s 2>&1 | FileCheck %s --implicit-check-not="Stack dump"

; CHECK: warning: ignoring invalid debug info in {{.*}}debug-global-expression-named.ll
; CHECK: debug-global-expression-named.ll:[[@LINE+4]]:6: error: invalid debug info: a !DIGlobalVariableExpression's 'var:' must be a !DIGlobalVariable
@g = global float 0.0
!llvm.module.flags = !{!15}
!my.globals = !{!6}
!0 = !DIGlobalVariableExpression(var: !5, expr: !DIExpression())
!3 = !DIFile(filename: "em.f90", directory: "tests")
!5 = !{null}
!6 = distinct !DICompileUnit(language: DW_LANG_Fortran95, file: !3, producer: "x", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, globals: !8)
!8 = !{!0}
!15 = !{i32 2, !"Debug Info Version", i32 3}
