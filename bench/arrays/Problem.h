//===- Problem.h - One benchmark problem and the peers that solve it -*- C++ -*-===//
//
// The array benchmarks (llquote_bench_arrays) run every operation on the
// same inputs through several peers: llquote's skeletons, hand-written C++
// (sequential and OpenMP), oneTBB and Halide. A peer turns a Problem into an
// Impl: Run() computes the result into storage the Impl owns, Result()
// shows it to the checker. Peers live in their own files, compiled with
// their own flags (-O3 -march=native for the hand-written ones, Halide's
// headers only for Halide), and meet only through this header.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_BENCH_ARRAYS_PROBLEM_H
#define LLQUOTE_BENCH_ARRAYS_PROBLEM_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace llq::arraybench {

/// std::allocator with 64-byte alignment: every peer gets cache-line
/// aligned inputs and outputs, as llquote's own arrays are.
template <typename T> struct Aligned {
  using value_type = T;
  Aligned() = default;
  template <typename U> Aligned(const Aligned<U> &) {}
  T *allocate(size_t N) {
    return static_cast<T *>(::operator new(N * sizeof(T), std::align_val_t(64)));
  }
  void deallocate(T *P, size_t) { ::operator delete(P, std::align_val_t(64)); }
  template <typename U> bool operator==(const Aligned<U> &) const { return true; }
  template <typename U> bool operator!=(const Aligned<U> &) const { return false; }
};
template <typename T> using Vec = std::vector<T, Aligned<T>>;

/// The inputs of one operation at one size. Which fields are used depends
/// on Op; see makeProblem() in Main.cpp for the data and the README in
/// docs/Benchmarks.md for what each operation computes.
struct Problem {
  std::string Op;
  int64_t N = 0;              ///< Elements of the (main) input.
  int64_t Rows = 0, Cols = 0; ///< Matrices: transpose, blur, mandelbrot.
  float A = 2.5f;             ///< SAXPY's a.
  Vec<float> X, Y, Z;         ///< Inputs; Black-Scholes: S, K, T.
  Vec<float> M;               ///< n-body: masses (X, Y, Z: positions).
  Vec<int32_t> W;             ///< Histogram weights.
  Vec<int32_t> Segs;          ///< Segment lengths for the segmented sum.
  int64_t Bins = 256;         ///< Histogram bins.
  int32_t MaxIter = 64;       ///< Mandelbrot iterations.
  unsigned Threads = 1;       ///< Threads every parallel peer uses.
};

/// A result, as the checker reads it.
struct View {
  const float *F = nullptr;
  const int32_t *I = nullptr;
  int64_t N = 0;
};

struct Impl {
  std::function<void()> Run;
  std::function<View()> Result;
};

/// A peer: its name and what it makes of a problem (nullopt: this peer
/// does not offer the operation).
struct Peer {
  std::string Name;
  std::function<std::optional<Impl>(const Problem &)> Make;
};

// The histogram's key of element i, the same for every peer: the top 8 bits
// of a multiplicative hash (Fibonacci hashing), so 256 bins.
inline int64_t histKey(int64_t I) {
  return int64_t((uint64_t(I) * 0x9E3779B97F4A7C15ull) >> 56);
}

// Black-Scholes constants, shared by every peer.
constexpr float BSRate = 0.02f, BSVol = 0.30f;

// Mandelbrot: pixel (i, j) of a Rows x Cols image maps to
// (-2.0 + j * 3/Cols, -1.5 + i * 3/Rows); result: iterations before escape.
constexpr float MandelX0 = -2.0f, MandelY0 = -1.5f, MandelSpan = 3.0f;

