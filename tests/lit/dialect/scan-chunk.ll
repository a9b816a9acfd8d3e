; The scan chunk loop of the design: nested for and if, a reassigned float
; accumulator and a reassigned bound. Run on 10 floats in 3 chunks of 4 (the
; last one short); every chunk is rescanned from the sum of the chunks before.
; RUN: %ssa-compare %s | FileCheck %s --check-prefix=SSA
; SSA: exit
; RUN: llquote-fmt %s -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: %expect-exit 0 lli %t.ll
; No select is left of the direct assignments, and no phi is trivial: the
; only select is the author's own.
; RUN: grep -c select %t.ll | FileCheck %s --check-prefix=SEL
; SEL: {{^1$}}

define void @scan_chunk(i64 %chunk, i64 %chunkSize, i64 %lastChunk, i64 %n,
                        ptr %sums, ptr %in, ptr %out) {
entry:
  %acc = float 0.0
  for i64 %k in 0 to %chunk {
    %p = getelementptr float, ptr %sums, i64 %k
    %s = load float, ptr %p
    %acc = fadd float %acc, %s
  }
  %first = icmp eq i64 %chunk, 0
  if %first {
    %nz = icmp ne i64 %n, 0
    if %nz { store float %acc, ptr %out }
  }
  %lo = mul i64 %chunk, %chunkSize
  %hi = add i64 %lo, %chunkSize
  %isLast = icmp eq i64 %chunk, %lastChunk
  %hi = select i1 %isLast, i64 %n, i64 %hi
  for i64 %k in %lo to %hi {
    %k1 = add i64 %k, 1
    %pi = getelementptr float, ptr %in, i64 %k
    %x = load float, ptr %pi
    %acc = fadd float %acc, %x
    %po = getelementptr float, ptr %out, i64 %k1
    store float %acc, ptr %po
  }
  ret void
}
; CHECK-LABEL: define void @scan_chunk(
; CHECK: %hi.1 = select i1 %isLast, i64 %n, i64 %hi
; CHECK: %for.more{{.*}} = icmp slt i64 %k.{{[0-9]+}}, %hi.1

@in = global [10 x float] [float 1.0, float 2.0, float 3.0, float 4.0, float 5.0,
                           float 6.0, float 7.0, float 8.0, float 9.0, float 10.0]
@sums = global [3 x float] [float 10.0, float 26.0, float 19.0]
@out = global [11 x float] zeroinitializer

; Runs the three chunks and checks scanl (+) 0: out[j] = j * (j + 1) / 2.
define i32 @main() {
entry:
  for i64 %c in 0 to 3 {
    call void @scan_chunk(i64 %c, i64 4, i64 2, i64 10, ptr @sums, ptr @in, ptr @out)
  }
  %bad = i32 0
  for i64 %j in 0 to 11 {
    %p = getelementptr float, ptr @out, i64 %j
    %v = load float, ptr %p
    %j1 = add i64 %j, 1
    %t = mul i64 %j, %j1
    %h = udiv i64 %t, 2
    %want = uitofp i64 %h to float
    %ok = fcmp oeq float %v, %want
    if %ok { } else { %bad = add i32 %bad, 1 }
  }
  ret i32 %bad
}
