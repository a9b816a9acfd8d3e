//===- Llquote.cpp - The llquote peer: each operation as skeletons ---------===//
//
// Each operation is written as a user of Skeletons.h would write it. The
// inputs are the harness's buffers, wrapped without a copy; the expression
// is built once, outside the timed region. Two forms of the call, as a
// loop that recomputes one array from the same inputs would make it:
//   - llquote:     a Bound (Prepared::bind) to the inputs and an output
//                  array, what the peers' loops over preallocated arrays
//                  are; a call repeats the launches of the first run;
//   - llquote-run: Runtime::run(E, Out), which finds the expression's plan
//                  and writes into the last result: what a call costs
//                  without binding.
// The first run (made by the checker, before timing) compiles the kernel
// (and for the Bound, binds it and calls it once, the result checked).
//
//===----------------------------------------------------------------------===//

#include "Problem.h"
#include "llquote/Skeletons.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include <fstream>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace llq;
using namespace llq::arraybench;

namespace {

std::unique_ptr<Runtime> TheRuntime;
/// The same with RuntimeOptions::Fusion off: every producer a kernel.
std::unique_ptr<Runtime> TheUnfused;

template <typename T>
Acc wrap(const std::vector<int64_t> &Extents, const T *Data) {
  rt::Expected<Shape> Sh = Shape::make(Extents);
  if (!Sh)
    throw ArrayError(Sh.message());
  rt::Expected<rt::Array> A = rt::Array::wrap<T>(*Sh, const_cast<T *>(Data));
  if (!A)
    throw ArrayError(A.message());
  return use(std::make_shared<rt::Array>(std::move(*A)));
}

/// A float constant as LLVM IR spells it exactly (hex of the double).
std::string f(float V) {
  double D = V;
  uint64_t B;
  std::memcpy(&B, &D, 8);
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "0x%016llX", static_cast<unsigned long long>(B));
  return Buf;
}

/// The fast-math flags of Black-Scholes' arithmetic: those Halide 14 puts
/// on every float operation it generates unless a Func asks for
/// strict_float (its `compile_to_llvm_assembly` output of this pipeline:
/// `fmul reassoc nnan ninf nsz contract afn`), so that both have the same
/// licence. The seq, omp and tbb peers have GCC's default (contraction).
#define FM "reassoc nnan ninf nsz contract afn "

/// The cumulative normal distribution of %D into %Out, as Problem.h's cnd().
std::string cnd(const std::string &D, const std::string &Out) {
  std::string S;
  auto L = [&](const std::string &Line) { S += "  " + Line + "\n"; };
  std::string P = D.substr(1) + ".";
  L("%" + P + "a = call float @llvm.fabs.f32(float " + D + ")");
  L("%" + P + "b = fmul " FM "float " + f(0.2316419f) + ", %" + P + "a");
  L("%" + P + "c = fadd " FM "float 1.0, %" + P + "b");
  L("%" + P + "k = fdiv " FM "float 1.0, %" + P + "c");
  // K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5))))
  L("%" + P + "p5 = fmul " FM "float %" + P + "k, " + f(1.330274429f));
  L("%" + P + "p4 = fadd " FM "float " + f(-1.821255978f) + ", %" + P + "p5");
  L("%" + P + "q4 = fmul " FM "float %" + P + "k, %" + P + "p4");
  L("%" + P + "p3 = fadd " FM "float " + f(1.781477937f) + ", %" + P + "q4");
  L("%" + P + "q3 = fmul " FM "float %" + P + "k, %" + P + "p3");
  L("%" + P + "p2 = fadd " FM "float " + f(-0.356563782f) + ", %" + P + "q3");
  L("%" + P + "q2 = fmul " FM "float %" + P + "k, %" + P + "p2");
  L("%" + P + "p1 = fadd " FM "float " + f(0.31938153f) + ", %" + P + "q2");
  L("%" + P + "poly = fmul " FM "float %" + P + "k, %" + P + "p1");
  // InvSqrt2Pi * exp(-0.5 * D * D) * poly
  L("%" + P + "h = fmul " FM "float -0.5, " + D);
  L("%" + P + "hd = fmul " FM "float %" + P + "h, " + D);
  L("%" + P + "e = call " FM "float @llvm.exp.f32(float %" + P + "hd)");
  L("%" + P + "g = fmul " FM "float " + f(0.39894228040143267794f) + ", %" + P + "e");
  L("%" + P + "w = fmul " FM "float %" + P + "g, %" + P + "poly");
  L("%" + P + "omw = fsub " FM "float 1.0, %" + P + "w");
  L("%" + P + "neg = fcmp olt float " + D + ", 0.0");
  L(Out + " = select i1 %" + P + "neg, float %" + P + "w, float %" + P + "omw");
  return S;
}