// The scalar work of Black-Scholes and Mandelbrot, as the C++ peers write it.
inline float cnd(float D) {
  const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f,
              A4 = -1.821255978f, A5 = 1.330274429f;
  const float InvSqrt2Pi = 0.39894228040143267794f;
  float K = 1.0f / (1.0f + 0.2316419f * std::fabs(D));
  float W = InvSqrt2Pi * std::exp(-0.5f * D * D) *
            (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
  return D < 0 ? W : 1.0f - W;
}

inline float blackScholes(float S, float K, float T) {
  float SqrtT = std::sqrt(T);
  float D1 = (std::log(S / K) + (BSRate + 0.5f * BSVol * BSVol) * T) /
             (BSVol * SqrtT);
  float D2 = D1 - BSVol * SqrtT;
  return S * cnd(D1) - K * std::exp(-BSRate * T) * cnd(D2);
}

inline int32_t mandel(int64_t I, int64_t J, int64_t Rows, int64_t Cols,
                      int32_t MaxIter) {
  float CX = MandelX0 + float(J) * (MandelSpan / float(Cols));
  float CY = MandelY0 + float(I) * (MandelSpan / float(Rows));
  float ZX = 0, ZY = 0;
  int32_t K = 0;
  while (K < MaxIter && ZX * ZX + ZY * ZY <= 4.0f) {
    float T = ZX * ZX - ZY * ZY + CX;
    ZY = 2.0f * ZX * ZY + CY;
    ZX = T;
    ++K;
  }
  return K;
}

/// One row of a k x k box blur with clamped borders.
template <int R>
inline void blurRow(const float *In, float *Out, int64_t Rows, int64_t Cols,
                    int64_t I) {
  const float Scale = 1.0f / float((2 * R + 1) * (2 * R + 1));
  const float *Rp[2 * R + 1];
  for (int D = -R; D <= R; ++D)
    Rp[D + R] = In + std::clamp<int64_t>(I + D, 0, Rows - 1) * Cols;
  auto At = [&](int64_t J) {
    float S = 0;
    for (int DI = 0; DI < 2 * R + 1; ++DI)
      for (int DJ = -R; DJ <= R; ++DJ)
        S += Rp[DI][std::clamp<int64_t>(J + DJ, 0, Cols - 1)];
    return S * Scale;
  };
  int64_t J = 0;
  for (; J < std::min<int64_t>(R, Cols); ++J)
    Out[I * Cols + J] = At(J);
  for (; J < Cols - R; ++J) {
    float S = 0;
    for (int DI = 0; DI < 2 * R + 1; ++DI)
      for (int DJ = -R; DJ <= R; ++DJ)
        S += Rp[DI][J + DJ];
    Out[I * Cols + J] = S * Scale;
  }
  for (; J < Cols; ++J)
    Out[I * Cols + J] = At(J);
}

/// One row of the front of Canny: a 5x5 Gaussian (weights 1 4 6 4 1 in
/// each direction, over 256), clamped at the borders, of In into Out.
inline void gaussRow(const float *In, float *Out, int64_t Rows, int64_t Cols,
                     int64_t I) {
  static const float W[5] = {1, 4, 6, 4, 1};
  for (int64_t J = 0; J < Cols; ++J) {
    float S = 0;
    for (int DI = -2; DI <= 2; ++DI) {
      const float *Row = In + std::clamp<int64_t>(I + DI, 0, Rows - 1) * Cols;
      for (int DJ = -2; DJ <= 2; ++DJ)
        S += (W[DI + 2] * W[DJ + 2] * (1.0f / 256.0f)) *
             Row[std::clamp<int64_t>(J + DJ, 0, Cols - 1)];
    }
    Out[I * Cols + J] = S;
  }
}

/// Then the Sobel gradient's magnitude, sqrt(gx^2 + gy^2), clamped too.
inline void sobelRow(const float *In, float *Out, int64_t Rows, int64_t Cols,
                     int64_t I) {
  const float *U = In + std::max<int64_t>(I - 1, 0) * Cols;
  const float *M = In + I * Cols;
  const float *D = In + std::min<int64_t>(I + 1, Rows - 1) * Cols;
  for (int64_t J = 0; J < Cols; ++J) {
    int64_t L = std::max<int64_t>(J - 1, 0), R = std::min<int64_t>(J + 1, Cols - 1);
    float Gx = (U[R] + 2.0f * M[R] + D[R]) - (U[L] + 2.0f * M[L] + D[L]);
    float Gy = (D[L] + 2.0f * D[J] + D[R]) - (U[L] + 2.0f * U[J] + U[R]);
    Out[I * Cols + J] = std::sqrt(Gx * Gx + Gy * Gy);
  }
}

// n-body: the softening added to every squared distance.
constexpr float NBodySoft = 0.01f;

/// The acceleration of body I from all N bodies (positions X, Y, Z, masses
/// M), as ax + ay + az: one number that needs all three. Compiled with
/// OpenMP (the omp peer) the sums are a SIMD reduction, which reassociates
/// them, as llquote's function does with `fadd reassoc`; the seq and tbb
/// peers add in order.
inline float nbodyAccel(const float *X, const float *Y, const float *Z,
                        const float *M, int64_t N, int64_t I) {
  float Ax = 0, Ay = 0, Az = 0;
#pragma omp simd reduction(+ : Ax, Ay, Az)
  for (int64_t J = 0; J < N; ++J) {
    float Dx = X[J] - X[I], Dy = Y[J] - Y[I], Dz = Z[J] - Z[I];
    float D2 = Dx * Dx + Dy * Dy + Dz * Dz + NBodySoft;
    float Inv = 1.0f / std::sqrt(D2);
    float S = M[J] * (Inv * Inv * Inv);
    Ax += Dx * S;
    Ay += Dy * S;
    Az += Dz * S;
  }
  return Ax + Ay + Az;
}

/// Each module adds its peers; a module whose library is missing adds none.
void addSeqPeers(std::vector<Peer> &Peers);
void addOmpPeers(std::vector<Peer> &Peers);
void addTBBPeers(std::vector<Peer> &Peers);
void addHalidePeers(std::vector<Peer> &Peers);
void addLlquotePeers(std::vector<Peer> &Peers, unsigned Threads);

/// Tells the OpenMP and TBB runtimes how many threads to use.
void setNativeThreads(unsigned Threads);
void setTBBThreads(unsigned Threads);

/// STREAM copy, scale, add and triad over N floats with OpenMP (or one
/// thread without it): seconds for one pass of each, Rep times.
struct StreamTimes {
  std::vector<double> Copy, Scale, Add, Triad;
};
StreamTimes runStream(int64_t N, unsigned Reps);

/// Kernel compile latency of llquote: seconds of a first run on a fresh
/// runtime with an empty disk cache (cold), of a first run on a fresh
/// runtime whose disk cache holds the kernel (disk), and of a second run
/// (warm: found by structure).
struct CompileTimes {
  std::string Op;
  std::vector<double> Cold, Disk, Warm;
};
std::vector<CompileTimes> measureCompile(unsigned Reps, unsigned Threads);

/// What decides the results besides the model name: the CPU LLVM compiles
/// llquote's kernels for (LLQ_MCPU, else the host's), its enabled vector
/// features, the vector register width the loop vectorizer uses, and the
/// caches. Empty strings where something cannot be found out.
struct TargetInfo {
  std::string CPU;
  std::string VectorFeatures;
  unsigned VectorBits = 0;
  std::string L1d, L2, L3;
};
TargetInfo describeTarget();

} // namespace llq::arraybench

#endif
