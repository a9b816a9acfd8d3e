//===- Halide.cpp - The Halide 14 peer: one JIT-compiled Func per operation -===//
//
// Each operation is one Halide pipeline over ImageParams, JIT-compiled once
// for the host (get_jit_target_from_environment) and realized into the
// peer's own buffers. Schedules: element-wise operations split into 8192-
// element tasks run in parallel and vectorized by 8; reductions rfactor'ed
// twice (parallel over chunks, vector lanes within); transpose tiled 32x32;
// the blur the classic two-stage schedule (rows computed per tile), Canny's
// front its Gaussian per row band, n-body a vectorized tuple update, the
// scan in three phases over chunks, the histogram as partial histograms of
// chunks (rfactor). Segments of varying length have no reduction domain of
// their own in Halide, nor does mandelbrot's early exit: those two have no
// Halide peer.
//
//===----------------------------------------------------------------------===//

#include "Problem.h"
#include <Halide.h>
#include <map>
#include <memory>

using namespace llq::arraybench;
using namespace Halide;

namespace {

struct Pipe {
  std::vector<ImageParam> In;
  Func Out;
};

Target &target() {
  static Target T = get_jit_target_from_environment();
  return T;
}

void elementwise(Func F, Var I) {
  Var IO("io"), II("ii");
  F.split(I, IO, II, 8192, TailStrategy::GuardWithIf)
      .vectorize(II, 8)
      .parallel(IO);
}

std::shared_ptr<Pipe> build(const std::string &Op) {
  auto P = std::make_shared<Pipe>();
  Var I("i"), J("j");
  if (Op == "map" || Op == "overhead") {
    ImageParam X(Float(32), 1, "x");
    P->In = {X};
    P->Out(I) = X(I) * 2.0f + 1.0f;
    elementwise(P->Out, I);
  } else if (Op == "saxpy") {
    ImageParam X(Float(32), 1, "x"), Y(Float(32), 1, "y");
    P->In = {X, Y};
    P->Out(I) = 2.5f * X(I) + Y(I);
    elementwise(P->Out, I);
  } else if (Op == "reverse") {
    ImageParam X(Float(32), 1, "x");
    P->In = {X};
    P->Out(I) = X(X.dim(0).extent() - 1 - I);
    elementwise(P->Out, I);
  } else if (Op == "sum" || Op == "dot") {
    ImageParam X(Float(32), 1, "x"), Y(Float(32), 1, "y");
    RDom R(0, X.dim(0).extent());
    P->Out() = 0.0f;
    if (Op == "dot") {
      P->In = {X, Y};
      P->Out() += X(R) * Y(R);
    } else {
      P->In = {X};
      P->Out() += X(R);
    }
    RVar RO("ro"), RI("ri"), RIO("rio"), RII("rii");
    Var U("u"), V("v");
    P->Out.update().split(R.x, RO, RI, 16384);
    Func Chunks = P->Out.update().rfactor(RO, U);
    Chunks.compute_root().update().parallel(U);
    Chunks.update().split(RI, RIO, RII, 8);
    Func Lanes = Chunks.update().rfactor(RII, V);
    Lanes.compute_at(Chunks, U).vectorize(V).update().vectorize(V);
  } else if (Op == "scan") {
    // scanl (+) 0 in three phases: each chunk's inclusive prefix (chunks in
    // parallel), an exclusive prefix of the chunks' totals (sequential,
    // one per chunk), and the output, element-wise.
    const int Chunk = 1 << 16;
    ImageParam X(Float(32), 1, "x");
    P->In = {X};
    Expr N = X.dim(0).extent();
    Expr Chunks = (N + Chunk - 1) / Chunk;
    Func In = BoundaryConditions::constant_exterior(X, 0.0f);
    Func Local("local"), Offset("offset");
    RDom R(1, Chunk - 1);
    Local(I, J) = In(I + J * Chunk);
    Local(R, J) = Local(R - 1, J) + In(R + J * Chunk);
    RDom RC(1, max(Chunks - 1, 0));
    Offset(J) = 0.0f;
    Offset(RC) = Offset(RC - 1) + Local(Chunk - 1, RC - 1);
    Expr K = max(I - 1, 0);
    P->Out(I) = select(I == 0, 0.0f, Offset(K / Chunk) + Local(K % Chunk, K / Chunk));
    Local.compute_root().parallel(J).update().parallel(J);
    Offset.compute_root();
    elementwise(P->Out, I);
  } else if (Op == "histogram") {
    // The key is Problem.h's histKey(); partial histograms of 2^16-element
    // chunks in parallel (rfactor), then their sum.
    ImageParam W(Int(32), 1, "w");
    P->In = {W};
    RDom R(0, W.dim(0).extent());
    // The clamp changes nothing (the shift leaves 8 bits); it tells Halide
    // the bins' bounds.
    Expr Key = clamp(cast<int32_t>((cast<uint64_t>(R.x) *
                                    Expr(uint64_t(0x9E3779B97F4A7C15ull))) >>
                                   56),
                     0, 255);
    P->Out(I) = 0;
    P->Out(Key) += W(R.x);
    RVar RO("ro"), RI("ri");
    Var U("u");
    P->Out.update().split(R.x, RO, RI, 1 << 16, TailStrategy::GuardWithIf);
    Func Partial = P->Out.update().rfactor(RO, U);
    Partial.compute_root().update().parallel(U);
  } else if (Op == "transpose") {
    ImageParam X(Float(32), 2, "x"); // dim 0: columns.
    P->In = {X};
    P->Out(I, J) = X(J, I);
    Var IO("io"), JO("jo"), II("ii"), JI("ji");
    P->Out.tile(I, J, IO, JO, II, JI, 32, 32, TailStrategy::GuardWithIf)
        .vectorize(II, 8)
        .parallel(JO);
  } else if (Op == "blackscholes") {
    ImageParam S(Float(32), 1, "s"), K(Float(32), 1, "k"), T(Float(32), 1, "t");
    P->In = {S, K, T};
    auto Cnd = [](Expr D) {
      Expr Kx = 1.0f / (1.0f + 0.2316419f * abs(D));
      Expr W = 0.39894228040143267794f * exp(-0.5f * D * D) *
               (Kx * (0.31938153f +
                      Kx * (-0.356563782f +
                            Kx * (1.781477937f +
                                  Kx * (-1.821255978f + Kx * 1.330274429f)))));
      return select(D < 0, W, 1.0f - W);
    };
    Expr SqrtT = sqrt(T(I));
    Expr D1 = (log(S(I) / K(I)) + (BSRate + 0.5f * BSVol * BSVol) * T(I)) /
              (BSVol * SqrtT);
    Expr D2 = D1 - BSVol * SqrtT;
    P->Out(I) = S(I) * Cnd(D1) - K(I) * exp(-BSRate * T(I)) * Cnd(D2);
    elementwise(P->Out, I);
  } else if (Op == "blur3" || Op == "blur5") {
    int R = Op == "blur3" ? 1 : 2;
    ImageParam X(Float(32), 2, "x");
    P->In = {X};
    Func In = BoundaryConditions::repeat_edge(X);
    Func Rows("rows");
    Expr SX = 0.0f, SY = 0.0f;
    for (int D = -R; D <= R; ++D)
      SX = SX + In(I + D, J);
    Rows(I, J) = SX;
    for (int D = -R; D <= R; ++D)
      SY = SY + Rows(I, J + D);
    P->Out(I, J) = SY * (1.0f / float((2 * R + 1) * (2 * R + 1)));
    Var IO("io"), JO("jo"), II("ii"), JI("ji");
    P->Out.tile(I, J, IO, JO, II, JI, 256, 32, TailStrategy::GuardWithIf)
        .vectorize(II, 8)
        .parallel(JO);
    Rows.compute_at(P->Out, IO).vectorize(I, 8);
  } else if (Op == "canny") {
    // The Gaussian separably (rows, then columns), stored per row band;
    // then Sobel's magnitude over it, clamped at the image's edges.
    static const float W[5] = {1, 4, 6, 4, 1};
    ImageParam X(Float(32), 2, "x");
    P->In = {X};
    Func In = BoundaryConditions::repeat_edge(X);
    Func Rows("rows"), Gauss("gauss");
    Expr SX = 0.0f, SY = 0.0f;
    for (int D = -2; D <= 2; ++D)
      SX = SX + W[D + 2] * In(I + D, J);
    Rows(I, J) = SX;
    for (int D = -2; D <= 2; ++D)
      SY = SY + W[D + 2] * Rows(I, J + D);
    Gauss(I, J) = SY * (1.0f / 256.0f);
    Func G = BoundaryConditions::repeat_edge(
        Gauss, {{0, X.dim(0).extent()}, {0, X.dim(1).extent()}});
    Expr Gx = (G(I + 1, J - 1) + 2.0f * G(I + 1, J) + G(I + 1, J + 1)) -
              (G(I - 1, J - 1) + 2.0f * G(I - 1, J) + G(I - 1, J + 1));
    Expr Gy = (G(I - 1, J + 1) + 2.0f * G(I, J + 1) + G(I + 1, J + 1)) -
              (G(I - 1, J - 1) + 2.0f * G(I, J - 1) + G(I + 1, J - 1));
    P->Out(I, J) = sqrt(Gx * Gx + Gy * Gy);
    Var JO("jo"), JI("ji");
    P->Out.split(J, JO, JI, 32, TailStrategy::GuardWithIf)
        .vectorize(I, 8)
        .parallel(JO);
    Gauss.compute_at(P->Out, JO).vectorize(I, 8);
    Rows.compute_at(P->Out, JO).vectorize(I, 8);
  } else if (Op == "nbody") {
    // One sequential update over all bodies per body, three sums in a
    // tuple, vectorized across bodies.
    ImageParam X(Float(32), 1, "x"), Y(Float(32), 1, "y"), Z(Float(32), 1, "z"),
        M(Float(32), 1, "m");
    P->In = {X, Y, Z, M};
    RDom R(0, X.dim(0).extent());
    Func Acc("acc");
    Acc(I) = Tuple(0.0f, 0.0f, 0.0f);
    // The body itself is read clamped: vector lanes past the last body
    // compute something that is never stored.
    Func XI = BoundaryConditions::repeat_edge(X),
         YI = BoundaryConditions::repeat_edge(Y),
         ZI = BoundaryConditions::repeat_edge(Z);
    Expr Dx = X(R) - XI(I), Dy = Y(R) - YI(I), Dz = Z(R) - ZI(I);
    Expr D2 = Dx * Dx + Dy * Dy + Dz * Dz + NBodySoft;
    Expr Inv = 1.0f / sqrt(D2);
    Expr S = M(R) * (Inv * Inv * Inv);
    Acc(I) = Tuple(Acc(I)[0] + Dx * S, Acc(I)[1] + Dy * S, Acc(I)[2] + Dz * S);
    P->Out(I) = Acc(I)[0] + Acc(I)[1] + Acc(I)[2];
    Var IO("io"), II("ii");
    P->Out.split(I, IO, II, 64, TailStrategy::GuardWithIf)
        .vectorize(II, 8)
        .parallel(IO);
    Acc.compute_at(P->Out, IO).vectorize(I, 8);
    Acc.update().vectorize(I, 8);
  } else {
    return nullptr;
  }
  P->Out.compile_jit(target());
  return P;
}

std::shared_ptr<Pipe> pipe(const std::string &Op) {
  static std::map<std::string, std::shared_ptr<Pipe>> Cache;
  auto It = Cache.find(Op);
  if (It != Cache.end())
    return It->second;
  return Cache[Op] = build(Op);
}

Buffer<float> in1(const Vec<float> &V, int64_t N) {
  return Buffer<float>(const_cast<float *>(V.data()), int(N));
}

std::optional<Impl> make(const Problem &P) {
  std::shared_ptr<Pipe> Pp = pipe(P.Op);
  if (!Pp)
    return std::nullopt;
  struct State {
    std::vector<Buffer<>> Ins;
    Vec<float> Out;
    Vec<int32_t> OutI;
    float S = 0;
    Buffer<> OutBuf;
  };
  auto St = std::make_shared<State>();
  int64_t N = P.N, OutN = N;
  const std::string &Op = P.Op;
  if (Op == "transpose" || Op == "blur3" || Op == "blur5" || Op == "canny") {
    St->Ins.push_back(Buffer<float>(const_cast<float *>(P.X.data()), int(P.Cols),
                                    int(P.Rows)));
    St->Out.resize(size_t(N));
    if (Op == "transpose")
      St->OutBuf = Buffer<float>(St->Out.data(), int(P.Rows), int(P.Cols));
    else
      St->OutBuf = Buffer<float>(St->Out.data(), int(P.Cols), int(P.Rows));
  } else if (Op == "histogram") {
    St->Ins.push_back(Buffer<int32_t>(const_cast<int32_t *>(P.W.data()), int(N)));
    OutN = P.Bins;
    St->OutI.resize(size_t(P.Bins));
    St->OutBuf = Buffer<int32_t>(St->OutI.data(), int(P.Bins));
  } else if (Op == "scan") {
    St->Ins.push_back(in1(P.X, N));
    OutN = N + 1;
    St->Out.resize(size_t(N + 1));
    St->OutBuf = Buffer<float>(St->Out.data(), int(N + 1));
  } else {
    St->Ins.push_back(in1(P.X, N));
    if (Op == "saxpy" || Op == "dot")
      St->Ins.push_back(in1(P.Y, N));
    if (Op == "blackscholes" || Op == "nbody") {
      St->Ins.push_back(in1(P.Y, N));
      St->Ins.push_back(in1(P.Z, N));
    }
    if (Op == "nbody")
      St->Ins.push_back(in1(P.M, N));
    if (Op == "sum" || Op == "dot") {
      OutN = 1;
      St->OutBuf = Buffer<float>::make_scalar(&St->S);
    } else {
      St->Out.resize(size_t(N));
      St->OutBuf = Buffer<float>(St->Out.data(), int(N));
    }
  }
  Impl Im;
  Im.Run = [Pp, St] {
    for (size_t K = 0; K < Pp->In.size(); ++K)
      Pp->In[K].set(St->Ins[K]);
    Pp->Out.realize(St->OutBuf, target());
  };
  Im.Result = [St, OutN] {
    View V;
    V.N = OutN;
    if (!St->OutI.empty())
      V.I = St->OutI.data();
    else
      V.F = St->Out.empty() ? &St->S : St->Out.data();
    return V;
  };
  return Im;
}

} // namespace

void llq::arraybench::addHalidePeers(std::vector<Peer> &Peers) {
  Peers.push_back({"halide", [](const Problem &P) { return make(P); }});
}
