//===- RayTracer.cpp - A ray tracer: one fused generate over the pixels ----===//
//
// As in the thesis's ray tracer, the whole image is one generate: each
// pixel's function casts a ray from the camera, finds the nearest of the
// spheres (an array of tuples the function reads, as a typed array
// parameter) and shades the hit with a directional light.
//
//===----------------------------------------------------------------------===//
#include "Options.h"
#include <cmath>

namespace {
const llq::Prelude &scene() {
  return LLQ_PRELUDE(R"(
  %Sphere = type { float, float, float, float, float } ; centre, radius, shade
)");
}
} // namespace

static int example(const Options &O) {
  int64_t W = O.get("width", O.get("n", 320)), H = O.get("height", W);
  // Spheres: centre, radius, shade.
  std::vector<float> CX, CY, CZ, Rad, Shade;
  for (int K = 0; K < 9; ++K) {
    CX.push_back(float(K % 3) - 1.0f);
    CY.push_back(float(K / 3) - 1.0f);
    CZ.push_back(4.0f + float(K % 2));
    Rad.push_back(0.375f + 0.0625f * float(K % 3));
    Shade.push_back(0.5f + 0.0625f * float(K));
  }
  auto Spheres = llq::fromVectors<float, float, float, float, float>(
      {int64_t(CX.size())}, CX, CY, CZ, Rad, Shade);
  auto Size = llq::fromVector(std::vector<int64_t>{H, W});
  llq::Runtime R = O.make();
  auto Pixel = LLQ_FN(scene(), "float (i64 %i, i64 %j, array<i64> %size, array<%Sphere> %spheres)", R"(
    %h = call i64 @size(i64 0)
    %w = call i64 @size(i64 1)
    %fi = sitofp i64 %i to float
    %fj = sitofp i64 %j to float
    %fh = sitofp i64 %h to float
    %fw = sitofp i64 %w to float
    %hh = fmul float %fh, 0.5
    %hw = fmul float %fw, 0.5
    %x0 = fsub float %fj, %hw
    %dx0 = fdiv float %x0, %fw
    %y0 = fsub float %fi, %hh
    %dy0 = fdiv float %y0, %fh
    %l2a = fmul float %dx0, %dx0
    %l2b = fmul float %dy0, %dy0
    %l2 = fadd float %l2a, %l2b
    %l2 = fadd float %l2, 1.0
    %len = call float @llvm.sqrt.f32(float %l2)
    %dx = fdiv float %dx0, %len
    %dy = fdiv float %dy0, %len
    %dz = fdiv float 1.0, %len
    %best = float 0x46293E5940000000
    %hit = i64 -1
    for i64 %k in 0 to %spheres.n0 {
      %s = call %Sphere @spheres(i64 %k)
      %c0 = extractvalue %Sphere %s, 0
      %c1 = extractvalue %Sphere %s, 1
      %c2 = extractvalue %Sphere %s, 2
      %r0 = extractvalue %Sphere %s, 3
      ; oc = origin - centre = -c; b = oc . d; q = oc . oc - r^2
      %ba = fmul float %c0, %dx
      %bb = fmul float %c1, %dy
      %bc = fmul float %c2, %dz
      %bs = fadd float %ba, %bb
      %bs = fadd float %bs, %bc
      %b = fneg float %bs
      %qa = fmul float %c0, %c0
      %qb = fmul float %c1, %c1
      %qc = fmul float %c2, %c2
      %q = fadd float %qa, %qb
      %q = fadd float %q, %qc
      %rr = fmul float %r0, %r0
      %q = fsub float %q, %rr
      %bb2 = fmul float %b, %b
      %disc = fsub float %bb2, %q
      %some = fcmp ogt float %disc, 0.0
      if %some {
        %sd = call float @llvm.sqrt.f32(float %disc)
        %nb = fneg float %b
        %t = fsub float %nb, %sd
        %front = fcmp ogt float %t, 0x3F50624DE0000000
        %nearer = fcmp olt float %t, %best
        %take = and i1 %front, %nearer
        if %take {
          %best = float %t
          %hit = i64 %k
        }
      }
    }
    %r = float 0.0
    %any = icmp sge i64 %hit, 0
    if %any {
      %sh = call %Sphere @spheres(i64 %hit)
      %hx = extractvalue %Sphere %sh, 0
      %hy = extractvalue %Sphere %sh, 1
      %hz = extractvalue %Sphere %sh, 2
      %hr = extractvalue %Sphere %sh, 3
      %hs = extractvalue %Sphere %sh, 4
      %px = fmul float %dx, %best
      %py = fmul float %dy, %best
      %pz = fmul float %dz, %best
      %nx0 = fsub float %px, %hx
      %nx = fdiv float %nx0, %hr
      %ny0 = fsub float %py, %hy
      %ny = fdiv float %ny0, %hr
      %nz0 = fsub float %pz, %hz
      %nz = fdiv float %nz0, %hr
      %la = fmul float %nx, 0x3FE279A6C0000000
      %lb = fmul float %ny, 0x3FE279A6C0000000
      %lc = fmul float %nz, 0xBFE279A6C0000000
      %dot = fadd float %la, %lb
      %dot = fadd float %dot, %lc
      %diff = call float @llvm.maxnum.f32(float %dot, float 0.0)
      %lit = fmul float %diff, 0x3FECCCCCC0000000
      %lit = fmul float %lit, %hs
      %r = fadd float %lit, 0x3FB99999A0000000
    })");
  auto Img = R.run<float>(llq::generate({H, W}, Pixel.with({Size, Spheres})));
  std::vector<float> Got = Img.toVector();
  // The reference: the same arithmetic in the same order.
  double MaxErr = 0;
  int64_t Lit = 0;
  for (int64_t I = 0; I < H; ++I)
    for (int64_t J = 0; J < W; ++J) {
      float Dx0 = (float(J) - float(W) * 0.5f) / float(W);
      float Dy0 = (float(I) - float(H) * 0.5f) / float(H);
      float Len = std::sqrt(Dx0 * Dx0 + Dy0 * Dy0 + 1.0f);
      float Dx = Dx0 / Len, Dy = Dy0 / Len, Dz = 1.0f / Len;
      float Best = 1e30f;
      int64_t Hit = -1;
      for (size_t K = 0; K < CX.size(); ++K) {
        float B = -(CX[K] * Dx + CY[K] * Dy + CZ[K] * Dz);
        float Q = CX[K] * CX[K] + CY[K] * CY[K] + CZ[K] * CZ[K] - Rad[K] * Rad[K];
        float Disc = B * B - Q;
        if (Disc > 0) {
          float T = -B - std::sqrt(Disc);
          if (T > 0.001f && T < Best)
            Best = T, Hit = int64_t(K);
        }
      }
      float V = 0;
      if (Hit >= 0) {
        size_t K = size_t(Hit);
        float Nx = (Dx * Best - CX[K]) / Rad[K], Ny = (Dy * Best - CY[K]) / Rad[K],
              Nz = (Dz * Best - CZ[K]) / Rad[K];
        float Dot = Nx * 0.57735f + Ny * 0.57735f + Nz * -0.57735f;
        V = std::fmax(Dot, 0.0f) * 0.9f * Shade[K] + 0.1f;
        ++Lit;
      }
      MaxErr = std::max(MaxErr, std::fabs(double(V) - Got[size_t(I * W + J)]));
    }
  bool Ok = MaxErr <= 1e-5;
  fmt::print("ray tracer {}x{}: {} pixels hit a sphere, max error {:.3g} {}\n", W,
             H, Lit, MaxErr, Ok ? "ok" : "MISMATCH");
  return Ok ? 0 : 1;
}

int main(int Argc, char **Argv) { return runExample(example, Argc, Argv); }
