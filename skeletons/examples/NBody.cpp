//===- NBody.cpp - All-pairs n-body: a map whose function reads every body -===//
//
// Each step: the acceleration of every body (a map whose function loops
// over all bodies, reading their positions and masses as typed arrays) is
// fused into the velocity update (zipWith); the positions follow from the
// new velocities. The vector type and its helpers are a prelude the
// functions share; the time step and the softening are run-time constants
// (Fn::bind): another dt would compile nothing. With --mpi, under mpirun,
// the same steps run over MPI ranks, each advancing its share of the bodies
// and reading all positions (gathered on every rank each step).
//
//===----------------------------------------------------------------------===//
#include "Mpi.h"
#include "aot/Programs.h"
#include <cmath>

namespace {
using Vec = std::tuple<float, float, float>;
constexpr float Dt = 0.01f, Soft = 0.01f;

} // namespace

static int example(const Options &O) {
  int64_t N = O.get("n", 1000), Steps = O.get("steps", 2);
  std::vector<float> X(static_cast<size_t>(N)), Y(X), Z(X), M(X), VX(X), VY(X), VZ(X);
  for (int64_t I = 0; I < N; ++I) {
    X[size_t(I)] = std::cos(float(I) * 0.7f) * float(I % 17);
    Y[size_t(I)] = std::sin(float(I) * 1.3f) * float(I % 13);
    Z[size_t(I)] = float(I % 11) - 5.0f;
    M[size_t(I)] = 1.0f + float(I % 3);
  }
  // The acceleration of body %p: the pull of every body j.
  auto Advance = LLQ_FN(aotex::physics(), "%V3 (%V3 %x, %V3 %v, float %dt)",
                        "%r = call %V3 @axpy(float %dt, %V3 %v, %V3 %x)");
  llq::Array<float> Mass = llq::fromVector(M);
  llq::Acc P0 = llq::fromVectors<float, float, float>({N}, X, Y, Z);
  llq::Acc V0 = llq::fromVectors<float, float, float>({N}, VX, VY, VZ);
  // The steps, on either runtime: R.run gives an Array, or on MPI ranks a
  // distributed array (each rank's bodies).
  auto Simulate = [&](auto &R) {
    auto P = R.run(P0), V = R.run(V0);
    for (int64_t S = 0; S < Steps; ++S) {
      // The program, shared with the ahead-of-time example (aot/Programs.h).
      auto A = aotex::accelerations(P, Mass, Soft);
      V = R.run(llq::zipWith(Advance.bind("dt", Dt), V, A));
      P = R.run(llq::zipWith(Advance.bind("dt", Dt), P, V));
    }
    return P;
  };
  auto Check = [&](const llq::Array<> &Result) {
    auto Got = Result.as<Vec>().toVector();
    // The reference: the same arithmetic, its sums in order (llquote's may
    // be reassociated, hence the tolerance).
    auto AccelOf = [&](int64_t I, float &Ax, float &Ay, float &Az) {
      Ax = Ay = Az = 0;
      for (int64_t J = 0; J < N; ++J) {
        float Dx = X[size_t(J)] - X[size_t(I)], Dy = Y[size_t(J)] - Y[size_t(I)],
              Dz = Z[size_t(J)] - Z[size_t(I)];
        float D2 = Dx * Dx + Dy * Dy + Dz * Dz + Soft;
        float Inv = 1.0f / std::sqrt(D2);
        float Sc = M[size_t(J)] * (Inv * Inv * Inv);
        Ax += Dx * Sc, Ay += Dy * Sc, Az += Dz * Sc;
      }
    };
    // The reference is quadratic too: over many bodies and one step, it
    // checks 257 bodies spread over the array, each against all the others.
    std::vector<int64_t> Checked;
    bool Sampled = Steps == 1 && N > 16384;
    for (int64_t K = 0; Sampled ? K <= 256 : K < N; ++K)
      Checked.push_back(Sampled ? K * (N - 1) / 256 : K);
    for (int64_t S = 0; S < Steps; ++S) {
      std::vector<float> AX(X.size()), AY(X.size()), AZ(X.size());
      for (int64_t I : Checked)
        AccelOf(I, AX[size_t(I)], AY[size_t(I)], AZ[size_t(I)]);
      for (int64_t I : Checked) {
        size_t U = size_t(I);
        VX[U] += AX[U] * Dt, VY[U] += AY[U] * Dt, VZ[U] += AZ[U] * Dt;
        X[U] += VX[U] * Dt, Y[U] += VY[U] * Dt, Z[U] += VZ[U] * Dt;
      }
    }
    double MaxErr = 0;
    for (int64_t I : Checked)
      MaxErr = std::max({MaxErr, std::fabs(double(std::get<0>(Got[size_t(I)])) - X[size_t(I)]),
                         std::fabs(double(std::get<1>(Got[size_t(I)])) - Y[size_t(I)]),
                         std::fabs(double(std::get<2>(Got[size_t(I)])) - Z[size_t(I)])});
    bool Ok = MaxErr <= 1e-3;
    fmt::print("n-body, {} bodies, {} steps: max position error {:.3g} over {} "
               "bodies {}\n",
               N, Steps, MaxErr, Checked.size(), Ok ? "ok" : "MISMATCH");
    return Ok ? 0 : 1;
  };
  if (O.get("mpi", 0))
    return runOnRanks(O, Simulate, Check);
  llq::Runtime R = O.make();
  return Check(Simulate(R));
}

int main(int Argc, char **Argv) { return runExample(example, Argc, Argv); }
