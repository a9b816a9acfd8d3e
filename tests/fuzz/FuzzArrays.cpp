//===- FuzzArrays.cpp - libFuzzer target for array programs ---------------===//
//
// Reads the input as a small stack program of array operations (arrays of
// i64 and double from the input's bytes, generate, map, imap, zipWith,
// reverse, transpose, backpermute, transform, slice and replicate (also
// by specification), reshape,
// enumFromN, take, drop, init, tail, concat, zip, fst, snd, filter,
// compact, acond, awhile, fold, foldAll, fold1, the reductions by name
// (sum, product, minimum, maximum, all, any), foldSeg, the four scans of
// any rank,
// scanlSeg, scanrSeg, permute into ranks 1 to 3 with atomicrmw and with a
// cmpxchg loop, and stencils and stencil2 of several sizes with every
// boundary), runs the array on top of the stack on the
// CPU backend (all cores, chunked, atomics) and on the sequential backend,
// and requires the same outcome: equal shapes and elements, or an
// ArrayError from both; the top two together in one run (runAll) as each
// alone; the same on the CPU with fusion off (every producer a kernel of
// its own); then runs the same Acc again on the CPU (its kept
// plan) and through Runtime::prepare, and requires the first run's outcome,
// error message included. A crash, a sanitizer report, any other exception
// or a difference is a finding.
//
// Only operations whose result does not depend on the order of evaluation
// are generated: integer arithmetic wraps, folds and scans combine with
// associative functions only (wrapping add and mul, as the skeletons
// require), and doubles are only mapped, zipped, stencilled and folded with
// maxnum, so the two backends must agree exactly, however each associates.
//
//===----------------------------------------------------------------------===//

#include "llquote/Skeletons.h"
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fuzzer/FuzzedDataProvider.h>
#include <optional>

using namespace llq;

