//===- Programs.h - The array programs of the ahead-of-time example -------===//
//
// Each program is a function from arrays to an array, written once: the
// generator (Generate.cpp) compiles it over placeholders, and the JIT
// reference (Jit.cpp) runs it on the arrays the application (App.cpp)
// gives the compiled one, so that their results can be compared.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_EXAMPLES_AOT_PROGRAMS_H
#define LLQUOTE_EXAMPLES_AOT_PROGRAMS_H

#include "llquote/Skeletons.h"

namespace aotex {

/// The dot product of two vectors.
inline llq::Acc dot(const llq::Acc &X, const llq::Acc &Y) {
  auto Mul = LLQ_FN("float (float %a, float %b)", "%r = fmul float %a, %b");
  auto Add = LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
  return llq::fold(Add, 0.0f, llq::zipWith(Mul, X, Y));
}

/// The inclusive prefix sums of a vector of integers.
inline llq::Acc prefixSum(const llq::Acc &X) {
  auto Add = LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b");
  return llq::scanl1(Add, X);
}

/// The sums of the segments of a vector whose lengths Segs gives.
inline llq::Acc segmentSums(const llq::Acc &X, const llq::Acc &Segs) {
  auto Add = LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
  return llq::foldSeg(Add, 0.0f, X, Segs);
}

/// The positive elements of a vector, in order.
inline llq::Acc positives(const llq::Acc &X) {
  auto Positive = LLQ_FN("i1 (float %x)", "%r = fcmp ogt float %x, 0.0");
  return llq::filter(Positive, X);
}

/// Each row of a matrix divided by its sum: a fold whose result the map's
/// function reads (Fn::with), two kernels in order.
inline llq::Acc normalizeRows(const llq::Acc &M) {
  auto Add = LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
  auto Div = LLQ_FN("float (i64 %i, i64 %j, float %x, array<float> %sums)", R"(
    %s = call float @sums(i64 %i)
    %r = fdiv float %x, %s)");
  return llq::imap(Div.with({llq::fold(Add, 0.0f, M)}), M);
}

/// The sum of the squares of a vector, a scalar.
inline llq::Acc sumOfSquares(const llq::Acc &V) {
  auto Sq = LLQ_FN("float (float %x)", "%r = fmul float %x, %x");
  auto Add = LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
  return llq::foldAll(Add, 0.0f, llq::map(Sq, V));
}

/// A vector halved until the sum of its squares is at most 1: an awhile,
/// whose condition and step are kernels run again and again.
inline llq::Acc halveUntilSmall(const llq::Acc &X) {
  auto Big = LLQ_FN("i1 (float %s)", "%r = fcmp ogt float %s, 1.0");
  auto Half = LLQ_FN("float (float %x)", "%r = fmul float %x, 0.5");
  return llq::awhile([&](const llq::Acc &V) { return llq::map(Big, sumOfSquares(V)); },
                     [&](const llq::Acc &V) { return llq::map(Half, V); }, X);
}

/// A vector negated where its sum is positive, else as it is: an acond.
inline llq::Acc flipIfPositive(const llq::Acc &X) {
  auto Add = LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
  auto Positive = LLQ_FN("i1 (float %s)", "%r = fcmp ogt float %s, 0.0");
  auto Neg = LLQ_FN("float (float %x)", "%r = fneg float %x");
  return llq::acond(llq::map(Positive, llq::foldAll(Add, 0.0f, X)),
                    llq::map(Neg, X), X);
}

/// A 3x3 Gaussian blur, then the Sobel gradient's magnitude, of an image
/// (clamped at its borders): two stencils, the blur fused into the edges.
inline llq::Acc blurSobel(const llq::Acc &Img) {
  auto Gauss = LLQ_FN("float (float %a, float %b, float %c, float %d, "
                      "float %e, float %f, float %g, float %h, float %i)", R"(
    %b2 = fmul float %b, 2.0
    %d2 = fmul float %d, 2.0
    %e4 = fmul float %e, 4.0
    %f2 = fmul float %f, 2.0
    %h2 = fmul float %h, 2.0
    %s = fadd float %a, %b2
    %s = fadd float %s, %c
    %s = fadd float %s, %d2
    %s = fadd float %s, %e4
    %s = fadd float %s, %f2
    %s = fadd float %s, %g
    %s = fadd float %s, %h2
    %s = fadd float %s, %i
    %r = fmul float %s, 0.0625)");
  auto Sobel = LLQ_FN("float (float %a, float %b, float %c, float %d, "
                      "float %e, float %f, float %g, float %h, float %i)", R"(
    %d2 = fmul float %d, 2.0
    %f2 = fmul float %f, 2.0
    %b2 = fmul float %b, 2.0
    %h2 = fmul float %h, 2.0
    %gx = fsub float %c, %a
    %gx = fadd float %gx, %f2
    %gx = fsub float %gx, %d2
    %gx = fadd float %gx, %i
    %gx = fsub float %gx, %g
    %gy = fsub float %g, %a
    %gy = fadd float %gy, %h2
    %gy = fsub float %gy, %b2
    %gy = fadd float %gy, %i
    %gy = fsub float %gy, %c
    %xx = fmul float %gx, %gx
    %yy = fmul float %gy, %gy
    %m = fadd float %xx, %yy
    %r = call float @llvm.sqrt.f32(float %m))");
  return llq::stencil(Sobel, llq::Boundary::clamp(),
                      llq::stencil(Gauss, llq::Boundary::clamp(), Img));
}

/// The n-body examples' helpers on 3-vectors (%V3).
inline const llq::Prelude &physics() {
  return LLQ_PRELUDE(R"(
  %V3 = type { float, float, float }
  ; s * x + y, by field; its sums may be reassociated (vectorized)
  define internal %V3 @axpy(float %s, %V3 %x, %V3 %y) {
    %x0 = extractvalue %V3 %x, 0
    %x1 = extractvalue %V3 %x, 1
    %x2 = extractvalue %V3 %x, 2
    %y0 = extractvalue %V3 %y, 0
    %y1 = extractvalue %V3 %y, 1
    %y2 = extractvalue %V3 %y, 2
    %m0 = fmul float %s, %x0
    %m1 = fmul float %s, %x1
    %m2 = fmul float %s, %x2
    %z0 = fadd reassoc float %m0, %y0
    %z1 = fadd reassoc float %m1, %y1
    %z2 = fadd reassoc float %m2, %y2
    %r0 = insertvalue %V3 poison, float %z0, 0
    %r1 = insertvalue %V3 %r0, float %z1, 1
    %r = insertvalue %V3 %r1, float %z2, 2
    ret %V3 %r
  }
  define internal float @dot(%V3 %a, %V3 %b) {
    %a0 = extractvalue %V3 %a, 0
    %a1 = extractvalue %V3 %a, 1
    %a2 = extractvalue %V3 %a, 2
    %b0 = extractvalue %V3 %b, 0
    %b1 = extractvalue %V3 %b, 1
    %b2 = extractvalue %V3 %b, 2
    %p0 = fmul float %a0, %b0
    %p1 = fmul float %a1, %b1
    %p2 = fmul float %a2, %b2
    %s = fadd float %p0, %p1
    %r = fadd float %s, %p2
    ret float %r
  }
)");
}

/// The all-pairs n-body accelerations of bodies at Pos (x, y, z) of mass
/// Mass, softened by Soft: a map whose function reads every body
/// (Fn::with).
inline llq::Acc accelerations(const llq::Acc &Pos, const llq::Acc &Mass,
                              float Soft = 0.01f) {
  auto Accel = LLQ_FN(physics(), "%V3 (%V3 %p, float %soft, array<%V3> %pos, "
                                 "array<float> %mass)", R"(
    %a = %V3 zeroinitializer
    for i64 %j in 0 to %pos.n0 {
      %pj = call %V3 @pos(i64 %j)
      %d = call %V3 @axpy(float -1.0, %V3 %p, %V3 %pj)
      %d2 = call float @dot(%V3 %d, %V3 %d)
      %d2s = fadd float %d2, %soft
      %sq = call float @llvm.sqrt.f32(float %d2s)
      %inv = fdiv float 1.0, %sq
      %inv2 = fmul float %inv, %inv
      %inv3 = fmul float %inv2, %inv
      %mj = call float @mass(i64 %j)
      %s = fmul float %mj, %inv3
      %a = call %V3 @axpy(float %s, %V3 %d, %V3 %a)
    }
    %r = %V3 %a)");
  return llq::map(Accel.bind("soft", Soft).with({Pos, Mass}), Pos);
}

} // namespace aotex

#endif // LLQUOTE_EXAMPLES_AOT_PROGRAMS_H
