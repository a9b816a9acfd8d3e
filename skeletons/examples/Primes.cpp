//===- Primes.cpp - The primes below n, by filter ---------------------------===//
//
// Two runs of filter. The first keeps the primes up to sqrt(n) by trial
// division; the second keeps the numbers below n that none of those primes
// divides, reading the first run's array through Fn::with. Neither result's
// length is known before its run: filter counts, then writes. Checked
// against the sieve of Eratosthenes in plain C++.
//
//===----------------------------------------------------------------------===//
#include "Options.h"
#include <cmath>

static int example(const Options &O) {
  int64_t N = O.get("n", 1000000);
  llq::Runtime R = O.make();
  // Whether x has no divisor d with 1 < d and d * d <= x.
  auto ByTrial = LLQ_FN("i1 (i64 %x)", R"(
    %r = i1 true
    %d = i64 2
    %sq = i64 4
    %more = icmp sle i64 %sq, %x
    while %more {
      %m = srem i64 %x, %d
      %divides = icmp eq i64 %m, 0
      if %divides {
        %r = i1 false
        break
      }
      %d = add i64 %d, 1
      %sq = mul i64 %d, %d
      %more = icmp sle i64 %sq, %x
    })");
  // Whether no prime of the array %ps (of %np) up to sqrt(x) divides x.
  auto BySmallPrimes = LLQ_FN("i1 (i64 %x, ptr %ps, i64 %np)", R"(
    %r = i1 true
    for i64 %k in 0 to %np {
      %pp = getelementptr i64, ptr %ps, i64 %k
      %p = load i64, ptr %pp
      %sq = mul i64 %p, %p
      %past = icmp sgt i64 %sq, %x
      if %past {
        break
      }
      %m = srem i64 %x, %p
      %divides = icmp eq i64 %m, 0
      if %divides {
        %r = i1 false
        break
      }
    })");
  int64_t Root = int64_t(std::sqrt(double(N)));
  while (Root * Root > N)
    --Root;
  while ((Root + 1) * (Root + 1) <= N)
    ++Root;
  // 2, 3, ..., Root and 2, 3, ..., N - 1.
  llq::Array<> Small =
      R.run(llq::filter(ByTrial, llq::enumFromN({std::max<int64_t>(Root - 1, 0)}, int64_t(2))));
  std::vector<int64_t> Got =
      R.run<int64_t>(llq::filter(BySmallPrimes.with({Small}),
                                 llq::enumFromN({std::max<int64_t>(N - 2, 0)}, int64_t(2))))
          .toVector();

  std::vector<bool> Composite(size_t(std::max<int64_t>(N, 2)), false);
  std::vector<int64_t> Want;
  for (int64_t I = 2; I < N; ++I) {
    if (Composite[size_t(I)])
      continue;
    Want.push_back(I);
    for (int64_t J = I * I; J < N; J += I)
      Composite[size_t(J)] = true;
  }
  bool Ok = Got == Want;
  fmt::print("primes below {}: {} of them, the last {}, from {} primes up to {}: {}\n", N,
             Got.size(), Got.empty() ? 0 : Got.back(), Small.size(), Root,
             Ok ? "ok" : "MISMATCH");
  return Ok ? 0 : 1;
}

int main(int Argc, char **Argv) { return runExample(example, Argc, Argv); }
