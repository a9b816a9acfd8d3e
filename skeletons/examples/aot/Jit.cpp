//===- Jit.cpp - The example's programs run by the JIT, for comparison ----===//
//
// Runs the programs of Programs.h on the arrays App.cpp gives their
// compiled forms, with a Runtime, and prints the same hashes: CTest checks
// that the two print the same (skeletons.aot.same_as_jit).
//
//===----------------------------------------------------------------------===//

#include "Inputs.h"
#include "Programs.h"

int main() {
  llq::Runtime R;
  for (int64_t N : aotex::Sizes) {
    aotex::print("dot", R.run(aotex::dot(llq::fromVector(aotex::floats(N, 1)),
                                         llq::fromVector(aotex::floats(N, 2)))));
    aotex::print("prefix_sum",
                 R.run(aotex::prefixSum(llq::fromVector(aotex::integers(N)))));
    aotex::print("segment_sums",
                 R.run(aotex::segmentSums(llq::fromVector(aotex::floats(N, 1)),
                                          llq::fromVector(aotex::segments(N)))));
    aotex::print("positives",
                 R.run(aotex::positives(llq::fromVector(aotex::floats(N, 1)))));
    aotex::print("halve_until_small",
                 R.run(aotex::halveUntilSmall(llq::fromVector(aotex::floats(N, 1)))));
    aotex::print("flip_if_positive",
                 R.run(aotex::flipIfPositive(llq::fromVector(aotex::floats(N, 1)))));
  }
  for (auto [H, W] : aotex::ImageSizes) {
    std::vector<float> M = aotex::floats(H * W, 4);
    for (float &E : M)
      E += 2.0f;
    aotex::print("normalize_rows",
                 R.run(aotex::normalizeRows(llq::fromVector({H, W}, M))));
    aotex::print("blur_sobel",
                 R.run(aotex::blurSobel(
                     llq::fromVector({H, W}, aotex::floats(H * W, 3)))));
  }
  for (int64_t N : aotex::BodyCounts)
    aotex::print("accelerations",
                 R.run(aotex::accelerations(aotex::bodies(N), aotex::masses(N))));
  return 0;
}
