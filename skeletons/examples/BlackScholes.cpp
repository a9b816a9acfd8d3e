//===- BlackScholes.cpp - European option prices: a map over tuples ------===//
#include "Options.h"
#include <cmath>

namespace {
constexpr float Rate = 0.02f, Vol = 0.30f;

float cnd(float D) {
  const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f,
              A4 = -1.821255978f, A5 = 1.330274429f, RSqrt2Pi = 0.39894228040143267794f;
  float K = 1.0f / (1.0f + 0.2316419f * std::fabs(D));
  float C = RSqrt2Pi * std::exp(-0.5f * D * D) *
            (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
  return D > 0 ? 1.0f - C : C;
}
} // namespace

namespace {
const llq::Prelude &options() {
  return LLQ_PRELUDE(R"(
  %Option = type { float, float, float } ; price, strike, years
  %Prices = type { float, float }        ; call, put
  ; the cumulative normal distribution, by the Abramowitz-Stegun polynomial
  define internal float @cnd(float %d) {
    %ad = call float @llvm.fabs.f32(float %d)
    %kd0 = fmul float 0x3FCDA67120000000, %ad
    %kd1 = fadd float 1.0, %kd0
    %kk = fdiv float 1.0, %kd1
    %p = float 0x3FF548CDE0000000
    %p = fmul float %kk, %p
    %p = fadd float %p, 0xBFFD23DD40000000
    %p = fmul float %kk, %p
    %p = fadd float %p, 0x3FFC80EF00000000
    %p = fmul float %kk, %p
    %p = fadd float %p, 0xBFD6D1F0E0000000
    %p = fmul float %kk, %p
    %p = fadd float %p, 0x3FD470BF40000000
    %p = fmul float %kk, %p
    %dd = fmul float %d, %d
    %e0 = fmul float %dd, -0.5
    %e = call float @llvm.exp.f32(float %e0)
    %c0 = fmul float 0x3FD9884540000000, %e
    %c = fmul float %c0, %p
    %pos = fcmp ogt float %d, 0.0
    %oc = fsub float 1.0, %c
    %r = select i1 %pos, float %oc, float %c
    ret float %r
  }
)");
}
} // namespace

static int example(const Options &O) {
  int64_t N = O.get("n", 1 << 20);
  std::vector<float> S(static_cast<size_t>(N)), X(static_cast<size_t>(N)),
      T(static_cast<size_t>(N));
  for (int64_t I = 0; I < N; ++I) {
    S[size_t(I)] = 5.0f + float(I % 97) * 0.3f;
    X[size_t(I)] = 1.0f + float(I % 89) * 0.33f;
    T[size_t(I)] = 0.25f + float(I % 41) * 0.2f;
  }
  llq::Runtime R = O.make();
  // (price, strike, years) -> (call, put), with the cumulative normal
  // distribution a helper of a prelude.
  auto Price = LLQ_FN(options(), "%Prices (%Option %o)", R"(
    %s = extractvalue %Option %o, 0
    %x = extractvalue %Option %o, 1
    %t = extractvalue %Option %o, 2
    %sqrtt = call float @llvm.sqrt.f32(float %t)
    %sx = fdiv float %s, %x
    %lsx = call float @llvm.log.f32(float %sx)
    %vv = fmul float 0x3FD3333340000000, 0x3FD3333340000000
    %hv = fmul float %vv, 0.5
    %rv = fadd float 0x3F947AE140000000, %hv
    %rvt = fmul float %rv, %t
    %num = fadd float %lsx, %rvt
    %den = fmul float 0x3FD3333340000000, %sqrtt
    %d1 = fdiv float %num, %den
    %d2 = fsub float %d1, %den
    %cnd1 = call float @cnd(float %d1)
    %cnd2 = call float @cnd(float %d2)
    %rt = fmul float 0xBF947AE140000000, %t
    %disc = call float @llvm.exp.f32(float %rt)
    %xe = fmul float %x, %disc
    %sc1 = fmul float %s, %cnd1
    %xc2 = fmul float %xe, %cnd2
    %call = fsub float %sc1, %xc2
    %n1 = fsub float 1.0, %cnd1
    %n2 = fsub float 1.0, %cnd2
    %xn2 = fmul float %xe, %n2
    %sn1 = fmul float %s, %n1
    %put = fsub float %xn2, %sn1
    %c01 = insertvalue %Prices poison, float %call, 0
    %r = insertvalue %Prices %c01, float %put, 1)");
  auto Opts = llq::fromVectors<float, float, float>({N}, S, X, T);
  auto Out = R.run(llq::map(Price, Opts)).as<std::tuple<float, float>>().toVector();
  int64_t Bad = 0;
  double MaxErr = 0;
  for (int64_t I = 0; I < N; ++I) {
    float Sq = std::sqrt(T[size_t(I)]);
    float D1 = (std::log(S[size_t(I)] / X[size_t(I)]) +
                (Rate + 0.5f * Vol * Vol) * T[size_t(I)]) / (Vol * Sq);
    float D2 = D1 - Vol * Sq;
    float E = X[size_t(I)] * std::exp(-Rate * T[size_t(I)]);
    float Call = S[size_t(I)] * cnd(D1) - E * cnd(D2);
    float Put = E * (1.0f - cnd(D2)) - S[size_t(I)] * (1.0f - cnd(D1));
    double Err = std::max(std::fabs(double(std::get<0>(Out[size_t(I)])) - Call),
                          std::fabs(double(std::get<1>(Out[size_t(I)])) - Put));
    MaxErr = std::max(MaxErr, Err);
    // exp and log may differ in their last bits: allow 1e-4 absolute.
    Bad += Err > 1e-4 * std::max(1.0f, S[size_t(I)]);
  }
  fmt::print("black-scholes of {} options: max error {:.3g} {}\n", N, MaxErr,
             Bad ? "MISMATCH" : "ok");
  return Bad ? 1 : 0;
}

int main(int Argc, char **Argv) { return runExample(example, Argc, Argv); }
