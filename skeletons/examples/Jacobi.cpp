//===- Jacobi.cpp - Jacobi iteration for Laplace's equation ----------------===//
//
// u' = (north + south + east + west) / 4 with a fixed boundary of 1.0
// (a constant boundary), --steps times: one stencil kernel, compiled once
// by Runtime::prepare; every step runs the prepared stencil from one grid
// into the other and swaps them, with no walk of the expression, no
// lookup and no allocation. With --mpi, under mpirun, the grid's rows are
// split over MPI ranks, and each step exchanges one row with each
// neighbouring rank before the stencil runs on its rows.
//
//===----------------------------------------------------------------------===//
#include "Mpi.h"
#include <cmath>

static int example(const Options &O) {
  int64_t W = O.get("width", O.get("n", 256)), H = O.get("height", W);
  int64_t Steps = O.get("steps", 10);
  std::vector<float> U(static_cast<size_t>(W * H), 0.0f);
  auto Step = LLQ_FN("float (float %nw, float %n, float %ne, float %w, "
                     "float %c, float %e, float %sw, float %s, float %se)", R"(
    %ns = fadd float %n, %s
    %we = fadd float %w, %e
    %t = fadd float %ns, %we
    %r = fmul float %t, 0.25)");
  llq::Array<float> Grid = llq::fromVector({H, W}, U),
                    Next = llq::fromVector({H, W}, U);
  uint64_t Compiled = 0;
  auto Check = [&](const llq::Array<> &Result) {
    std::vector<float> Got = Result.as<float>().toVector();
    auto At = [&](const std::vector<float> &V, int64_t I, int64_t J) {
      return I < 0 || J < 0 || I >= H || J >= W ? 1.0f : V[size_t(I * W + J)];
    };
    for (int64_t K = 0; K < Steps; ++K) {
      std::vector<float> Next(U.size());
      for (int64_t I = 0; I < H; ++I)
        for (int64_t J = 0; J < W; ++J)
          Next[size_t(I * W + J)] =
              ((At(U, I - 1, J) + At(U, I + 1, J)) + (At(U, I, J - 1) + At(U, I, J + 1))) * 0.25f;
      U.swap(Next);
    }
    double MaxErr = 0;
    for (size_t I = 0; I < U.size(); ++I)
      MaxErr = std::max(MaxErr, std::fabs(double(Got[I]) - U[I]));
    bool Ok = MaxErr == 0 && Compiled <= 1;
    fmt::print("jacobi {}x{}, {} steps, {} kernel(s) compiled: max error {:.3g} {}\n",
               W, H, Steps, Compiled, MaxErr, Ok ? "ok" : "MISMATCH");
    return Ok ? 0 : 1;
  };
  if (O.get("mpi", 0))
    return runOnRanks(
        O,
        [&](auto &R) {
          uint64_t Built = R.local().stats().KernelsBuilt;
          auto G = R.run(llq::Acc(Grid));
          for (int64_t K = 0; K < Steps; ++K)
            G = R.run(llq::stencil(Step, llq::Boundary::constant(1.0f), G));
          Compiled = R.local().stats().KernelsBuilt - Built;
          return G;
        },
        Check);
  llq::Runtime R = O.make();
  uint64_t Built = R.stats().KernelsBuilt;
  llq::Prepared Jacobi =
      R.prepare(llq::stencil(Step, llq::Boundary::constant(1.0f), Grid));
  for (int64_t K = 0; K < Steps; ++K) {
    // Next = step(Grid), written into Next's storage.
    Next = Jacobi.runInto(Next, Grid).as<float>();
    std::swap(Grid, Next);
  }
  Compiled = R.stats().KernelsBuilt - Built;
  return Check(llq::Array<>(Grid.shared()));
}

int main(int Argc, char **Argv) { return runExample(example, Argc, Argv); }