namespace {

Runtime &backend(BackendKind K) {
  static Runtime CPU([] {
    RuntimeOptions O;
    O.Backend = BackendKind::CPU;
    O.Threads = 2;
    return O;
  }());
  static Runtime Seq([] {
    RuntimeOptions O;
    O.Backend = BackendKind::Sequential;
    return O;
  }());
  return K == BackendKind::CPU ? CPU : Seq;
}

Runtime &unfused() {
  static Runtime R([] {
    RuntimeOptions O;
    O.Threads = 2;
    O.Fusion = false;
    return O;
  }());
  return R;
}

/// A value of the program: an array description, its element type and its
/// shape (as the operations define it, so that later operations can be
/// chosen to fit).
struct Val {
  Acc A;
  bool Float;
  Extents Sh;
};

int64_t sizeOf(const Extents &Sh) {
  int64_t N = 1;
  for (int64_t E : Sh)
    N *= E;
  return N;
}

constexpr int MaxExtent = 12;
constexpr size_t MaxStack = 4;
constexpr int MaxOps = 12;

Extents readShape(FuzzedDataProvider &In, unsigned MaxRank = 3) {
  unsigned Rank = In.ConsumeIntegralInRange<unsigned>(1, MaxRank);
  Extents Sh;
  for (unsigned D = 0; D < Rank; ++D)
    Sh.push_back(In.ConsumeIntegralInRange<int64_t>(0, MaxExtent));
  return Sh;
}

Val leaf(FuzzedDataProvider &In, bool Float) {
  Extents Sh = readShape(In);
  size_t N = size_t(sizeOf(Sh));
  if (Float) {
    std::vector<double> Xs(N);
    for (double &X : Xs)
      X = In.ConsumeIntegral<int16_t>() / 16.0;
    return {fromVector(Sh, Xs), true, Sh};
  }
  std::vector<int64_t> Xs(N);
  for (int64_t &X : Xs)
    X = In.ConsumeIntegral<int8_t>();
  return {fromVector(Sh, Xs), false, Sh};
}

// The scalar functions. Each is read once, where it is written.
Fn addI() { return LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b"); }
Fn addSlowI() {
  // Neither commutative nor a single instruction: a fold must combine in
  // index order.
  return LLQ_FN("i64 (i64 %a, i64 %b)", "%m = mul i64 %b, 3\n %r = add i64 %a, %m");
}
Fn addCasI() {
  // Not a single atomicrmw: permute takes a cmpxchg loop. Associative and
  // commutative, as permute requires: elements arrive in any order, and
  // small outputs are combined through per-thread copies.
  return LLQ_FN("i64 (i64 %a, i64 %b)", "%m = mul i64 %b, 1\n %r = add i64 %a, %m");
}
Fn subI() { return LLQ_FN("i64 (i64 %a, i64 %b)", "%r = sub i64 %a, %b"); }
Fn mulI() { return LLQ_FN("i64 (i64 %a, i64 %b)", "%r = mul i64 %a, %b"); }
Fn maxF() {
  return LLQ_FN("double (double %a, double %b)",
                "%r = call double @llvm.maxnum.f64(double %a, double %b)");
}
Fn addF() {
  return LLQ_FN("double (double %a, double %b)", "%r = fadd double %a, %b");
}
/// Named types and a helper, for a function that sums through a struct
/// variable (a prelude, and a struct phi split per field).
const Prelude &pairs() {
  return LLQ_PRELUDE(R"(
  %P = type { i64, i64 }
  define internal %P @step(%P %p, i64 %x) {
    %a = extractvalue %P %p, 0
    %b = extractvalue %P %p, 1
    %a2 = add i64 %a, %x
    %b2 = xor i64 %b, %a2
    %q = insertvalue %P %p, i64 %a2, 0
    %r = insertvalue %P %q, i64 %b2, 1
    ret %P %r
  }
)");
}
Fn mapI(unsigned K) {
  switch (K % 4) {
  case 3:
    return LLQ_FN(pairs(), "i64 (i64 %x)", R"(
      %p = %P zeroinitializer
      for i64 %k in 0 to 3 {
        %p = call %P @step(%P %p, i64 %x)
      }
      %a = extractvalue %P %p, 0
      %b = extractvalue %P %p, 1
      %r = add i64 %a, %b)");
  case 0:
    return LLQ_FN("i64 (i64 %x)", "%m = mul i64 %x, 3\n %r = add i64 %m, 1");
  case 1:
    return LLQ_FN("i64 (i64 %x)", "%r = xor i64 %x, 85");
  default:
    return LLQ_FN("i64 (i64 %x)", R"(
      %r = i64 %x
      %neg = icmp slt i64 %x, 0
      if %neg {
        %r = sub i64 0, %x
      })");
  }
}
Fn mapF(unsigned K) {
  if (K % 2)
    return LLQ_FN("double (double %x)",
                  "%m = fmul double %x, 0.5\n %r = fadd double %m, 1.0");
  return LLQ_FN("double (double %x)", "%r = fneg double %x");
}
/// An index-aware function for imap: the element plus a mark of its index.
Fn imapI(size_t Rank) {
  if (Rank == 1)
    return LLQ_FN("i64 (i64 %i, i64 %x)", "%m = mul i64 %i, 1000\n %r = add i64 %m, %x");
  if (Rank == 2)
    return LLQ_FN("i64 (i64 %i, i64 %j, i64 %x)",
                  "%m = mul i64 %i, 100\n %s = add i64 %m, %j\n %r = sub i64 %x, %s");
  return LLQ_FN("i64 (i64 %i, i64 %j, i64 %k, i64 %x)",
                "%a = xor i64 %i, %j\n %b = xor i64 %a, %k\n %r = add i64 %x, %b");
}
Fn toFloat() { return LLQ_FN("double (i64 %x)", "%r = sitofp i64 %x to double"); }
Fn gen(size_t Rank) {
  if (Rank == 1)
    return LLQ_FN("i64 (i64 %i)", "%m = mul i64 %i, 7\n %r = sub i64 %m, 3");
  if (Rank == 2)
    return LLQ_FN("i64 (i64 %i, i64 %j)", "%m = mul i64 %i, 100\n %r = add i64 %m, %j");
  return LLQ_FN("i64 (i64 %i, i64 %j, i64 %k)",
                "%a = mul i64 %i, 10000\n %b = mul i64 %j, 100\n"
                " %s = add i64 %a, %b\n %r = add i64 %s, %k");
}
Fn bin(int64_t Bins) {
  // srem of a negative index is negative, and 2i is out of range for half
  // of the sources: such targets are dropped.
  switch (Bins) {
  case 1:
    return LLQ_FN("i64 (i64 %i)", "%r = srem i64 %i, 1");
  case 2:
    return LLQ_FN("i64 (i64 %i)", "%r = srem i64 %i, 2");
  case 3:
    return LLQ_FN("i64 (i64 %i)", "%d = sub i64 %i, 1\n %r = srem i64 %d, 3");
  default:
    return LLQ_FN("i64 (i64 %i)", "%r = mul i64 %i, 2");
  }
}
/// Projections of a source of rank 1 or 2 into a target of rank 2 or 3;
/// some targets fall outside (negative or too large) and are dropped.
Fn projInto(size_t SrcRank, size_t Rank) {
  if (SrcRank == 1 && Rank == 2)
    return LLQ_FN("{ i64, i64 } (i64 %i)", R"(
      %row = sdiv i64 %i, 3
      %col = srem i64 %i, 3
      %t = insertvalue { i64, i64 } poison, i64 %row, 0
      %r = insertvalue { i64, i64 } %t, i64 %col, 1)");
  if (SrcRank == 1)
    return LLQ_FN("{ i64, i64, i64 } (i64 %i)", R"(
      %a = srem i64 %i, 2
      %q = sdiv i64 %i, 2
      %b = srem i64 %q, 2
      %c = sub i64 %q, 1
      %t = insertvalue { i64, i64, i64 } poison, i64 %a, 0
      %u = insertvalue { i64, i64, i64 } %t, i64 %b, 1
      %r = insertvalue { i64, i64, i64 } %u, i64 %c, 2)");
  if (Rank == 2)
    return LLQ_FN("{ i64, i64 } (i64 %i, i64 %j)", R"(
      %s = add i64 %i, %j
      %row = srem i64 %s, 3
      %col = sub i64 %j, 1
      %t = insertvalue { i64, i64 } poison, i64 %row, 0
      %r = insertvalue { i64, i64 } %t, i64 %col, 1)");
  return LLQ_FN("{ i64, i64, i64 } (i64 %i, i64 %j)", R"(
      %a = srem i64 %j, 2
      %t = insertvalue { i64, i64, i64 } poison, i64 %i, 0
      %u = insertvalue { i64, i64, i64 } %t, i64 %a, 1
      %r = insertvalue { i64, i64, i64 } %u, i64 %j, 2)");
}
Fn positive() { return LLQ_FN("i1 (i64 %x)", "%r = icmp sgt i64 %x, 0"); }
Fn fromBool() { return LLQ_FN("i64 (i1 %b)", "%r = zext i1 %b to i64"); }
/// awhile's loops: halving until every element is small (or infinite),
/// which ends.
Fn halveI() { return LLQ_FN("i64 (i64 %x)", "%r = sdiv i64 %x, 2"); }
Fn largeI() {
  return LLQ_FN("i1 (i64 %x)", R"(
      %hi = icmp sgt i64 %x, 3
      %lo = icmp slt i64 %x, -3
      %r = or i1 %hi, %lo)");
}
Fn halveF() { return LLQ_FN("double (double %x)", "%r = fmul double %x, 0.5"); }
Fn largeF() {
  return LLQ_FN("i1 (double %x)", R"(
      %a = call double @llvm.fabs.f64(double %x)
      %big = fcmp ogt double %a, 1.0
      %finite = fcmp olt double %a, 0x7FF0000000000000
      %r = and i1 %big, %finite)");
}
Fn shift() { return LLQ_FN("i64 (i64 %i)", "%r = add i64 %i, 1"); }
Fn swapIx() {
  return LLQ_FN("{ i64, i64 } (i64 %i, i64 %j)",
                "%t = insertvalue { i64, i64 } poison, i64 %j, 0\n"
                " %r = insertvalue { i64, i64 } %t, i64 %i, 1");
}
Fn stencil3I() {
  return LLQ_FN("i64 (i64 %a, i64 %b, i64 %c)",
                "%x = mul i64 %a, 100\n %y = mul i64 %b, 10\n"
                " %s = add i64 %x, %y\n %r = add i64 %s, %c");
}
Fn stencil3F() {
  return LLQ_FN("double (double %a, double %b, double %c)",
                "%s = fadd double %a, %b\n %t = fmul double %c, 2.0\n"
                " %r = fsub double %s, %t");
}
Fn stencil4I() {
  return LLQ_FN("i64 (i64 %a, i64 %b, i64 %c, i64 %d)",
                "%x = mul i64 %a, 1000\n %y = mul i64 %b, 100\n"
                " %z = mul i64 %c, 10\n %s = add i64 %x, %y\n"
                " %t = add i64 %s, %z\n %r = sub i64 %t, %d");
}
Fn stencil9I() {
  return LLQ_FN("i64 (i64 %a, i64 %b, i64 %c, i64 %d, i64 %e, i64 %f, i64 %g, "
                "i64 %h, i64 %i)",
                "%r = i64 %a\n %r = mul i64 %r, 3\n %r = add i64 %r, %b\n"
                " %r = mul i64 %r, 3\n %r = add i64 %r, %c\n"
                " %r = mul i64 %r, 3\n %r = add i64 %r, %d\n"
                " %r = mul i64 %r, 3\n %r = add i64 %r, %e\n"
                " %r = mul i64 %r, 3\n %r = add i64 %r, %f\n"
                " %r = mul i64 %r, 3\n %r = add i64 %r, %g\n"
                " %r = mul i64 %r, 3\n %r = add i64 %r, %h\n"
                " %r = mul i64 %r, 3\n %r = add i64 %r, %i");
}

Boundary boundary(FuzzedDataProvider &In, bool Float) {
  switch (In.ConsumeIntegralInRange<int>(0, 3)) {
  case 0:
    return Boundary::clamp();
  case 1:
    return Boundary::mirror();
  case 2:
    return Boundary::wrap();
  default:
    return Float ? Boundary::constant(Scalar(-1.5))
                 : Boundary::constant(Scalar(int64_t(-7)));
  }
}

/// One operation on the stack; false when it does not fit (it is skipped).
bool step(FuzzedDataProvider &In, std::vector<Val> &S) {
  unsigned Op = In.ConsumeIntegralInRange<unsigned>(0, 32);
  auto Top = [&]() -> Val & { return S.back(); };
  bool HaveTop = !S.empty();
  bool IntTop = HaveTop && !Top().Float;
  size_t Rank = HaveTop ? Top().Sh.size() : 0;
  switch (Op) {
  case 0:
  case 1:
    if (S.size() == MaxStack)
      return false;
    S.push_back(leaf(In, Op == 1));
    return true;
  case 2: {
    if (S.size() == MaxStack)
      return false;
    Extents Sh = readShape(In);
    S.push_back({generate(Sh, gen(Sh.size())), false, Sh});
    return true;
  }
  case 3:
    if (!HaveTop)
      return false;
    if (IntTop && Rank >= 1 && Rank <= 3 && In.ConsumeBool()) {
      Top().A = imap(imapI(Rank), Top().A);
      return true;
    }
    Top().A = Top().Float ? map(mapF(In.ConsumeIntegral<unsigned>()), Top().A)
                          : map(mapI(In.ConsumeIntegral<unsigned>()), Top().A);
    return true;
  case 4:
    if (!IntTop)
      return false;
    Top().A = map(toFloat(), Top().A);
    Top().Float = true;
    return true;
  case 5: {
    if (S.size() < 2 || S[S.size() - 2].Float != Top().Float)
      return false;
    Val B = S.back();
    S.pop_back();
    Val &A = S.back();
    if (A.Sh.size() != B.Sh.size())
      return false;
    Fn F = A.Float ? addF() : (In.ConsumeBool() ? subI() : mulI());
    A.A = zipWith(F, A.A, B.A);
    for (size_t D = 0; D < A.Sh.size(); ++D)
      A.Sh[D] = std::min(A.Sh[D], B.Sh[D]);
    return true;
  }
  case 6:
    if (Rank != 1)
      return false;
    Top().A = reverse(Top().A);
    return true;
  case 7:
    if (Rank != 2)
      return false;
    Top().A = transpose(Top().A);
    std::swap(Top().Sh[0], Top().Sh[1]);
    return true;
  case 8: {
    if (Rank < 2)
      return false;
    // One past the end is an error that both backends must report. The
    // outermost dimension, or (by specification) any one of them.
    size_t D = In.ConsumeBool() ? 0 : In.ConsumeIntegralInRange<size_t>(0, Rank - 1);
    int64_t I = In.ConsumeIntegralInRange<int64_t>(0, Top().Sh[D]);
    if (D == 0 && In.ConsumeBool()) {
      Top().A = slice(Top().A, I);
    } else {
      std::vector<SliceDim> Spec(Rank, All);
      Spec[D] = I;
      Top().A = slice(Top().A, Spec);
    }
    Top().Sh.erase(Top().Sh.begin() + long(D));
    return true;
  }
  case 9: {
    // A new dimension, outermost or (by specification) anywhere.
    if (!HaveTop || Rank == 3)
      return false;
    int64_t N = In.ConsumeIntegralInRange<int64_t>(0, 4);
    size_t D = In.ConsumeIntegralInRange<size_t>(0, Rank);
    if (D == 0) {
      Top().A = replicate(N, Top().A);
    } else {
      std::vector<SliceDim> Spec(Rank + 1, All);
      Spec[D] = N;
      Top().A = replicate(Spec, Top().A);
    }
    Top().Sh.insert(Top().Sh.begin() + long(D), N);
    return true;
  }
  case 10:
    if (!HaveTop)
      return false;
    Top().A = reshape({sizeOf(Top().Sh)}, Top().A);
    Top().Sh = {sizeOf(Top().Sh)};
    return true;
  case 11: {
    if (S.size() == MaxStack)
      return false;
    int64_t N = In.ConsumeIntegralInRange<int64_t>(0, 40);
    S.push_back({enumFromN({N}, Scalar(In.ConsumeIntegral<int8_t>() * int64_t(1))),
                 false,
                 {N}});
    return true;
  }
  case 12:
    if (!HaveTop || Rank == 0)
      return false;
    Top().A = Top().Float ? fold(maxF(), Scalar(-INFINITY), Top().A)
                          : fold(addI(), Scalar(int64_t(5)), Top().A);
    Top().Sh.pop_back();
    return true;
  case 13:
    if (!HaveTop || Rank == 0)
      return false;
    Top().A = Top().Float ? foldAll(maxF(), Scalar(-INFINITY), Top().A)
                          : foldAll(addI(), Scalar(int64_t(0)), Top().A);
    Top().Sh = {};
    return true;
  case 14:
    if (!HaveTop || Rank == 0)
      return false;
    // An empty innermost dimension is an error for fold1.
    Top().A = Top().Float ? fold1(maxF(), Top().A) : fold1(addI(), Top().A);
    Top().Sh.pop_back();
    return true;
  case 15: {
    if (!IntTop || Rank == 0)
      return false;
    // Segment lengths that add up to the innermost extent, or (sometimes)
    // that do not: an error.
    int64_t Inner = Top().Sh.back(), Left = Inner;
    std::vector<int32_t> Segs;
    while (Left > 0 && Segs.size() < 6) {
      int64_t L = In.ConsumeIntegralInRange<int64_t>(0, Left);
      Segs.push_back(int32_t(L));
      Left -= L;
    }
    if (Left > 0 && In.ConsumeBool())
      Segs.push_back(int32_t(Left));
    if (In.ConsumeBool()) {
      Top().A = foldSeg(addSlowI(), Scalar(int64_t(1)), Top().A, fromVector(Segs));
      Top().Sh.back() = int64_t(Segs.size());
    } else {
      // Each segment of each row scanned: l + 1 elements a segment.
      Top().A = In.ConsumeBool()
                    ? scanlSeg(addI(), Scalar(int64_t(2)), Top().A, fromVector(Segs))
                    : scanrSeg(mulI(), Scalar(int64_t(3)), Top().A, fromVector(Segs));
      Top().Sh.back() = Inner + int64_t(Segs.size());
    }
    return true;
  }
  case 16: {
    // Along the innermost dimension of any rank.
    if (!IntTop || Rank == 0)
      return false;
    int64_t N = Top().Sh.back();
    switch (In.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      Top().A = scanl(addI(), Scalar(int64_t(2)), Top().A);
      Top().Sh.back() = N + 1;
      break;
    case 1:
      Top().A = scanr(mulI(), Scalar(int64_t(3)), Top().A);
      Top().Sh.back() = N + 1;
      break;
    case 2:
      Top().A = scanl1(mulI(), Top().A);
      break;
    default:
      Top().A = scanr1(addI(), Top().A);
      break;
    }
    return true;
  }
  case 17: {
    if (!IntTop || Rank != 1)
      return false;
    int64_t Bins = In.ConsumeIntegralInRange<int64_t>(1, 4);
    Fn Combine = In.ConsumeBool() ? addI() : addCasI();
    Top().A = permute(Combine, fill({Bins}, Scalar(int64_t(10))), bin(Bins),
                      Top().A);
    Top().Sh = {Bins};
    return true;
  }
  case 18:
    if (Rank != 1)
      return false;
    Top().A = Top().Float ? stencil(stencil3F(), boundary(In, true), Top().A)
                          : stencil(stencil3I(), boundary(In, false), Top().A);
    return true;
  case 19:
    if (!IntTop || Rank != 2)
      return false;
    switch (In.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      Top().A = stencil(stencil9I(), boundary(In, false), Top().A);
      break;
    case 1:
      // Windows of other sizes: a row of three, a column of three.
      Top().A = stencil(stencil3I(), {1, 3}, boundary(In, false), Top().A);
      break;
    case 2:
      Top().A = stencil(stencil3I(), {3, 1}, boundary(In, false), Top().A);
      break;
    default:
      // One window of each array, of sizes of their own (1 x 3 and 1 x 1,
      // over the same array).
      Top().A = stencil2(stencil4I(), {1, 3}, boundary(In, false), Top().A, {1, 1},
                         boundary(In, false), Top().A);
      break;
    }
    return true;
  case 20: {
    if (S.size() < 2)
      return false;
    std::swap(S[S.size() - 1], S[S.size() - 2]);
    return true;
  }
  case 21: {
    // A shifted window: past the source's end for some lengths, which is
    // an error that both backends must report.
    if (Rank != 1)
      return false;
    int64_t N = In.ConsumeIntegralInRange<int64_t>(0, Top().Sh[0] + 2);
    Top().A = backpermute({N}, shift(), Top().A);
    Top().Sh = {N};
    return true;
  }
  case 22: {
    if (Rank != 2)
      return false;
    Extents Sh = {Top().Sh[1], Top().Sh[0]};
    Top().A = Top().Float ? transform(Sh, swapIx(), mapF(0), Top().A)
                          : transform(Sh, swapIx(), mapI(0), Top().A);
    Top().Sh = Sh;
    return true;
  }
  case 23: {
    // Into a target of rank 2 or 3: the target's linear position is
    // computed from the projected multi-index. Integers take every way of
    // combining (atomicrmw, a cmpxchg loop, per-thread copies); doubles
    // take maxnum, which is exact in any order.
    if (!HaveTop || Rank > 2)
      return false;
    size_t TRank = In.ConsumeBool() ? 2 : 3;
    Extents TSh;
    for (size_t D = 0; D < TRank; ++D)
      TSh.push_back(In.ConsumeIntegralInRange<int64_t>(0, 4));
    Fn Combine = Top().Float ? maxF() : In.ConsumeBool() ? addI() : addCasI();
    Scalar Init = Top().Float ? Scalar(-2.5) : Scalar(int64_t(10));
    Top().A = permute(Combine, fill(TSh, Init), projInto(Rank, TRank), Top().A);
    Top().Sh = TSh;
    return true;
  }
  case 24: {
    // A count past the end is cut to it; a negative one, and init or tail
    // of an empty dimension, are errors both backends must report.
    if (!HaveTop || Rank == 0)
      return false;
    int64_t &Inner = Top().Sh.back();
    int64_t N = In.ConsumeIntegralInRange<int64_t>(-1, Inner + 2);
    switch (In.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      Top().A = take(N, Top().A);
      Inner = std::clamp<int64_t>(N, 0, Inner);
      break;
    case 1:
      Top().A = drop(N, Top().A);
      Inner -= std::clamp<int64_t>(N, 0, Inner);
      break;
    case 2:
      Top().A = init(Top().A);
      Inner = std::max<int64_t>(Inner - 1, 0);
      break;
    default:
      Top().A = tail(Top().A);
      Inner = std::max<int64_t>(Inner - 1, 0);
      break;
    }
    return true;
  }
  case 25: {
    if (S.size() < 2 || S[S.size() - 2].Float != Top().Float)
      return false;
    Val B = S.back();
    Val &A = S[S.size() - 2];
    if (A.Sh.size() != B.Sh.size() || A.Sh.empty())
      return false;
    S.pop_back();
    A.A = concat(A.A, B.A);
    for (size_t D = 0; D + 1 < A.Sh.size(); ++D)
      A.Sh[D] = std::min(A.Sh[D], B.Sh[D]);
    A.Sh.back() += B.Sh.back();
    return true;
  }
  case 26: {
    // Integers wrap, so every reduction is exact in any order; doubles
    // take minimum and maximum only.
    if (!HaveTop || Rank == 0)
      return false;
    switch (In.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      Top().A = Top().Float ? maximum(Top().A) : sum(Top().A);
      break;
    case 1:
      Top().A = Top().Float ? minimum(Top().A) : product(Top().A);
      break;
    case 2:
      Top().A = minimum(Top().A);
      break;
    default:
      Top().A = maximum(Top().A);
      break;
    }
    Top().Sh.pop_back();
    return true;
  }
  case 27:
    if (!IntTop || Rank == 0)
      return false;
    Top().A = map(fromBool(), In.ConsumeBool() ? all(positive(), Top().A)
                                               : any(positive(), Top().A));
    Top().Sh.pop_back();
    return true;
  case 28: {
    // The top, or a map of it, as the sum of the one below is positive.
    if (S.size() < 2 || S[S.size() - 2].Float || S[S.size() - 2].Sh.empty())
      return false;
    Val C = S[S.size() - 2];
    Acc Cond = any(positive(), reshape({sizeOf(C.Sh)}, C.A));
    Acc Other = Top().Float ? map(mapF(1), Top().A) : map(mapI(0), Top().A);
    Top().A = In.ConsumeBool() ? acond(Cond, Top().A, Other) : acond(Cond, Other, Top().A);
    return true;
  }
  case 29: {
    if (!HaveTop || Rank == 0)
      return false;
    bool F = Top().Float;
    Extents Sh = Top().Sh;
    auto Cond = [F, Sh](const Acc &V) {
      return any(F ? largeF() : largeI(), reshape({sizeOf(Sh)}, V));
    };
    auto Step = [F](const Acc &V) { return map(F ? halveF() : halveI(), V); };
    Top().A = awhile(Cond, Step, Top().A);
    return true;
  }
  case 30:
    // Its length is known after the run only: an operation on it is an
    // error both backends must report.
    if (!IntTop || Rank != 1)
      return false;
    Top().A = In.ConsumeBool() ? filter(positive(), Top().A)
                               : compact(map(positive(), Top().A), Top().A);
    Top().Sh = {0};
    return true;
  case 32: {
    // A tuple array of the top two, taken apart again: its first or second
    // field, over the intersection of the shapes.
    if (S.size() < 2)
      return false;
    Val B = S.back();
    Val &A = S[S.size() - 2];
    if (A.Sh.size() != B.Sh.size())
      return false;
    S.pop_back();
    bool Second = In.ConsumeBool();
    A.A = Second ? snd(zip(A.A, B.A)) : fst(zip(A.A, B.A));
    if (Second)
      A.Float = B.Float;
    for (size_t D = 0; D < A.Sh.size(); ++D)
      A.Sh[D] = std::min(A.Sh[D], B.Sh[D]);
    return true;
  }
  case 31:
    // The same expression twice: later operations build on shared parts.
    if (!HaveTop || S.size() == MaxStack)
      return false;
    S.push_back(Top());
    return true;
  default:
    if (!HaveTop)
      return false;
    S.pop_back();
    return true;
  }
}

struct Outcome {
  std::optional<std::string> Error;
  Extents Sh;
  std::vector<int64_t> Ints;
  std::vector<double> Floats;
};

/// What Run() gives for V: its result or its error.
template <typename RunT> Outcome outcomeOf(const Val &V, RunT Run) {
  Outcome O;
  try {
    Array<> R = Run();
    O.Sh.assign(R.shape().extents(), R.shape().extents() + R.shape().rank());
    if (V.Float)
      O.Floats = R.as<double>().toVector();
    else
      O.Ints = R.as<int64_t>().toVector();
  } catch (const ArrayError &E) {
    O.Error = E.what();
  }
  return O;
}

Outcome run(BackendKind K, const Val &V) {
  return outcomeOf(V, [&] { return backend(K).run(V.A); });
}

bool sameDouble(double A, double B) {
  return A == B || (std::isnan(A) && std::isnan(B));
}

/// Equal results, or both errors.
bool same(const Outcome &A, const Outcome &B) {
  if (A.Error || B.Error)
    return A.Error.has_value() == B.Error.has_value();
  bool Same = A.Sh == B.Sh && A.Ints == B.Ints &&
              A.Floats.size() == B.Floats.size();
  for (size_t I = 0; Same && I < A.Floats.size(); ++I)
    Same = sameDouble(A.Floats[I], B.Floats[I]);
  return Same;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // Kernels stay in memory: the disk cache is not what is fuzzed here.
  setenv("LLQ_CACHE", "0", 1);
  // A function with a mistake would make every program that uses it an
  // error on both backends, and so test nothing: refuse to start.
  std::vector<Fn> All = {addI(),    addSlowI(), addCasI(),  subI(),
                         mulI(),    maxF(),     addF(),     mapI(0),
                         mapI(1),   mapI(2),    mapI(3),    mapF(0),    mapF(1),
                         toFloat(), gen(1),     gen(2),     gen(3),
                         bin(1),    bin(2),     bin(3),     bin(4),
                         shift(),   swapIx(),   stencil3I(), stencil3F(),
                         stencil9I(), imapI(1), imapI(2), imapI(3),
                         positive(), fromBool(), halveI(), largeI(), stencil4I(),
                         halveF(),   largeF()};
  for (size_t Src = 1; Src <= 2; ++Src)
    for (size_t Rank = 2; Rank <= 3; ++Rank)
      All.push_back(projInto(Src, Rank));
  for (const Fn &F : All)
    if (!F.ok()) {
      fprintf(stderr, "fuzz.arrays: a function of the fuzzer does not read: %s\n",
              F.error().c_str());
      abort();
    }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  FuzzedDataProvider In(Data, Size);
  std::vector<Val> S;
  for (int I = 0; I < MaxOps && In.remaining_bytes(); ++I)
    step(In, S);
  if (S.empty())
    return 0;
  Outcome CPU = run(BackendKind::CPU, S.back());
  Outcome Seq = run(BackendKind::Sequential, S.back());
  if (CPU.Error.has_value() != Seq.Error.has_value()) {
    fprintf(stderr, "one backend failed: %s\n",
            (CPU.Error ? *CPU.Error : *Seq.Error).c_str());
    abort();
  }
  if (!same(CPU, Seq)) {
    fprintf(stderr, "the backends differ\n");
    abort();
  }
  Outcome Unfused =
      outcomeOf(S.back(), [&] { return unfused().run(S.back().A); });
  // A fault is reported by the kernel that finds it, which fusion off may
  // make another one ("backpermute: the index function ..." where fused it
  // is "fold: the index function ..."): the rest of the message is equal.
  auto Cause = [](const std::optional<std::string> &E) {
    return E ? std::optional<std::string>(E->substr(E->find(": ") + 1)) : E;
  };
  // Fused, an element nothing reads is never computed, nor its index
  // checked (take 0 of a backpermute that leaves its source); unfused,
  // every element is. That fault is the only difference allowed.
  // Where a program has such a fault and another mistake, the two may meet
  // either first (bp(bp(x)) fused reads the outer index first; unfused, a
  // backpermute's own kernel faults before a foldSeg over it checks its
  // segments).
  auto IndexFault = [](const std::optional<std::string> &E) {
    return E && E->find("returned an index outside") != std::string::npos;
  };
  bool UnreadFault = IndexFault(Unfused.Error) && !CPU.Error;
  bool OtherFault = Unfused.Error && CPU.Error &&
                    (IndexFault(Unfused.Error) || IndexFault(CPU.Error));
  if (!UnreadFault && !OtherFault &&
      (!same(Unfused, Seq) || Cause(Unfused.Error) != Cause(CPU.Error))) {
    fprintf(stderr, "fusion off differs from fusion on:\n  off: %s\n  on: %s\n",
            Unfused.Error ? Unfused.Error->c_str() : "(a result)",
            CPU.Error ? CPU.Error->c_str() : "(a result)");
    abort();
  }
  // The top two in one run: each as it is alone, whatever they share.
  if (S.size() >= 2) {
    const Val &Below = S[S.size() - 2];
    Outcome Second = run(BackendKind::Sequential, Below);
    std::vector<Outcome> Both(2);
    try {
      std::vector<Array<>> All =
          backend(BackendKind::CPU).runAll({S.back().A, Below.A});
      Both[0] = outcomeOf(S.back(), [&] { return All[0]; });
      Both[1] = outcomeOf(Below, [&] { return All[1]; });
    } catch (const ArrayError &E) {
      Both[0].Error = Both[1].Error = E.what();
    }
    bool Failed = Seq.Error || Second.Error;
    if (Failed ? !Both[0].Error
               : !same(Both[0], Seq) || !same(Both[1], Second)) {
      fprintf(stderr, "a run of two results differs from their runs alone\n");
      abort();
    }
  }
  // The same Acc again, which reuses its plan, and prepared: the same
  // outcome, error included.
  Outcome Again = run(BackendKind::CPU, S.back());
  Outcome Prepared = outcomeOf(
      S.back(), [&] { return backend(BackendKind::CPU).prepare(S.back().A)(); });
  if (!same(CPU, Again) || !same(CPU, Prepared) ||
      CPU.Error != Again.Error || CPU.Error != Prepared.Error) {
    fprintf(stderr, "a run again or prepared differs from the first run\n");
    abort();
  }
  // A third run repeats the launches the second one recorded; a Bound
  // repeats those of its first call, into its own output.
  Outcome Third = run(BackendKind::CPU, S.back());
  Outcome Repeated = outcomeOf(S.back(), [&] {
    llq::Prepared P = backend(BackendKind::CPU).prepare(S.back().A);
    Array<> Out = P();
    for (const Array<> &In : P.inputs())
      if (Out.shared() == In.shared())
        return Out; // the result is an input: nothing to bind
    Array<> Own = P();
    Bound B = P.bind(Own);
    B();
    B();
    return Own;
  });
  if (!same(CPU, Third) || !same(CPU, Repeated) || CPU.Error != Third.Error ||
      CPU.Error != Repeated.Error) {
    auto Say = [](const Outcome &O) {
      return O.Error ? O.Error->c_str() : "(a result)";
    };
    fprintf(stderr,
            "a repeated run or a bound call differs from the first run:\n"
            "  first: %s\n  third: %s%s\n  bound: %s%s\n",
            Say(CPU), Say(Third), same(CPU, Third) ? "" : " (other elements)",
            Say(Repeated), same(CPU, Repeated) ? "" : " (other elements)");
    abort();
  }
  return 0;
}
