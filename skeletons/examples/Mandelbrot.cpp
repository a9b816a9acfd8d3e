//===- Mandelbrot.cpp - The Mandelbrot set: generate with a while loop -----===//
#include "Options.h"

static int32_t escape(float Cx, float Cy, int32_t Limit) {
  float X = 0, Y = 0;
  int32_t K = 0;
  while (K < Limit) {
    float X2 = X * X, Y2 = Y * Y;
    if (X2 + Y2 > 4.0f)
      break;
    float XY = X * Y;
    Y = XY + XY + Cy;
    X = X2 - Y2 + Cx;
    ++K;
  }
  return K;
}

static int example(const Options &O) {
  int64_t W = O.get("width", O.get("n", 512)), H = O.get("height", W);
  llq::Runtime R = O.make();
  // Pixel (i, j) of an H x W image of [-2, 1] x [-1.5, 1.5].
  auto Pixel = LLQ_FN("i32 (i64 %i, i64 %j, ptr %size, i64 %two)", R"(
    %hp = getelementptr i64, ptr %size, i64 0
    %h = load i64, ptr %hp
    %wp = getelementptr i64, ptr %size, i64 1
    %w = load i64, ptr %wp
    %fi = sitofp i64 %i to float
    %fj = sitofp i64 %j to float
    %fh = sitofp i64 %h to float
    %fw = sitofp i64 %w to float
    %sx = fdiv float 3.0, %fw
    %sy = fdiv float 3.0, %fh
    %cx0 = fmul float %fj, %sx
    %cx = fadd float %cx0, -2.0
    %cy0 = fmul float %fi, %sy
    %cy = fadd float %cy0, -1.5
    %x = float 0.0
    %y = float 0.0
    %r = i32 0
    %go = i1 true
    while %go {
      %x2 = fmul float %x, %x
      %y2 = fmul float %y, %y
      %m = fadd float %x2, %y2
      %out = fcmp ogt float %m, 4.0
      %more = icmp slt i32 %r, 255
      %in = xor i1 %out, true
      %go = and i1 %more, %in
      if %go {
        %xy = fmul float %x, %y
        %y0 = fadd float %xy, %xy
        %y = fadd float %y0, %cy
        %d = fsub float %x2, %y2
        %x = fadd float %d, %cx
        %r = add i32 %r, 1
      }
    })");
  // The image's size reaches the function in a small array it reads, as
  // Accelerate's `use`: one kernel serves every size.
  auto Size = llq::fromVector(std::vector<int64_t>{H, W});
  auto Img = R.run<int32_t>(llq::generate({H, W}, Pixel.with({Size})));
  std::vector<int32_t> Got = Img.toVector();
  int64_t Bad = 0;
  for (int64_t I = 0; I < H; ++I)
    for (int64_t J = 0; J < W; ++J) {
      float Cx = float(J) * (3.0f / float(W)) + -2.0f;
      float Cy = float(I) * (3.0f / float(H)) + -1.5f;
      Bad += Got[size_t(I * W + J)] != escape(Cx, Cy, 255);
    }
  fmt::print("mandelbrot {}x{}: {} pixels differ {}\n", W, H, Bad,
             Bad ? "MISMATCH" : "ok");
  return Bad ? 1 : 0;
}

int main(int Argc, char **Argv) { return runExample(example, Argc, Argv); }
