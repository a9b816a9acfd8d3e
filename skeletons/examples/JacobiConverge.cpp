//===- JacobiConverge.cpp - Jacobi iteration until it converges ------------===//
//
// Laplace's equation on a grid whose boundary is held at 1.0, iterated with
// the Jacobi step u' = (north + south + east + west) / 4 until no point
// changes by as much as --tol (in millionths; default 1000, i.e. 1e-3):
// one awhile inside one run. Its condition is the largest change a step
// would make, its step the stencil; both are planned and compiled once,
// however many iterations the grid needs, and each iteration reads one bool
// back. Checked against the same loop in plain C++, iteration for
// iteration.
//
//===----------------------------------------------------------------------===//
#include "Options.h"
#include <cmath>

static int example(const Options &O) {
  int64_t W = O.get("width", O.get("n", 48)), H = O.get("height", W);
  float Tol = float(O.get("tol", 1000)) * 1e-6f;
  llq::Runtime R = O.make();
  auto Step = LLQ_FN("float (float %nw, float %n, float %ne, float %w, "
                     "float %c, float %e, float %sw, float %s, float %se)", R"(
    %ns = fadd float %n, %s
    %we = fadd float %w, %e
    %t = fadd float %ns, %we
    %r = fmul float %t, 0.25)");
  auto Change = LLQ_FN("float (float %next, float %now)", R"(
    %d = fsub float %next, %now
    %r = call float @llvm.fabs.f32(float %d))");
  auto AtLeast = LLQ_FN("i1 (float %change, float %tol)",
                        "%r = fcmp oge float %change, %tol");
  auto Jacobi = [&](const llq::Acc &U) {
    return llq::stencil(Step, llq::Boundary::constant(1.0f), U);
  };
  // Whether a step would still change some point by Tol or more.
  auto Moving = [&](const llq::Acc &U) {
    llq::Acc Diff = llq::zipWith(Change, Jacobi(U), U);
    return llq::zipWith(AtLeast, llq::maximum(llq::reshape({W * H}, Diff)),
                        llq::fill({}, Tol));
  };
  std::vector<float> U(static_cast<size_t>(W * H), 0.0f);
  uint64_t Built = R.stats().KernelsBuilt;
  std::vector<float> Got =
      R.run<float>(llq::awhile(Moving, Jacobi, llq::fromVector({H, W}, U))).toVector();
  uint64_t Compiled = R.stats().KernelsBuilt - Built;

  auto At = [&](const std::vector<float> &V, int64_t I, int64_t J) {
    return I < 0 || J < 0 || I >= H || J >= W ? 1.0f : V[size_t(I * W + J)];
  };
  int64_t Steps = 0;
  for (;;) {
    std::vector<float> Next(U.size());
    float Largest = -INFINITY;
    for (int64_t I = 0; I < H; ++I)
      for (int64_t J = 0; J < W; ++J) {
        float V = ((At(U, I - 1, J) + At(U, I + 1, J)) +
                   (At(U, I, J - 1) + At(U, I, J + 1))) * 0.25f;
        Next[size_t(I * W + J)] = V;
        Largest = std::max(Largest, std::fabs(V - U[size_t(I * W + J)]));
      }
    if (!(Largest >= Tol))
      break;
    U.swap(Next);
    ++Steps;
  }
  double MaxErr = 0;
  for (size_t I = 0; I < U.size(); ++I)
    MaxErr = std::max(MaxErr, std::fabs(double(Got[I]) - U[I]));
  // The stencil, the condition's fused difference and maximum, and the
  // comparison: a handful of kernels for any number of steps.
  bool Ok = MaxErr == 0 && Compiled <= 6;
  fmt::print("jacobi to {:g}: {}x{} converged in {} steps, {} kernel(s) compiled: "
             "max error {:.3g} {}\n",
             Tol, W, H, Steps, Compiled, MaxErr, Ok ? "ok" : "MISMATCH");
  return Ok ? 0 : 1;
}

int main(int Argc, char **Argv) { return runExample(example, Argc, Argv); }
