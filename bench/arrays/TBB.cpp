//===- TBB.cpp - The oneTBB peer: parallel_for, parallel_reduce, parallel_scan -===//
//
// The same loops as Native.cpp, written with oneTBB's algorithms and its
// default (auto) partitioner, at -O3 -march=native. Without oneTBB this
// file adds no peer.
//
//===----------------------------------------------------------------------===//

#include "Problem.h"

#ifdef LLQ_BENCH_HAVE_TBB
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <tbb/blocked_range.h>
#include <tbb/blocked_range2d.h>
#include <tbb/combinable.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/parallel_scan.h>

using namespace llq::arraybench;

namespace {

std::unique_ptr<tbb::global_control> Control;

using Range = tbb::blocked_range<int64_t>;

struct Store {
  Vec<float> F;
  Vec<int32_t> I;
  float S = 0;
};

std::optional<Impl> make(const Problem &P) {
  auto St = std::make_shared<Store>();
  const Problem *Q = &P;
  const std::string &Op = P.Op;
  int64_t N = P.N, OutN = N;
  std::function<void()> Run;
  if (Op == "map" || Op == "overhead") {
    St->F.resize(size_t(N));
    Run = [St, Q, N] {
      const float *X = Q->X.data();
      float *O = St->F.data();
      tbb::parallel_for(Range(0, N), [=](const Range &R) {
        for (int64_t I = R.begin(); I < R.end(); ++I)
          O[I] = X[I] * 2.0f + 1.0f;
      });
    };
  } else if (Op == "saxpy") {
    St->F.resize(size_t(N));
    Run = [St, Q, N] {
      const float *X = Q->X.data(), *Y = Q->Y.data();
      float *O = St->F.data();
      float A = Q->A;
      tbb::parallel_for(Range(0, N), [=](const Range &R) {
        for (int64_t I = R.begin(); I < R.end(); ++I)
          O[I] = A * X[I] + Y[I];
      });
    };
  } else if (Op == "sum" || Op == "dot") {
    OutN = 1;
    bool Dot = Op == "dot";
    Run = [St, Q, N, Dot] {
      const float *X = Q->X.data(), *Y = Dot ? Q->Y.data() : nullptr;
      St->S = tbb::parallel_reduce(
          Range(0, N), 0.0f,
          [=](const Range &R, float S) {
            if (Y) {
              for (int64_t I = R.begin(); I < R.end(); ++I)
                S += X[I] * Y[I];
            } else {
              for (int64_t I = R.begin(); I < R.end(); ++I)
                S += X[I];
            }
            return S;
          },
          [](float A, float B) { return A + B; });
    };
  } else if (Op == "scan") {
    St->F.resize(size_t(N + 1));
    OutN = N + 1;
    Run = [St, Q, N] {
      const float *X = Q->X.data();
      float *O = St->F.data();
      O[0] = 0;
      tbb::parallel_scan(
          Range(0, N), 0.0f,
          [=](const Range &R, float Sum, bool Final) {
            if (Final) {
              for (int64_t I = R.begin(); I < R.end(); ++I) {
                Sum += X[I];
                O[I + 1] = Sum;
              }
            } else {
              for (int64_t I = R.begin(); I < R.end(); ++I)
                Sum += X[I];
            }
            return Sum;
          },
          [](float A, float B) { return A + B; });
    };
  } else if (Op == "histogram") {
    if (P.Bins != 256)
      return std::nullopt;
    St->I.resize(256);
    OutN = 256;
    Run = [St, Q, N] {
      using H = std::array<int32_t, 256>;
      const int32_t *W = Q->W.data();
      H Total = tbb::parallel_reduce(
          Range(0, N), H{},
          [=](const Range &R, H Acc) {
            for (int64_t I = R.begin(); I < R.end(); ++I)
              Acc[size_t(histKey(I))] += W[I];
            return Acc;
          },
          [](H A, const H &B) {
            for (size_t K = 0; K < 256; ++K)
              A[K] += B[K];
            return A;
          });
      std::copy(Total.begin(), Total.end(), St->I.begin());
    };
  } else if (Op == "transpose") {
    St->F.resize(size_t(N));
    Run = [St, Q] {
      const float *X = Q->X.data();
      float *O = St->F.data();
      int64_t R = Q->Rows, C = Q->Cols;
      tbb::parallel_for(tbb::blocked_range2d<int64_t>(0, R, 32, 0, C, 32),
                        [=](const tbb::blocked_range2d<int64_t> &B) {
                          for (int64_t I = B.rows().begin(); I < B.rows().end(); ++I)
                            for (int64_t J = B.cols().begin(); J < B.cols().end(); ++J)
                              O[J * R + I] = X[I * C + J];
                        });
    };
  } else if (Op == "reverse") {
    St->F.resize(size_t(N));
    Run = [St, Q, N] {
      const float *X = Q->X.data();
      float *O = St->F.data();
      tbb::parallel_for(Range(0, N), [=](const Range &R) {
        for (int64_t I = R.begin(); I < R.end(); ++I)
          O[I] = X[N - 1 - I];
      });
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
      tbb::parallel_for(Range(0, S), [=](const Range &R) {
        for (int64_t K = R.begin(); K < R.end(); ++K) {
          float Sum = 0;
          for (int64_t I = Of[K]; I < Of[K] + L[K]; ++I)
            Sum += X[I];
          O[K] = Sum;
        }
      });
    };
  } else if (Op == "blackscholes") {
    St->F.resize(size_t(N));
    Run = [St, Q, N] {
      const float *S = Q->X.data(), *K = Q->Y.data(), *T = Q->Z.data();
      float *O = St->F.data();
      tbb::parallel_for(Range(0, N), [=](const Range &R) {
        for (int64_t I = R.begin(); I < R.end(); ++I)
          O[I] = blackScholes(S[I], K[I], T[I]);
      });
    };
  } else if (Op == "mandelbrot") {
    St->I.resize(size_t(N));
    Run = [St, Q] {
      int32_t *O = St->I.data();
      int64_t R = Q->Rows, C = Q->Cols;
      int32_t M = Q->MaxIter;
      tbb::parallel_for(Range(0, R), [=](const Range &B) {
        for (int64_t I = B.begin(); I < B.end(); ++I)
          for (int64_t J = 0; J < C; ++J)
            O[I * C + J] = mandel(I, J, R, C, M);
      });
    };
  } else if (Op == "blur3" || Op == "blur5") {
    St->F.resize(size_t(N));
    bool Five = Op == "blur5";
    Run = [St, Q, Five] {
      const float *X = Q->X.data();
      float *O = St->F.data();
      int64_t R = Q->Rows, C = Q->Cols;
      tbb::parallel_for(Range(0, R), [=](const Range &B) {
        for (int64_t I = B.begin(); I < B.end(); ++I) {
          if (Five)
            blurRow<2>(X, O, R, C, I);
          else
            blurRow<1>(X, O, R, C, I);
        }
      });
    };
  } else if (Op == "canny") {
    St->F.resize(size_t(N));
    auto Tmp = std::make_shared<Vec<float>>(size_t(N));
    Run = [St, Q, Tmp] {
      const float *X = Q->X.data();
      float *G = Tmp->data(), *O = St->F.data();
      int64_t R = Q->Rows, C = Q->Cols;
      tbb::parallel_for(Range(0, R), [=](const Range &B) {
        for (int64_t I = B.begin(); I < B.end(); ++I)
          gaussRow(X, G, R, C, I);
      });
      tbb::parallel_for(Range(0, R), [=](const Range &B) {
        for (int64_t I = B.begin(); I < B.end(); ++I)
          sobelRow(G, O, R, C, I);
      });
    };
  } else if (Op == "nbody") {
    St->F.resize(size_t(N));
    Run = [St, Q, N] {
      const float *X = Q->X.data(), *Y = Q->Y.data(), *Z = Q->Z.data(),
                  *M = Q->M.data();
      float *O = St->F.data();
      tbb::parallel_for(Range(0, N), [=](const Range &B) {
        for (int64_t I = B.begin(); I < B.end(); ++I)
          O[I] = nbodyAccel(X, Y, Z, M, N, I);
      });
    };
  } else {
    return std::nullopt;
  }
  Impl Im;
  Im.Run = std::move(Run);
  Im.Result = [St, OutN] {
    View V;
    V.N = OutN;
    if (!St->F.empty())
      V.F = St->F.data();
    else if (!St->I.empty())
      V.I = St->I.data();
    else
      V.F = &St->S;
    return V;
  };
  return Im;
}

} // namespace

namespace llq::arraybench {
void addTBBPeers(std::vector<Peer> &Peers) {
  Peers.push_back({"tbb", [](const Problem &P) { return make(P); }});
}
void setTBBThreads(unsigned Threads) {
  Control = std::make_unique<tbb::global_control>(
      tbb::global_control::max_allowed_parallelism, Threads);
}
} // namespace llq::arraybench

#else

namespace llq::arraybench {
void addTBBPeers(std::vector<Peer> &) {}
void setTBBThreads(unsigned) {}
} // namespace llq::arraybench

#endif
