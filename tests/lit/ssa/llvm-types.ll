; Variables take LLVM's types, whatever instruction defines them: a vector
; GEP and a shufflevector that narrows a vector are reassigned in loops, and
; both SSA modes give their phis the type LLVM gave the values.
; RUN: llquote-fmt %s | FileCheck %s
; RUN: llquote-fmt --ssa=mem2reg %s | FileCheck %s

; CHECK-LABEL: define <2 x i32> @narrow(
; CHECK: %v.1 = phi <2 x i32> [ %v, %entry ], [ %v.2, %for.inc ]
; CHECK: ret <2 x i32> %v.1
define <2 x i32> @narrow(<4 x i32> %a, i32 %n) {
entry:
  %v = shufflevector <4 x i32> %a, <4 x i32> %a, <2 x i32> <i32 0, i32 1>
  for i32 %i in 0 to %n {
    %v = shufflevector <4 x i32> %a, <4 x i32> %a, <2 x i32> <i32 2, i32 3>
  }
  ret <2 x i32> %v
}

; CHECK-LABEL: define <2 x ptr> @step(
; CHECK: %q.1 = phi <2 x ptr> [ %q, %entry ], [ %q.2, %for.inc ]
; CHECK: %q.2 = getelementptr i8, <2 x ptr> %q.1, <2 x i64> <i64 1, i64 2>
define <2 x ptr> @step(<2 x ptr> %p, i32 %n) {
entry:
  %q = getelementptr i8, <2 x ptr> %p, <2 x i64> <i64 1, i64 2>
  for i32 %i in 0 to %n {
    %q = getelementptr i8, <2 x ptr> %q, <2 x i64> <i64 1, i64 2>
  }
  ret <2 x ptr> %q
}

; A callee read from a variable is a `ptr`, whatever the call returns.
; CHECK-LABEL: define i32 @indirect(
; CHECK: %fp.1 = phi ptr [ {{@one|@two}}, %{{entry|if.then}} ], [ {{@one|@two}}, %{{entry|if.then}} ]
; CHECK: call i32 %fp.1()
declare i32 @one()
declare i32 @two()
define i32 @indirect(i1 %c) {
entry:
  %fp = ptr @one
  if %c {
    %fp = ptr @two
  }
  %r = call i32 %fp()
  ret i32 %r
}
