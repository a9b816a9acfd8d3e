; llquote-fmt -D binds every kind of antiquote from the command line; the
; text is read according to the antiquote's kind.
; RUN: llquote-fmt %s -Ddl=e-m:e-i64:64-n8:16:32:64 -Dtt=x86_64-unknown-linux-gnu \
; RUN:   "-Ddecl=declare i64 @ext(i64)" -Delt=i64 -Dfn=total -Dn=n \
; RUN:   "-Dps=i64 %%k, ptr %%p" "-Dp=i64 %%z" -Dzero=0 -Dbody=@%S/Inputs/body.ll \
; RUN:   "-Dextra=%%e = call i64 @ext(i64 %%acc)" -Dexit=done -Dtop=start \
; RUN:   "-Dargs=i64 %%e" -Dg=ext -Dv=%%acc \
; RUN:   "-Dblocks=done2:" | FileCheck %s

target datalayout = $dl:dl
target triple = $tt:tt
$def:decl

define $type:elt $gid:fn(i64 $id:n, $params:ps, $param:p) {
$label:top
  %acc = $type:elt $const:zero
  $bbs:body
  $instrs:extra
  %r = call i64 $gid:g($args:args)
  br label $label:exit
$label:exit
  ret i64 $opr:v
}
; CHECK: target datalayout = "e-m:e-i64:64-n8:16:32:64"
; CHECK: target triple = "x86_64-unknown-linux-gnu"
; CHECK: declare i64 @ext(i64)
; CHECK: define i64 @total(i64 %n, i64 %k, ptr %p, i64 %z) {
; CHECK: start:
; CHECK: for.cond:
; CHECK: %acc.1 = phi i64 [ 0, %start ], [ %acc.2, %for.inc ]
; CHECK: for.end:
; CHECK-NEXT: %e = call i64 @ext(i64 %acc.1)
; CHECK-NEXT: %r = call i64 @ext(i64 %e)
; CHECK-NEXT: br label %done
; CHECK: done:
; CHECK-NEXT: ret i64 %acc.1
