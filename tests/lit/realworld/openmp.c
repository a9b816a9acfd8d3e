// OpenMP: parallel loops with reductions, tasks, critical sections, atomics.
// REQUIRES: clang, openmp
// RUN: %clang -fopenmp -S -emit-llvm -O0 %s -o %t.O0.ll
// RUN: %roundtrip %t.O0.ll
// RUN: %clang -fopenmp -S -emit-llvm -O2 %s -o %t.O2.ll
// RUN: %roundtrip %t.O2.ll
// RUN: %clang -fopenmp -S -emit-llvm -O3 -march=native %s -o %t.O3.ll
// RUN: %roundtrip %t.O3.ll
// RUN: %clang -fopenmp -S -emit-llvm -O2 -g %s -o %t.g.ll
// RUN: %roundtrip %t.g.ll
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static long fib_task(int n) {
  if (n < 2) return n;
  long a, b;
#pragma omp task shared(a)
  a = fib_task(n - 1);
#pragma omp task shared(b)
  b = fib_task(n - 2);
#pragma omp taskwait
  return a + b;
}

int main(void) {
  enum { N = 1 << 16 };
  double *x = malloc(N * sizeof *x), sum = 0, maxv = -1;
  long hist[8] = {0};
  int hits = 0;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < N; ++i) x[i] = (i % 97) * 0.5;
#pragma omp parallel for reduction(+ : sum) reduction(max : maxv)
  for (int i = 0; i < N; ++i) {
    sum += x[i];
    if (x[i] > maxv) maxv = x[i];
  }
#pragma omp parallel for
  for (int i = 0; i < N; ++i) {
#pragma omp atomic
    hist[i & 7]++;
    if (x[i] == 0) {
#pragma omp critical
      hits++;
    }
  }
  long f = 0;
#pragma omp parallel
#pragma omp single
  f = fib_task(20);
  printf("%.1f %.1f %ld %d %ld %d\n", sum, maxv, hist[3], hits, f, omp_get_max_threads());
  free(x);
  return f == 6765 ? 0 : 1;
}