/// Black-Scholes with Halide's fast-math flags (FM). Its exp and log calls
/// allow approximation, so the engine inlines its own (runtime/ApproxMath.h),
/// as Halide inlines its polynomials; the seq, omp and tbb peers call
/// libm's expf and logf.
Fn blackScholesFn() {
  std::string B;
  auto L = [&](const std::string &Line) { B += "  " + Line + "\n"; };
  L("%sqrtT = call float @llvm.sqrt.f32(float %t)");
  L("%q = fdiv " FM "float %s, %k");
  L("%lq = call " FM "float @llvm.log.f32(float %q)");
  L("%m = fmul " FM "float " + f(BSRate + 0.5f * BSVol * BSVol) + ", %t");
  L("%num = fadd " FM "float %lq, %m");
  L("%vs = fmul " FM "float " + f(BSVol) + ", %sqrtT");
  L("%d1 = fdiv " FM "float %num, %vs");
  L("%d2 = fsub " FM "float %d1, %vs");
  B += cnd("%d1", "%n1");
  B += cnd("%d2", "%n2");
  L("%rt = fmul " FM "float " + f(-BSRate) + ", %t");
  L("%disc = call " FM "float @llvm.exp.f32(float %rt)");
  L("%sn = fmul " FM "float %s, %n1");
  L("%kd = fmul " FM "float %k, %disc");
  L("%kdn = fmul " FM "float %kd, %n2");
  L("%r = fsub " FM "float %sn, %kdn");
  return Fn("float (float %s, float %k, float %t)", B, __FILE__, __LINE__);
}

/// The escape count of pixel (%i, %j), as Problem.h's mandel(). Its
/// arithmetic is `contract`: LLVM may fuse a multiply and the add after it
/// into one FMA, as GCC does in the C++ peers (its default,
/// -ffp-contract=fast); without the flag the escape loop's chain is a
/// multiply and an add longer.
Fn mandelFn(int64_t Rows, int64_t Cols, int32_t MaxIter) {
  std::string B = "  %jf = sitofp i64 %j to float\n"
                  "  %if = sitofp i64 %i to float\n"
                  "  %sx = fmul contract float %jf, " + f(MandelSpan / float(Cols)) + "\n"
                  "  %cx = fadd contract float " + f(MandelX0) + ", %sx\n"
                  "  %sy = fmul contract float %if, " + f(MandelSpan / float(Rows)) + "\n"
                  "  %cy = fadd contract float " + f(MandelY0) + ", %sy\n"
                  "  %zx = float 0.0\n"
                  "  %zy = float 0.0\n"
                  "  %n = i32 0\n"
                  "  while true {\n"
                  "    %stop = icmp sge i32 %n, " + std::to_string(MaxIter) + "\n"
                  "    if %stop { break }\n"
                  "    %xx = fmul contract float %zx, %zx\n"
                  "    %yy = fmul contract float %zy, %zy\n"
                  "    %m2 = fadd contract float %xx, %yy\n"
                  "    %out = fcmp ugt float %m2, 4.0\n"
                  "    if %out { break }\n"
                  "    %d = fsub contract float %xx, %yy\n"
                  "    %t = fadd contract float %d, %cx\n"
                  "    %tx = fmul contract float 2.0, %zx\n"
                  "    %p = fmul contract float %tx, %zy\n"
                  "    %zy = fadd contract float %p, %cy\n"
                  "    %zx = float %t\n"
                  "    %n = add i32 %n, 1\n"
                  "  }\n"
                  "  %r = i32 %n\n";
  return Fn("i32 (i64 %i, i64 %j)", B, __FILE__, __LINE__);
}

