//===- BlurSobel.cpp - The front of Canny: Gaussian blur, then Sobel -------===//
//
// Two stencils with clamped borders: a 3x3 Gaussian, then the Sobel
// gradient's magnitude of the blurred image. Each stencil's interior loop
// has no bounds checks and vectorizes.
//
//===----------------------------------------------------------------------===//
#include "Options.h"
#include "aot/Programs.h"
#include <cmath>

static int example(const Options &O) {
  int64_t W = O.get("width", O.get("n", 1024)), H = O.get("height", W);
  std::vector<float> Img(static_cast<size_t>(W * H));
  for (int64_t I = 0; I < H; ++I)
    for (int64_t J = 0; J < W; ++J)
      Img[size_t(I * W + J)] = float((I * 7 + J * 13) % 256) / 255.0f;
  llq::Runtime R = O.make();
  auto In = llq::fromVector({H, W}, Img);
  // The program, shared with the ahead-of-time example (aot/Programs.h).
  auto Edges = R.run<float>(aotex::blurSobel(In));
  std::vector<float> Got = Edges.toVector();
  auto At = [&](const std::vector<float> &V, int64_t I, int64_t J) {
    I = std::clamp<int64_t>(I, 0, H - 1);
    J = std::clamp<int64_t>(J, 0, W - 1);
    return V[size_t(I * W + J)];
  };
  std::vector<float> Blur(Img.size()), Want(Img.size());
  for (int64_t I = 0; I < H; ++I)
    for (int64_t J = 0; J < W; ++J) {
      float S = At(Img, I - 1, J - 1) + At(Img, I - 1, J) * 2.0f + At(Img, I - 1, J + 1) +
                At(Img, I, J - 1) * 2.0f + At(Img, I, J) * 4.0f + At(Img, I, J + 1) * 2.0f +
                At(Img, I + 1, J - 1) + At(Img, I + 1, J) * 2.0f + At(Img, I + 1, J + 1);
      Blur[size_t(I * W + J)] = S * 0.0625f;
    }
  for (int64_t I = 0; I < H; ++I)
    for (int64_t J = 0; J < W; ++J) {
      float A = At(Blur, I - 1, J - 1), B = At(Blur, I - 1, J), C = At(Blur, I - 1, J + 1);
      float D = At(Blur, I, J - 1), F = At(Blur, I, J + 1);
      float G = At(Blur, I + 1, J - 1), Hh = At(Blur, I + 1, J), K = At(Blur, I + 1, J + 1);
      float Gx = C - A + F * 2.0f - D * 2.0f + K - G;
      float Gy = G - A + Hh * 2.0f - B * 2.0f + K - C;
      Want[size_t(I * W + J)] = std::sqrt(Gx * Gx + Gy * Gy);
    }
  double MaxErr = 0;
  for (size_t I = 0; I < Want.size(); ++I)
    MaxErr = std::max(MaxErr, std::fabs(double(Got[I]) - Want[I]));
  bool Ok = MaxErr <= 1e-5;
  fmt::print("gaussian + sobel on {}x{}: max error {:.3g} {}\n", W, H, MaxErr,
             Ok ? "ok" : "MISMATCH");
  return Ok ? 0 : 1;
}

int main(int Argc, char **Argv) { return runExample(example, Argc, Argv); }
