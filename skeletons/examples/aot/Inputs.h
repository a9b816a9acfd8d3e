//===- Inputs.h - The example's arrays and how results are shown ----------===//
//
// Deterministic inputs of any size, and the text both the compiled
// application (App.cpp) and the JIT reference (Jit.cpp) print for a result:
// each element's bits in hexadecimal, so that equal text is equal results.
// Plain C++: the application links no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_EXAMPLES_AOT_INPUTS_H
#define LLQUOTE_EXAMPLES_AOT_INPUTS_H

#include "llquote/skeletons/Language.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace aotex {

/// The vector and image extents the example runs at: odd ones.
inline const int64_t Sizes[] = {1, 7, 1009, 1048579};
inline const int64_t ImageSizes[][2] = {{1, 1}, {3, 7}, {131, 257}, {1031, 517}};
inline const int64_t BodyCounts[] = {1, 7, 1009};

inline std::vector<float> floats(int64_t N, int Seed) {
  std::vector<float> V(static_cast<size_t>(N));
  for (int64_t I = 0; I < N; ++I)
    V[size_t(I)] = float((I * 37 + Seed * 11) % 101) / 50.0f - 1.0f;
  return V;
}

inline std::vector<int64_t> integers(int64_t N) {
  std::vector<int64_t> V(static_cast<size_t>(N));
  for (int64_t I = 0; I < N; ++I)
    V[size_t(I)] = (I * 7919) % 1000 - 500;
  return V;
}

inline llq::Array<std::tuple<float, float, float>> bodies(int64_t N) {
  std::vector<float> X(floats(N, 1)), Y(floats(N, 2)), Z(floats(N, 3));
  return llq::fromVectors<float, float, float>({N}, X, Y, Z);
}

inline llq::Array<float> masses(int64_t N) {
  std::vector<float> M(static_cast<size_t>(N));
  for (int64_t I = 0; I < N; ++I)
    M[size_t(I)] = 1.0f + float(I % 3);
  return llq::fromVector(M);
}

/// Segment lengths adding up to N: 0, 1, 2, ... 9, 0, 1, ..., the last
/// what is left.
inline std::vector<int32_t> segments(int64_t N) {
  std::vector<int32_t> S;
  int64_t Left = N;
  for (int32_t K = 0; Left > 0; K = (K + 1) % 10) {
    int32_t L = int32_t(std::min<int64_t>(K, Left));
    S.push_back(L);
    Left -= L;
  }
  return S;
}

/// Prints Label, A's shape and a hash of its fields' bits.
inline void print(const char *Label, const llq::detail::ArrayHandle &A) {
  uint64_t H = 14695981039346656037ull;
  const llq::rt::Array &R = A.raw();
  for (size_t F = 0; F < R.numFields(); ++F) {
    const auto *B = static_cast<const unsigned char *>(R.data(F));
    size_t Bytes = size_t(R.size()) * llq::rt::byteSize(R.type().field(F));
    for (size_t I = 0; I < Bytes; ++I) {
      H ^= B[I];
      H *= 1099511628211ull;
    }
  }
  std::printf("%s %s %016llx\n", Label, A.shape().str().c_str(),
              static_cast<unsigned long long>(H));
}

} // namespace aotex

#endif // LLQUOTE_EXAMPLES_AOT_INPUTS_H
