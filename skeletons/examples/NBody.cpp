//===- NBody.cpp - All-pairs n-body: a map whose function reads every body -===//
//
// Each step: the acceleration of every body (a map whose function loops
// over all bodies, read with Fn::with) is fused into the velocity update
// (zipWith); the positions follow from the new velocities. The time step is
// a run-time constant (Fn::bind): another dt would compile nothing.
//
//===----------------------------------------------------------------------===//
#include "Options.h"
#include <cmath>

namespace {
using Body = std::tuple<float, float, float, float>; // x, y, z, mass
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
  llq::Runtime R = O.make();
  auto Accel = LLQ_FN("{ float, float, float } ({ float, float, float, float } %b, "
                      "ptr %xs, ptr %ys, ptr %zs, ptr %ms, i64 %n)", R"(
    %xi = extractvalue { float, float, float, float } %b, 0
    %yi = extractvalue { float, float, float, float } %b, 1
    %zi = extractvalue { float, float, float, float } %b, 2
    %ax = float 0.0
    %ay = float 0.0
    %az = float 0.0
    for i64 %j in 0 to %n {
      %px = getelementptr float, ptr %xs, i64 %j
      %xj = load float, ptr %px
      %py = getelementptr float, ptr %ys, i64 %j
      %yj = load float, ptr %py
      %pz = getelementptr float, ptr %zs, i64 %j
      %zj = load float, ptr %pz
      %pm = getelementptr float, ptr %ms, i64 %j
      %mj = load float, ptr %pm
      %dx = fsub float %xj, %xi
      %dy = fsub float %yj, %yi
      %dz = fsub float %zj, %zi
      %d2x = fmul float %dx, %dx
      %d2y = fmul float %dy, %dy
      %d2z = fmul float %dz, %dz
      %d2a = fadd float %d2x, %d2y
      %d2b = fadd float %d2a, %d2z
      %d2 = fadd float %d2b, 0x3F847AE140000000
      %sq = call float @llvm.sqrt.f32(float %d2)
      %inv = fdiv float 1.0, %sq
      %inv2 = fmul float %inv, %inv
      %inv3 = fmul float %inv2, %inv
      %s = fmul float %mj, %inv3
      %fx = fmul float %dx, %s
      %ax = fadd reassoc float %ax, %fx
      %fy = fmul float %dy, %s
      %ay = fadd reassoc float %ay, %fy
      %fz = fmul float %dz, %s
      %az = fadd reassoc float %az, %fz
    }
    %r0 = insertvalue { float, float, float } poison, float %ax, 0
    %r1 = insertvalue { float, float, float } %r0, float %ay, 1
    %r = insertvalue { float, float, float } %r1, float %az, 2)");
  auto KickV = LLQ_FN("{ float, float, float } ({ float, float, float } %v, "
                      "{ float, float, float } %a, float %dt)", R"(
    %v0 = extractvalue { float, float, float } %v, 0
    %v1 = extractvalue { float, float, float } %v, 1
    %v2 = extractvalue { float, float, float } %v, 2
    %a0 = extractvalue { float, float, float } %a, 0
    %a1 = extractvalue { float, float, float } %a, 1
    %a2 = extractvalue { float, float, float } %a, 2
    %d0 = fmul float %a0, %dt
    %d1 = fmul float %a1, %dt
    %d2 = fmul float %a2, %dt
    %w0 = fadd float %v0, %d0
    %w1 = fadd float %v1, %d1
    %w2 = fadd float %v2, %d2
    %r0 = insertvalue { float, float, float } poison, float %w0, 0
    %r1 = insertvalue { float, float, float } %r0, float %w1, 1
    %r = insertvalue { float, float, float } %r1, float %w2, 2)");
  auto Drift = LLQ_FN("{ float, float, float, float } ({ float, float, float, float } %b, "
                      "{ float, float, float } %v, float %dt)", R"(
    %x = extractvalue { float, float, float, float } %b, 0
    %y = extractvalue { float, float, float, float } %b, 1
    %z = extractvalue { float, float, float, float } %b, 2
    %v0 = extractvalue { float, float, float } %v, 0
    %v1 = extractvalue { float, float, float } %v, 1
    %v2 = extractvalue { float, float, float } %v, 2
    %d0 = fmul float %v0, %dt
    %d1 = fmul float %v1, %dt
    %d2 = fmul float %v2, %dt
    %x1 = fadd float %x, %d0
    %y1 = fadd float %y, %d1
    %z1 = fadd float %z, %d2
    %r0 = insertvalue { float, float, float, float } %b, float %x1, 0
    %r1 = insertvalue { float, float, float, float } %r0, float %y1, 1
    %r = insertvalue { float, float, float, float } %r1, float %z1, 2)");
  llq::Acc P = llq::fromVectors<float, float, float, float>({N}, X, Y, Z, M);
  llq::Acc V = llq::fromVectors<float, float, float>({N}, VX, VY, VZ);
  for (int64_t S = 0; S < Steps; ++S) {
    llq::Array<> Pm = R.run(P);
    V = R.run(llq::zipWith(KickV.bind("dt", Dt), V, llq::map(Accel.with({Pm}), Pm)));
    P = R.run(llq::zipWith(Drift.bind("dt", Dt), Pm, V));
  }
  auto Got = R.run(P).as<Body>().toVector();
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
}

int main(int Argc, char **Argv) { return runExample(example, Argc, Argv); }
