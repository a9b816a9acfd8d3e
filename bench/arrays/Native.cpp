//===- Native.cpp - Hand-written C++ peers: sequential loops and OpenMP ----===//
//
// What a C++ programmer writes without llquote, compiled at -O3
// -march=native: "seq" is a plain loop (and the reference every other peer
// is checked against), "omp" the same loop with OpenMP parallel for,
// reduction, array reduction or OpenMP 5 scan. The STREAM kernels live
// here too, so that the bandwidth limit is measured by the same compiler
// with the same flags.
//
//===----------------------------------------------------------------------===//

#include "Problem.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#ifdef _OPENMP
#include <omp.h>
#endif

using namespace llq::arraybench;

namespace {

/// The peer's storage: a float or int output and a scalar.
struct Store {
  Vec<float> F;
  Vec<int32_t> I;
  float S = 0;
  View view(int64_t N) const {
    View V;
    V.N = N;
    if (!F.empty())
      V.F = F.data();
    else if (!I.empty())
      V.I = I.data();
    else
      V.F = &S;
    return V;
  }
};

constexpr int64_t Tile = 32;

/// The loops. This file is compiled twice: with LLQ_NATIVE_SEQ and without
/// -fopenmp for "seq", where the pragmas are ignored, and with -fopenmp for
/// "omp".
std::optional<Impl> make(const Problem &P) {
  auto St = std::make_shared<Store>();
  const Problem *Q = &P;
  const std::string &Op = P.Op;
  int64_t N = P.N;
  int64_t OutN = N;
  std::function<void()> Run;
  if (Op == "map" || Op == "overhead") {
    St->F.resize(size_t(N));
    Run = [St, Q, N] {
      const float *X = Q->X.data();
      float *O = St->F.data();
#pragma omp parallel for simd
      for (int64_t I = 0; I < N; ++I)
        O[I] = X[I] * 2.0f + 1.0f;
    };
  } else if (Op == "saxpy") {
    St->F.resize(size_t(N));
    Run = [St, Q, N] {
      const float *X = Q->X.data(), *Y = Q->Y.data();
      float *O = St->F.data();
      float A = Q->A;
#pragma omp parallel for simd
      for (int64_t I = 0; I < N; ++I)
        O[I] = A * X[I] + Y[I];
    };
  } else if (Op == "sum") {
    OutN = 1;
    Run = [St, Q, N] {
      const float *X = Q->X.data();
      float S = 0;
#pragma omp parallel for simd reduction(+ : S)
      for (int64_t I = 0; I < N; ++I)
        S += X[I];
      St->S = S;
    };
  } else if (Op == "dot") {
    OutN = 1;
    Run = [St, Q, N] {
      const float *X = Q->X.data(), *Y = Q->Y.data();
      float S = 0;
#pragma omp parallel for simd reduction(+ : S)
      for (int64_t I = 0; I < N; ++I)
        S += X[I] * Y[I];
      St->S = S;
    };
  } else if (Op == "scan") {
    // scanl (+) 0: N + 1 elements, the first the seed.
    St->F.resize(size_t(N + 1));
    OutN = N + 1;
    Run = [St, Q, N] {
      const float *X = Q->X.data();
      float *O = St->F.data();
      O[0] = 0;
      float Acc = 0;
#ifdef _OPENMP
      {
#pragma omp parallel for reduction(inscan, + : Acc)
        for (int64_t I = 0; I < N; ++I) {
          Acc += X[I];
#pragma omp scan inclusive(Acc)
          O[I + 1] = Acc;
        }
      }
#else
      for (int64_t I = 0; I < N; ++I) {
        Acc += X[I];
        O[I + 1] = Acc;
      }
#endif
    };
  } else if (Op == "histogram") {
    St->I.resize(size_t(P.Bins));
    OutN = P.Bins;
    Run = [St, Q, N] {
      const int32_t *W = Q->W.data();
      int32_t *H = St->I.data();
      std::fill(H, H + 256, 0);
#pragma omp parallel for reduction(+ : H[:256])
      for (int64_t I = 0; I < N; ++I)
        H[histKey(I)] += W[I];
    };
    if (P.Bins != 256)
      return std::nullopt;
  } else if (Op == "transpose") {
    St->F.resize(size_t(N));
    Run = [St, Q] {
      const float *X = Q->X.data();
      float *O = St->F.data();
      int64_t R = Q->Rows, C = Q->Cols;
#pragma omp parallel for
      for (int64_t I0 = 0; I0 < R; I0 += Tile)
        for (int64_t J0 = 0; J0 < C; J0 += Tile)
          for (int64_t I = I0; I < std::min(I0 + Tile, R); ++I)
            for (int64_t J = J0; J < std::min(J0 + Tile, C); ++J)
              O[J * R + I] = X[I * C + J];
    };
  } else if (Op == "reverse") {
    St->F.resize(size_t(N));
    Run = [St, Q, N] {
      const float *X = Q->X.data();
      float *O = St->F.data();
#pragma omp parallel for simd
      for (int64_t I = 0; I < N; ++I)
        O[I] = X[N - 1 - I];
    };
  } else if (Op == "segsum") {
    int64_t S = int64_t(P.Segs.size());
    St->F.resize(size_t(S));
    OutN = S;
    auto Off = std::make_shared<Vec<int64_t>>(size_t(S));
    Run = [St, Q, S, Off] {
      const float *X = Q->X.data();
      const int32_t *L = Q->Segs.data();
      float *O = St->F.data();
      int64_t *Of = Off->data();
      int64_t At = 0;
      for (int64_t K = 0; K < S; ++K) {
        Of[K] = At;
        At += L[K];
      }
#pragma omp parallel for schedule(static)
      for (int64_t K = 0; K < S; ++K) {
        float Sum = 0;
        for (int64_t I = Of[K]; I < Of[K] + L[K]; ++I)
          Sum += X[I];
        O[K] = Sum;
      }
    };
  } else if (Op == "blackscholes") {
    St->F.resize(size_t(N));
    Run = [St, Q, N] {
      const float *S = Q->X.data(), *K = Q->Y.data(), *T = Q->Z.data();
      float *O = St->F.data();
#pragma omp parallel for simd
      for (int64_t I = 0; I < N; ++I)
        O[I] = blackScholes(S[I], K[I], T[I]);
    };
  } else if (Op == "mandelbrot") {
    St->I.resize(size_t(N));
    Run = [St, Q] {
      int32_t *O = St->I.data();
      int64_t R = Q->Rows, C = Q->Cols;
      int32_t M = Q->MaxIter;
#pragma omp parallel for schedule(dynamic, 4)
      for (int64_t I = 0; I < R; ++I)
        for (int64_t J = 0; J < C; ++J)
          O[I * C + J] = mandel(I, J, R, C, M);
    };
  } else if (Op == "nbody") {
    St->F.resize(size_t(N));
    Run = [St, Q, N] {
      const float *X = Q->X.data(), *Y = Q->Y.data(), *Z = Q->Z.data(),
                  *M = Q->M.data();
      float *O = St->F.data();
#pragma omp parallel for schedule(static)
      for (int64_t I = 0; I < N; ++I)
        O[I] = nbodyAccel(X, Y, Z, M, N, I);
    };
  } else if (Op == "canny") {
    St->F.resize(size_t(N));
    auto Tmp = std::make_shared<Vec<float>>(size_t(N));
    Run = [St, Q, Tmp] {
      const float *X = Q->X.data();
      float *G = Tmp->data(), *O = St->F.data();
      int64_t R = Q->Rows, C = Q->Cols;
#pragma omp parallel
      {
#pragma omp for
        for (int64_t I = 0; I < R; ++I)
          gaussRow(X, G, R, C, I);
#pragma omp for
        for (int64_t I = 0; I < R; ++I)
          sobelRow(G, O, R, C, I);
      }
    };
  } else if (Op == "blur3" || Op == "blur5") {
    St->F.resize(size_t(N));
    bool Five = Op == "blur5";
    Run = [St, Q, Five] {
      const float *X = Q->X.data();
      float *O = St->F.data();
      int64_t R = Q->Rows, C = Q->Cols;
#pragma omp parallel for
      for (int64_t I = 0; I < R; ++I) {
        if (Five)
          blurRow<2>(X, O, R, C, I);
        else
          blurRow<1>(X, O, R, C, I);
      }
    };
  } else {
    return std::nullopt;
  }
  Impl Im;
  Im.Run = std::move(Run);
  Im.Result = [St, OutN] { return St->view(OutN); };
  return Im;
}

} // namespace

