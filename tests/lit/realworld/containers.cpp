// C++ with the standard library and exceptions: containers, strings,
// iostreams, virtual dispatch, templates, lambdas, smart pointers, try/catch.
// REQUIRES: clang
// RUN: %clangxx -std=c++17 -S -emit-llvm -O0 %s -o %t.O0.ll
// RUN: %roundtrip %t.O0.ll
// RUN: %clangxx -std=c++17 -S -emit-llvm -O2 %s -o %t.O2.ll
// RUN: %roundtrip %t.O2.ll
// RUN: %clangxx -std=c++17 -S -emit-llvm -O3 -march=native %s -o %t.O3.ll
// RUN: %roundtrip %t.O3.ll
// RUN: %clangxx -std=c++17 -S -emit-llvm -O0 -g %s -o %t.g.ll
// RUN: %roundtrip %t.g.ll
// RUN: %clangxx -std=c++17 -S -emit-llvm -O2 -g %s -o %t.O2g.ll
// RUN: %roundtrip %t.O2g.ll
#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace {
struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
  virtual std::string name() const = 0;
};
struct Rect : Shape {
  double W, H;
  Rect(double W, double H) : W(W), H(H) {
    if (W < 0 || H < 0) throw std::invalid_argument("negative side");
  }
  double area() const override { return W * H; }
  std::string name() const override { return "rect"; }
};
struct Circle : Shape {
  double R;
  explicit Circle(double R) : R(R) {}
  double area() const override { return 3.14159265358979 * R * R; }
  std::string name() const override { return "circle"; }
};

template <typename T, typename F> std::vector<T> mapped(const std::vector<T> &V, F Fn) {
  std::vector<T> Out;
  Out.reserve(V.size());
  std::transform(V.begin(), V.end(), std::back_inserter(Out), Fn);
  return Out;
}

std::map<std::string, int> wordCounts(const std::string &Text) {
  std::map<std::string, int> Counts;
  std::istringstream In(Text);
  for (std::string W; In >> W;)
    ++Counts[W];
  return Counts;
}

int parsePositive(const std::string &S) {
  int V = std::stoi(S);
  if (V <= 0)
    throw std::out_of_range("not positive: " + S);
  return V;
}
} // namespace

int main(int argc, char **argv) {
  std::vector<std::unique_ptr<Shape>> Shapes;
  Shapes.push_back(std::make_unique<Rect>(2, 3));
  Shapes.push_back(std::make_unique<Circle>(1));
  try {
    Shapes.push_back(std::make_unique<Rect>(-1, 2));
  } catch (const std::invalid_argument &E) {
    std::cerr << "skipped: " << E.what() << "\n";
  }
  double Total = 0;
  for (const auto &S : Shapes)
    Total += S->area();

  std::vector<int> V(20);
  std::iota(V.begin(), V.end(), 1);
  auto Sq = mapped(V, [](int X) { return X * X; });
  std::sort(Sq.begin(), Sq.end(), std::greater<int>());
  std::unordered_map<int, std::string> Names{{1, "one"}, {2, "two"}};
  std::function<int(int)> Fact = [&](int N) { return N <= 1 ? 1 : N * Fact(N - 1); };

  int Errors = 0;
  for (const char *Arg : {"12", "-3", "x"}) {
    try {
      Total += parsePositive(Arg);
    } catch (const std::out_of_range &E) {
      ++Errors;
    } catch (const std::exception &E) {
      Errors += 10;
    }
  }
  auto Counts = wordCounts("a b a c b a");
  std::shared_ptr<int> Shared = std::make_shared<int>(Fact(5));
  std::cout << Total << " " << Sq.front() << " " << Names[2] << " " << *Shared
            << " " << Counts["a"] << " " << Errors << " " << argc << "\n";
  return Errors == 11 ? 0 : 1;
}
