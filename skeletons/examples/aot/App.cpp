//===- App.cpp - An application of pipelines compiled ahead of time -------===//
//
// Calls the functions the generator compiled (dot, prefix_sum,
// segment_sums, positives, blur_sobel, accelerations) at odd sizes, checks them against plain C++, and prints
// each result's hash (Inputs.h) for the comparison with the JIT's
// (Jit.cpp). It links llquote_host and the pipelines' libraries: no LLVM.
//
//===----------------------------------------------------------------------===//

#include "Inputs.h"
#include "accelerations.h"
#include "blur_sobel.h"
#include "dot.h"
#include "flip_if_positive.h"
#include "halve_until_small.h"
#include "normalize_rows.h"
#include "positives.h"
#include "prefix_sum.h"
#include "segment_sums.h"
#include <algorithm>
#include <cmath>
#include <string>

static int Failures = 0;

static void expect(bool Ok, const std::string &What) {
  if (!Ok) {
    std::fprintf(stderr, "mismatch: %s\n", What.c_str());
    ++Failures;
  }
}

int main() {
  for (int64_t N : aotex::Sizes) {
    std::vector<float> X = aotex::floats(N, 1), Y = aotex::floats(N, 2);
    llq::Array<float> D = dot(llq::fromVector(X), llq::fromVector(Y));
    double Want = 0;
    for (size_t I = 0; I < X.size(); ++I)
      Want += double(X[I]) * double(Y[I]);
    float Got = D.scalar();
    expect(std::fabs(Got - Want) <= 1e-4 * (1 + std::fabs(Want)) + 1e-3,
           "dot at " + std::to_string(N));
    aotex::print("dot", D);

    std::vector<int64_t> V = aotex::integers(N);
    llq::Array<int64_t> S = prefix_sum(llq::fromVector(V));
    std::vector<int64_t> Sums = S.toVector();
    int64_t Acc = 0;
    bool Same = Sums.size() == V.size();
    for (size_t I = 0; Same && I < V.size(); ++I)
      Same = Sums[I] == (Acc += V[I]);
    expect(Same, "prefix_sum at " + std::to_string(N));
    aotex::print("prefix_sum", S);

    std::vector<int32_t> Lens = aotex::segments(N);
    llq::Array<float> G = segment_sums(llq::fromVector(X), llq::fromVector(Lens));
    std::vector<float> Sums2 = G.toVector();
    bool SegOk = Sums2.size() == Lens.size();
    size_t At = 0;
    for (size_t K = 0; SegOk && K < Lens.size(); ++K) {
      double W = 0;
      for (int32_t I = 0; I < Lens[K]; ++I)
        W += X[At++];
      SegOk = std::fabs(Sums2[K] - W) <= 1e-4 * (1 + std::fabs(W));
    }
    expect(SegOk, "segment_sums at " + std::to_string(N));
    aotex::print("segment_sums", G);

    llq::Array<float> Pos = positives(llq::fromVector(X));
    std::vector<float> WantPos;
    for (float V : X)
      if (V > 0)
        WantPos.push_back(V);
    expect(Pos.toVector() == WantPos, "positives at " + std::to_string(N));
    aotex::print("positives", Pos);

    std::vector<float> Halved = halve_until_small(llq::fromVector(X)).toVector();
    std::vector<float> WantHalved = X;
    auto SumSq = [](const std::vector<float> &V) {
      float S = 0;
      for (float E : V)
        S += E * E;
      return S;
    };
    while (SumSq(WantHalved) > 1.0f)
      for (float &E : WantHalved)
        E *= 0.5f;
    // Halving is exact: only the sum's rounding could stop a step early
    // or late, which would show as a factor of two.
    expect(Halved.size() == X.size() && SumSq(Halved) <= 1.0f &&
               SumSq(Halved) * 4 > std::min(1.0f, SumSq(X)) * 0.99f,
           "halve_until_small at " + std::to_string(N));
    aotex::print("halve_until_small", halve_until_small(llq::fromVector(X)));

    double Sum = 0;
    for (float E : X)
      Sum += E;
    std::vector<float> Flipped = flip_if_positive(llq::fromVector(X)).toVector();
    bool FlipOk = Flipped.size() == X.size();
    for (size_t I = 0; FlipOk && I < X.size(); ++I)
      FlipOk = Flipped[I] == (Sum > 0 ? -X[I] : X[I]) ||
               std::fabs(Sum) < 1e-3; // a sum near 0 may round either way
    expect(FlipOk, "flip_if_positive at " + std::to_string(N));
    aotex::print("flip_if_positive", flip_if_positive(llq::fromVector(X)));
  }
  for (auto [H, W] : aotex::ImageSizes) {
    std::vector<float> M = aotex::floats(H * W, 4);
    for (float &E : M)
      E += 2.0f; // positive rows, whose sums are not near zero
    std::vector<float> Norm = normalize_rows(llq::fromVector({H, W}, M)).toVector();
    bool NormOk = Norm.size() == M.size();
    for (int64_t I = 0; NormOk && I < H; ++I) {
      double S = 0;
      for (int64_t J = 0; J < W; ++J)
        S += M[size_t(I * W + J)];
      for (int64_t J = 0; NormOk && J < W; ++J)
        NormOk = std::fabs(Norm[size_t(I * W + J)] - M[size_t(I * W + J)] / S) <=
                 1e-5 * (1 + M[size_t(I * W + J)] / S);
    }
    expect(NormOk, "normalize_rows at " + std::to_string(H) + "x" + std::to_string(W));
    aotex::print("normalize_rows", normalize_rows(llq::fromVector({H, W}, M)));

    std::vector<float> Img = aotex::floats(H * W, 3);
    llq::Array<float> E = blur_sobel(llq::fromVector({H, W}, Img));
    std::vector<float> Got = E.toVector();
    auto At = [&](const std::vector<float> &A, int64_t I, int64_t J) {
      return A[size_t(std::clamp<int64_t>(I, 0, H - 1) * W +
                      std::clamp<int64_t>(J, 0, W - 1))];
    };
    std::vector<float> Blur(Img.size());
    for (int64_t I = 0; I < H; ++I)
      for (int64_t J = 0; J < W; ++J)
        Blur[size_t(I * W + J)] =
            (At(Img, I - 1, J - 1) + At(Img, I - 1, J) * 2 + At(Img, I - 1, J + 1) +
             At(Img, I, J - 1) * 2 + At(Img, I, J) * 4 + At(Img, I, J + 1) * 2 +
             At(Img, I + 1, J - 1) + At(Img, I + 1, J) * 2 + At(Img, I + 1, J + 1)) *
            0.0625f;
    bool Close = Got.size() == Img.size();
    for (int64_t I = 0; Close && I < H; ++I)
      for (int64_t J = 0; Close && J < W; ++J) {
        float Gx = At(Blur, I - 1, J + 1) - At(Blur, I - 1, J - 1) +
                   2 * (At(Blur, I, J + 1) - At(Blur, I, J - 1)) +
                   At(Blur, I + 1, J + 1) - At(Blur, I + 1, J - 1);
        float Gy = At(Blur, I + 1, J - 1) - At(Blur, I - 1, J - 1) +
                   2 * (At(Blur, I + 1, J) - At(Blur, I - 1, J)) +
                   At(Blur, I + 1, J + 1) - At(Blur, I - 1, J + 1);
        Close = std::fabs(Got[size_t(I * W + J)] - std::sqrt(Gx * Gx + Gy * Gy)) <= 1e-4f;
      }
    expect(Close, "blur_sobel at " + std::to_string(H) + "x" + std::to_string(W));
    aotex::print("blur_sobel", E);

    // With the output given: written into its storage, call after call.
    llq::Array<float> Out;
    blur_sobel(llq::fromVector({H, W}, Img), Out);
    const void *Storage = Out.raw().data(0);
    blur_sobel(llq::fromVector({H, W}, Img), Out);
    expect(Out.raw().data(0) == Storage && Out.toVector() == Got,
           "blur_sobel into its output at " + std::to_string(H) + "x" +
               std::to_string(W));
  }
  for (int64_t N : aotex::BodyCounts) {
    auto P = aotex::bodies(N);
    auto A = accelerations(P, aotex::masses(N));
    auto Got = A.toVector();
    auto Ps = P.toVector();
    auto M = aotex::masses(N).toVector();
    bool Close = Got.size() == size_t(N);
    for (int64_t I = 0; Close && I < N; ++I) {
      double Ax = 0, Ay = 0, Az = 0;
      auto [Xi, Yi, Zi] = Ps[size_t(I)];
      for (int64_t J = 0; J < N; ++J) {
        auto [Xj, Yj, Zj] = Ps[size_t(J)];
        double Dx = Xj - Xi, Dy = Yj - Yi, Dz = Zj - Zi;
        double Inv = 1 / std::sqrt(Dx * Dx + Dy * Dy + Dz * Dz + 0.01);
        double S = M[size_t(J)] * Inv * Inv * Inv;
        Ax += S * Dx, Ay += S * Dy, Az += S * Dz;
      }
      auto [Gx, Gy, Gz] = Got[size_t(I)];
      double Scale = 1 + std::fabs(Ax) + std::fabs(Ay) + std::fabs(Az);
      Close = std::fabs(Gx - Ax) + std::fabs(Gy - Ay) + std::fabs(Gz - Az) <=
              1e-3 * Scale;
    }
    expect(Close, "accelerations of " + std::to_string(N) + " bodies");
    aotex::print("accelerations", A);
  }
  // A mistake is an error, not a crash: arrays of the wrong rank.
  try {
    (void)dot(llq::fromVector({2, 2}, std::vector<float>(4)),
              llq::fromVector(std::vector<float>(4)));
    expect(false, "dot of a matrix was not refused");
  } catch (const llq::ArrayError &E) {
    expect(std::string(E.what()) ==
               "dot: input 0 ('x') holds f32 of shape [2, 2], expected f32 "
               "of rank 1",
           std::string("the message for a matrix: ") + E.what());
  }
  return Failures ? 1 : 0;
}
