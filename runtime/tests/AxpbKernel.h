//===- AxpbKernel.h - The engine tests' map kernel --------------*- C++ -*-===//
//
// The skeleton map y[i] = a * x[i] + b over [Start, End), as LLVM IR, with
// Args = {float *x, float *y, float a, float b}. The engine's unit tests and
// its compile-latency benchmark both JIT it.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_RUNTIME_TESTS_AXPBKERNEL_H
#define LLQUOTE_RUNTIME_TESTS_AXPBKERNEL_H

namespace llq::rt::test {

/// The skeleton map y[i] = a * x[i] + b over [Start, End), with
/// Args = {float *x, float *y, float a, float b}.
inline const char *const SaxpyIR = R"(
define void @saxpy(i64 %start, i64 %end, ptr %args) {
entry:
  %x = load ptr, ptr %args
  %yp = getelementptr inbounds i8, ptr %args, i64 8
  %y = load ptr, ptr %yp
  %ap = getelementptr inbounds i8, ptr %args, i64 16
  %a = load float, ptr %ap
  %bp = getelementptr inbounds i8, ptr %args, i64 20
  %b = load float, ptr %bp
  %empty = icmp sge i64 %start, %end
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i64 [ %start, %entry ], [ %next, %loop ]
  %xi = getelementptr inbounds float, ptr %x, i64 %i
  %xv = load float, ptr %xi
  %m = fmul float %a, %xv
  %r = fadd float %m, %b
  %yi = getelementptr inbounds float, ptr %y, i64 %i
  store float %r, ptr %yi
  %next = add nsw i64 %i, 1
  %done = icmp eq i64 %next, %end
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
)";


} // namespace llq::rt::test

#endif // LLQUOTE_RUNTIME_TESTS_AXPBKERNEL_H