/// The acceleration of body %i from all bodies, as Problem.h's nbodyAccel():
/// a generate whose function reads the four arrays it is given with(), as
/// a user writes it (docs/Skeletons.md, "Writing scalar functions well"): a
/// vector type and its helpers in a prelude, typed array parameters, the
/// softening a bound constant. The sums are `reassoc`, so that LLVM
/// vectorizes the loop over the bodies, as the omp peer's `simd reduction`
/// does.
Fn nbodyFn() {
  static const Prelude Vectors(R"(
  %V3 = type { float, float, float }
  define internal %V3 @at(float %x, float %y, float %z) {
    %a = insertvalue %V3 poison, float %x, 0
    %b = insertvalue %V3 %a, float %y, 1
    %r = insertvalue %V3 %b, float %z, 2
    ret %V3 %r
  }
  ; s * x + y, by field; its sums may be reassociated
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
    %r = call %V3 @at(float %z0, float %z1, float %z2)
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
)", __FILE__, __LINE__);
  std::string B = R"(
    %xi = call float @xs(i64 %i)
    %yi = call float @ys(i64 %i)
    %zi = call float @zs(i64 %i)
    %pi = call %V3 @at(float %xi, float %yi, float %zi)
    %a = %V3 zeroinitializer
    for i64 %j in 0 to %ms.n0 {
      %xj = call float @xs(i64 %j)
      %yj = call float @ys(i64 %j)
      %zj = call float @zs(i64 %j)
      %pj = call %V3 @at(float %xj, float %yj, float %zj)
      %d = call %V3 @axpy(float -1.0, %V3 %pi, %V3 %pj)
      %d2 = call float @dot(%V3 %d, %V3 %d)
      %d2s = fadd float %d2, %soft
      %sq = call float @llvm.sqrt.f32(float %d2s)
      %inv = fdiv float 1.0, %sq
      %inv2 = fmul float %inv, %inv
      %inv3 = fmul float %inv2, %inv
      %mj = call float @ms(i64 %j)
      %s = fmul float %mj, %inv3
      %a = call %V3 @axpy(float %s, %V3 %d, %V3 %a)
    }
    %ax = extractvalue %V3 %a, 0
    %ay = extractvalue %V3 %a, 1
    %az = extractvalue %V3 %a, 2
    %axy = fadd float %ax, %ay
    %r = fadd float %axy, %az)";
  return Fn(Vectors,
            "float (i64 %i, float %soft, array<float> %xs, array<float> %ys, "
            "array<float> %zs, array<float> %ms)",
            B, __FILE__, __LINE__)
      .bind("soft", NBodySoft);
}

/// The 5x5 Gaussian of Problem.h's gaussRow(), over 25 neighbours.
Fn gaussFn() {
  static const float W[5] = {1, 4, 6, 4, 1};
  std::string Sig = "float (", Body = "%s0 = float 0.0\n";
  for (int I = 0; I < 25; ++I) {
    std::string K = std::to_string(I);
    Sig += std::string(I ? ", " : "") + "float %x" + K;
    Body += "%w" + K + " = fmul float " +
            f(W[I / 5] * W[I % 5] * (1.0f / 256.0f)) + ", %x" + K + "\n";
    Body += "%s" + std::to_string(I + 1) + " = fadd float %s" + K + ", %w" +
            K + "\n";
  }
  return Fn(Sig + ")", Body + "%r = float %s25\n", __FILE__, __LINE__);
}