namespace llq::arraybench {
#ifdef LLQ_NATIVE_SEQ
void addSeqPeers(std::vector<Peer> &Peers) {
  Peers.push_back({"seq", [](const Problem &P) { return make(P); }});
}
#else

void setNativeThreads(unsigned Threads) {
#ifdef _OPENMP
  omp_set_num_threads(int(Threads));
#else
  (void)Threads;
#endif
}

void addOmpPeers(std::vector<Peer> &Peers) {
#ifdef _OPENMP
  Peers.push_back({"omp", [](const Problem &P) { return make(P); }});
    // The floor of a parallel call: an empty OpenMP parallel region, offered
  // only for the call-overhead problem. Its result is the right one, made
  // once, so that it passes the check.
  Peers.push_back({"omp-empty", [](const Problem &P) -> std::optional<Impl> {
                     if (P.Op != "overhead")
                       return std::nullopt;
                     auto R = std::make_shared<Vec<float>>(size_t(P.N));
                     for (int64_t I = 0; I < P.N; ++I)
                       (*R)[size_t(I)] = P.X[size_t(I)] * 2.0f + 1.0f;
                     Impl Im;
                     Im.Run = [] {
#pragma omp parallel
                       {
                         asm volatile("" ::: "memory");
                       }
                     };
                     Im.Result = [R] {
                       View V;
                       V.F = R->data();
                       V.N = int64_t(R->size());
                       return V;
                     };
                     return Im;
                   }});
#endif
}

StreamTimes runStream(int64_t N, unsigned Reps) {
  Vec<float> A(static_cast<size_t>(N)), B(static_cast<size_t>(N)), C(static_cast<size_t>(N));
  float *Ap = A.data(), *Bp = B.data(), *Cp = C.data();
  const float S = 3.0f;
#pragma omp parallel for
  for (int64_t I = 0; I < N; ++I) {
    Ap[I] = 1.0f;
    Bp[I] = 2.0f;
    Cp[I] = 0.0f;
  }
  using Clock = std::chrono::steady_clock;
  auto Time = [](auto &&F) {
    auto T0 = Clock::now();
    F();
    return std::chrono::duration<double>(Clock::now() - T0).count();
  };
  StreamTimes T;
  for (unsigned R = 0; R < Reps + 1; ++R) {
    double Copy = Time([&] {
#pragma omp parallel for simd
      for (int64_t I = 0; I < N; ++I)
        Cp[I] = Ap[I];
    });
    double Scale = Time([&] {
#pragma omp parallel for simd
      for (int64_t I = 0; I < N; ++I)
        Bp[I] = S * Cp[I];
    });
    double Add = Time([&] {
#pragma omp parallel for simd
      for (int64_t I = 0; I < N; ++I)
        Cp[I] = Ap[I] + Bp[I];
    });
    double Triad = Time([&] {
#pragma omp parallel for simd
      for (int64_t I = 0; I < N; ++I)
        Ap[I] = Bp[I] + S * Cp[I];
    });
    if (R == 0)
      continue; // Warm-up.
    T.Copy.push_back(Copy);
    T.Scale.push_back(Scale);
    T.Add.push_back(Add);
    T.Triad.push_back(Triad);
  }
  // STREAM's own check, so the loops cannot be dropped: after R rounds a,
  // b and c follow a known recurrence; we only require them finite and
  // consistent with the last round.
  volatile float Sink = Ap[N / 2] + Bp[N / 3] + Cp[N - 1];
  (void)Sink;
  return T;
}

#endif
} // namespace llq::arraybench