std::optional<Impl> make(const Problem &P, Runtime &R, bool Bind) {
  auto AddF = LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
  // The OpenMP and Halide peers reduce with `simd reduction` and vectors,
  // which reassociate; this function gives llquote's folds the same right.
  auto AddReassoc =
      LLQ_FN("float (float %a, float %b)", "%r = fadd reassoc float %a, %b");
  auto MulF = LLQ_FN("float (float %a, float %b)", "%r = fmul float %a, %b");
  const std::string &Op = P.Op;
  int64_t N = P.N;
  Acc E;
  if (Op == "map" || Op == "overhead") {
    auto Lin = LLQ_FN("float (float %x)",
                      "%t = fmul float %x, 2.0\n %r = fadd float %t, 1.0");
    E = map(Lin, wrap({N}, P.X.data()));
  } else if (Op == "saxpy") {
    if (P.A != 2.5f)
      return std::nullopt;
    // As Accelerate writes it: zipWith (+) (map (a *) x) y, the map fused.
    // `contract`, as GCC's default is for the C++ peers (see mandelFn):
    // the multiply and the add may become one fused multiply-add.
    auto Scale = LLQ_FN("float (float %x)", "%r = fmul contract float 2.5, %x");
    auto AddC = LLQ_FN("float (float %a, float %b)",
                       "%r = fadd contract float %a, %b");
    E = zipWith(AddC, map(Scale, wrap({N}, P.X.data())), wrap({N}, P.Y.data()));
  } else if (Op == "sum") {
    E = fold(AddReassoc, 0.0f, wrap({N}, P.X.data()));
  } else if (Op == "dot") {
    E = fold(AddReassoc, 0.0f,
             zipWith(MulF, wrap({N}, P.X.data()), wrap({N}, P.Y.data())));
  } else if (Op == "scan") {
    E = scanl(AddF, 0.0f, wrap({N}, P.X.data()));
  } else if (Op == "histogram") {
    if (P.Bins != 256)
      return std::nullopt;
    auto AddI = LLQ_FN("i32 (i32 %a, i32 %b)", "%r = add i32 %a, %b");
    // histKey(): the top 8 bits of i * 0x9E3779B97F4A7C15.
    auto Key = LLQ_FN("i64 (i64 %i)", "%m = mul i64 %i, -7046029254386353131\n"
                                      " %r = lshr i64 %m, 56");
    E = permute(AddI, fill({P.Bins}, int32_t(0)), Key, wrap({N}, P.W.data()));
  } else if (Op == "transpose") {
    E = transpose(wrap({P.Rows, P.Cols}, P.X.data()));
  } else if (Op == "reverse") {
    E = reverse(wrap({N}, P.X.data()));
  } else if (Op == "segsum") {
    E = foldSeg(AddF, 0.0f, wrap({N}, P.X.data()),
                wrap({int64_t(P.Segs.size())}, P.Segs.data()));
  } else if (Op == "blackscholes") {
    static Fn BS = blackScholesFn();
    E = zipWith(BS, wrap({N}, P.X.data()), wrap({N}, P.Y.data()),
                wrap({N}, P.Z.data()));
  } else if (Op == "mandelbrot") {
    E = generate({P.Rows, P.Cols}, mandelFn(P.Rows, P.Cols, P.MaxIter));
  } else if (Op == "nbody") {
    static Fn Accel = nbodyFn();
    E = generate({N}, Accel.with({wrap({N}, P.X.data()), wrap({N}, P.Y.data()),
                                  wrap({N}, P.Z.data()),
                                  wrap({N}, P.M.data())}));
#ifdef LLQ_BENCH_HAVE_STENCIL
  } else if (Op == "blur3" || Op == "blur5") {
    int K = Op == "blur3" ? 3 : 5;
    auto MakeBlur = [](int K) {
      std::string Sig = "float (", Body;
      for (int I = 0; I < K * K; ++I) {
        Sig += std::string(I ? ", " : "") + "float %x" + std::to_string(I);
        Body += "%s" + std::to_string(I + 1) + " = fadd float %s" +
                std::to_string(I) + ", %x" + std::to_string(I) + "\n";
      }
      Sig += ")";
      Body = "%s0 = float 0.0\n" + Body + "%r = fmul float %s" +
             std::to_string(K * K) + ", " + f(1.0f / float(K * K)) + "\n";
      return Fn(Sig, Body, __FILE__, __LINE__);
    };
    static Fn Blur3 = MakeBlur(3);
    static Fn Blur5 = MakeBlur(5);
    E = stencil(K == 3 ? Blur3 : Blur5, Boundary::clamp(),
                wrap({P.Rows, P.Cols}, P.X.data()));
  } else if (Op == "canny") {
    static Fn Gauss = gaussFn();
    // Sobel's gradient magnitude, as Problem.h's sobelRow().
    static Fn Sobel = LLQ_FN(
        "float (float %x0, float %x1, float %x2, float %x3, float %x4, "
        "float %x5, float %x6, float %x7, float %x8)",
        R"(%m5 = fmul float 2.0, %x5
           %a0 = fadd float %x2, %m5
           %a1 = fadd float %a0, %x8
           %m3 = fmul float 2.0, %x3
           %b0 = fadd float %x0, %m3
           %b1 = fadd float %b0, %x6
           %gx = fsub float %a1, %b1
           %m7 = fmul float 2.0, %x7
           %c0 = fadd float %x6, %m7
           %c1 = fadd float %c0, %x8
           %m1 = fmul float 2.0, %x1
           %d0 = fadd float %x0, %m1
           %d1 = fadd float %d0, %x2
           %gy = fsub float %c1, %d1
           %gx2 = fmul float %gx, %gx
           %gy2 = fmul float %gy, %gy
           %g2 = fadd float %gx2, %gy2
           %r = call float @llvm.sqrt.f32(float %g2))");
    E = stencil(Sobel, Boundary::clamp(),
                stencil(Gauss, Boundary::clamp(),
                        wrap({P.Rows, P.Cols}, P.X.data())));
#endif
  } else {
    return std::nullopt;
  }
  if (!E.error().empty())
    throw ArrayError(Op + ": " + E.error());
  auto Out = std::make_shared<Array<>>();
  Impl Im;
  if (Bind) {
    auto Call = std::make_shared<Bound>();
    Im.Run = [&R, E, Out, Call] {
      if (!Out->shared()) {
        Prepared Pr = R.prepare(E);
        *Out = Pr();
        *Call = Pr.bind(*Out);
      }
      (*Call)();
    };
  } else {
    // Later runs write into the previous result, as the peers write into
    // their preallocated output.
    Im.Run = [&R, E, Out] { *Out = Out->shared() ? R.run(E, *Out) : R.run(E); };
  }
  Im.Result = [Out] {
    View V;
    V.N = Out->size();
    const rt::Array &A = Out->raw();
    if (A.type() == ElemType::of<float>())
      V.F = static_cast<const float *>(A.data(0));
    else if (A.type() == ElemType::of<int32_t>())
      V.I = static_cast<const int32_t *>(A.data(0));
    return V;
  };
  return Im;
}

} // namespace

namespace llq::arraybench {

void addLlquotePeers(std::vector<Peer> &Peers, unsigned Threads) {
  RuntimeOptions O;
  O.Threads = Threads;
  TheRuntime = std::make_unique<Runtime>(O);
  Peers.push_back({"llquote", [](const Problem &P) {
                     return make(P, *TheRuntime, /*Bind=*/true);
                   }});
  Peers.push_back({"llquote-run", [](const Problem &P) {
                     return make(P, *TheRuntime, /*Bind=*/false);
                   }});
  // What fusion buys: the operations whose expression has a producer under
  // a consumer, run with every producer a kernel of its own. The others are
  // one operation over manifest arrays here, with nothing to fuse.
  O.Fusion = false;
  TheUnfused = std::make_unique<Runtime>(O);
  Peers.push_back({"unfused", [](const Problem &P) -> std::optional<Impl> {
                     if (P.Op != "dot" && P.Op != "saxpy")
                       return std::nullopt;
                     return make(P, *TheUnfused, /*Bind=*/true);
                   }});
}

std::vector<CompileTimes> measureCompile(unsigned Reps, unsigned Threads) {
  std::vector<float> Xs(1024, 1.0f), Ys(1024, 2.0f);
  auto Add = LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
  auto Mul = LLQ_FN("float (float %a, float %b)", "%r = fmul float %a, %b");
  auto Lin = LLQ_FN("float (float %x)",
                    "%t = fmul float %x, 2.0\n %r = fadd float %t, 1.0");
  // A 5x5 stencil: the sum of its 25 neighbours, as the blur's shape.
  auto Sum25 = LLQ_FN(
      "float (float %a0, float %a1, float %a2, float %a3, float %a4, "
      "float %a5, float %a6, float %a7, float %a8, float %a9, float %a10, "
      "float %a11, float %a12, float %a13, float %a14, float %a15, "
      "float %a16, float %a17, float %a18, float %a19, float %a20, "
      "float %a21, float %a22, float %a23, float %a24)", R"(
    %s = fadd float %a0, %a1
    %s = fadd float %s, %a2
    %s = fadd float %s, %a3
    %s = fadd float %s, %a4
    %s = fadd float %s, %a5
    %s = fadd float %s, %a6
    %s = fadd float %s, %a7
    %s = fadd float %s, %a8
    %s = fadd float %s, %a9
    %s = fadd float %s, %a10
    %s = fadd float %s, %a11
    %s = fadd float %s, %a12
    %s = fadd float %s, %a13
    %s = fadd float %s, %a14
    %s = fadd float %s, %a15
    %s = fadd float %s, %a16
    %s = fadd float %s, %a17
    %s = fadd float %s, %a18
    %s = fadd float %s, %a19
    %s = fadd float %s, %a20
    %s = fadd float %s, %a21
    %s = fadd float %s, %a22
    %s = fadd float %s, %a23
    %r = fadd float %s, %a24
  )");
  struct Case {
    std::string Op;
    std::function<Acc()> Make;
  };
  std::vector<Case> Cases = {
      {"map", [&] { return map(Lin, wrap({1024}, Xs.data())); }},
      {"dot", [&] {
         return fold(Add, 0.0f, zipWith(Mul, wrap({1024}, Xs.data()),
                                        wrap({1024}, Ys.data())));
       }},
      {"scan", [&] { return scanl(Add, 0.0f, wrap({1024}, Xs.data())); }},
      {"permute", [&] {
         return permute(Add, fill({64}, 0.0f),
                        LLQ_FN("i64 (i64 %i)", "%r = and i64 %i, 63"),
                        wrap({1024}, Xs.data()));
       }},
      {"stencil5", [&] {
         return stencil(Sum25, Boundary::clamp(), wrap({32, 32}, Xs.data()));
       }},
  };
  using Clock = std::chrono::steady_clock;
  auto Time = [](Runtime &R, const Acc &E) {
    auto T0 = Clock::now();
    R.run(E);
    return std::chrono::duration<double>(Clock::now() - T0).count();
  };
  std::vector<CompileTimes> Out;
  for (Case &C : Cases) {
    CompileTimes T;
    T.Op = C.Op;
    for (unsigned Rep = 0; Rep < Reps; ++Rep) {
      // A fresh, empty disk cache for each repetition.
      char Dir[] = "/tmp/llq-bench-cache-XXXXXX";
      if (!mkdtemp(Dir))
        throw ArrayError("cannot make a temporary directory");
      setenv("LLQ_CACHE_DIR", Dir, 1);
      RuntimeOptions O;
      O.Threads = Threads;
      {
        Runtime R(O);
        Acc E = C.Make();
        T.Cold.push_back(Time(R, E));
        T.Warm.push_back(Time(R, E));
      }
      {
        Runtime R(O);
        T.Disk.push_back(Time(R, C.Make()));
      }
      std::string Cmd = std::string("rm -rf '") + Dir + "'";
      if (std::system(Cmd.c_str()) != 0)
        std::fprintf(stderr, "warning: could not remove %s\n", Dir);
    }
    Out.push_back(std::move(T));
  }
  unsetenv("LLQ_CACHE_DIR");
  return Out;
}

TargetInfo describeTarget() {
  TargetInfo T;
  // The caches, as the kernel reports them for the first CPU.
  for (int Index = 0; Index < 8; ++Index) {
    std::string Dir = "/sys/devices/system/cpu/cpu0/cache/index" +
                      std::to_string(Index) + "/";
    std::ifstream Level(Dir + "level"), Type(Dir + "type"), Size(Dir + "size");
    std::string L, Ty, Sz;
    if (!(Level >> L) || !(Type >> Ty) || !(Size >> Sz))
      continue;
    if (L == "1" && Ty == "Data")
      T.L1d = Sz;
    else if (L == "2")
      T.L2 = Sz;
    else if (L == "3")
      T.L3 = Sz;
  }
  llvm::InitializeNativeTarget();
  auto Builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!Builder) {
    llvm::consumeError(Builder.takeError());
    return T;
  }
  // As the engine chooses: LLQ_MCPU names a CPU with its own features.
  if (const char *CPU = std::getenv("LLQ_MCPU");
      CPU && *CPU && std::string(CPU) != "host" && std::string(CPU) != "native") {
    Builder->setCPU(CPU);
    Builder->setFeatures("");
  }
  T.CPU = Builder->getCPU();
  std::vector<std::string> Vector;
  for (const std::string &F : Builder->getFeatures().getFeatures())
    if (F[0] == '+' && (F.find("avx") != std::string::npos ||
                        F.find("sse") != std::string::npos ||
                        F == "+fma" || F.find("prefer") != std::string::npos))
      Vector.push_back(F.substr(1));
  std::sort(Vector.begin(), Vector.end());
  for (const std::string &F : Vector)
    T.VectorFeatures += (T.VectorFeatures.empty() ? "" : " ") + F;
  auto TM = Builder->createTargetMachine();
  if (!TM) {
    llvm::consumeError(TM.takeError());
    return T;
  }
  llvm::LLVMContext Ctx;
  llvm::Module M("probe", Ctx);
  M.setDataLayout((*TM)->createDataLayout());
  auto *F = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(Ctx), false),
      llvm::Function::ExternalLinkage, "probe", M);
  llvm::TargetTransformInfo TTI = (*TM)->getTargetTransformInfo(*F);
  T.VectorBits = unsigned(
      TTI.getRegisterBitWidth(llvm::TargetTransformInfo::RGK_FixedWidthVector)
          .getFixedValue());
  return T;
}

} // namespace llq::arraybench
