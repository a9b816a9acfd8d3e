//===- MpiBench.cpp - Array programs over MPI ranks: steps and messages ----===//
//
// One measurement per call, run under mpirun by bench/mpi/run.sh, which
// interleaves the configurations it compares (2 ranks x 1 thread against
// 1 rank x 2 threads) and writes the table:
//   mpirun -np R llquote_bench_mpi --op OP --n N [--threads T] [--reps K]
// OP is nbody (one step of N bodies: accelerations from all positions,
// velocities, positions), jacobi (one step of a 4-neighbour stencil on an
// N x N grid), dot (sum of products of two vectors of N floats), or
// pingpong (N bytes from rank 0 to rank 1 and back) and allreduce (of one
// integer): the bandwidth and latencies of the communication model. Rank 0
// prints one CSV line per repetition:
//   op,n,ranks,threads,rep,seconds,bytes_sent,collectives,comm_seconds
// (per call, rank 0's: array bytes it sent, MPI collectives it called and
// the seconds it spent in them). The kernels are compiled by a first,
// untimed call.
//
//===----------------------------------------------------------------------===//
#include "aot/Programs.h"
#include "llquote/Distributed.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace llq;

namespace {


long long option(int Argc, char **Argv, const char *Name, long long Default) {
  for (int I = 1; I + 1 < Argc; ++I)
    if (std::strcmp(Argv[I], Name) == 0)
      return std::atoll(Argv[I + 1]);
  return Default;
}
std::string text(int Argc, char **Argv, const char *Name) {
  for (int I = 1; I + 1 < Argc; ++I)
    if (std::strcmp(Argv[I], Name) == 0)
      return Argv[I + 1];
  return "";
}

std::vector<float> wave(int64_t N, float A, float B) {
  std::vector<float> V(static_cast<size_t>(N));
  for (int64_t I = 0; I < N; ++I)
    V[size_t(I)] = std::sin(float(I) * A) * B;
  return V;
}

} // namespace

int main(int Argc, char **Argv) {
  MPI_Init(&Argc, &Argv);
  int Status = 0;
  {
    std::string Op = text(Argc, Argv, "--op");
    int64_t N = option(Argc, Argv, "--n", 1000);
    int Reps = int(option(Argc, Argv, "--reps", 5));
    RuntimeOptions O;
    O.Threads = unsigned(option(Argc, Argv, "--threads", 1));
    mpi::Runtime R(MPI_COMM_WORLD, O);
    std::function<void()> Call;

    // n-body: one step, as skeletons/examples/NBody.cpp.
    auto Advance = LLQ_FN(aotex::physics(), "%V3 (%V3 %x, %V3 %v, float %dt)",
                          "%r = call %V3 @axpy(float %dt, %V3 %v, %V3 %x)");
    auto Step = LLQ_FN("float (float %nw, float %n, float %ne, float %w, "
                       "float %c, float %e, float %sw, float %s, float %se)", R"(
      %ns = fadd float %n, %s
      %we = fadd float %w, %e
      %t = fadd float %ns, %we
      %r = fmul float %t, 0.25)");
    auto Mul = LLQ_FN("float (float %a, float %b)", "%r = fmul float %a, %b");

    Array<float> Mass = fromVector(std::vector<float>(size_t(N), 1.5f));
    mpi::DArray P, V, G, X, Y;
    std::vector<char> Buf;
    if (Op == "nbody") {
      P = R.distribute(fromVectors<float, float, float>(
          {N}, wave(N, 0.7f, 9), wave(N, 1.3f, 7), wave(N, 0.3f, 5)));
      V = R.distribute(fromVectors<float, float, float>(
          {N}, std::vector<float>(size_t(N)), std::vector<float>(size_t(N)),
          std::vector<float>(size_t(N))));
      Call = [&] {
        // The n-body examples' accelerations (skeletons/examples/aot/Programs.h).
        auto A = aotex::accelerations(P, Mass, 0.01f);
        V = R.run(zipWith(Advance.bind("dt", 0.01f), V, A));
        P = R.run(zipWith(Advance.bind("dt", 0.01f), P, V));
      };
    } else if (Op == "jacobi") {
      G = R.distribute(fromVector({N, N}, wave(N * N, 0.01f, 1)));
      Call = [&] {
        G = R.run(stencil(Step, Boundary::constant(1.0f), G));
      };
    } else if (Op == "dot") {
      X = R.distribute(fromVector(wave(N, 0.1f, 1)));
      Y = R.distribute(fromVector(wave(N, 0.2f, 1)));
      Call = [&] { (void)R.run(sum(zipWith(Mul, X, Y))); };
    } else if (Op == "pingpong") {
      Buf.resize(size_t(std::max<int64_t>(N, 1)));
      Call = [&] {
        if (R.size() < 2)
          return;
        if (R.rank() == 0) {
          MPI_Send(Buf.data(), int(N), MPI_BYTE, 1, 0, R.comm());
          MPI_Recv(Buf.data(), int(N), MPI_BYTE, 1, 0, R.comm(),
                   MPI_STATUS_IGNORE);
        } else if (R.rank() == 1) {
          MPI_Recv(Buf.data(), int(N), MPI_BYTE, 0, 0, R.comm(),
                   MPI_STATUS_IGNORE);
          MPI_Send(Buf.data(), int(N), MPI_BYTE, 0, 0, R.comm());
        }
      };
    } else if (Op == "allreduce") {
      Call = [&] {
        int In = 1, Out = 0;
        MPI_Allreduce(&In, &Out, 1, MPI_INT, MPI_MIN, R.comm());
      };
    } else {
      if (R.rank() == 0)
        std::fprintf(stderr, "llquote_bench_mpi: --op nbody|jacobi|dot|pingpong|allreduce\n");
      Status = 2;
    }
    if (Call) {
      try {
        Call(); // Compiles.
        int Inner = Op == "pingpong" || Op == "allreduce" ? 100 : 1;
        for (int K = 0; K < Reps; ++K) {
          auto Before = R.stats();
          MPI_Barrier(R.comm());
          double T0 = MPI_Wtime();
          for (int I = 0; I < Inner; ++I)
            Call();
          MPI_Barrier(R.comm());
          double T = (MPI_Wtime() - T0) / Inner;
          auto After = R.stats();
          if (R.rank() == 0)
            std::printf("%s,%lld,%d,%u,%d,%.9g,%llu,%llu,%.9g\n", Op.c_str(),
                        (long long)N, R.size(), O.Threads, K, T,
                        (unsigned long long)(After.BytesSent - Before.BytesSent),
                        (unsigned long long)(After.Collectives - Before.Collectives),
                        After.CommSeconds - Before.CommSeconds);
        }
      } catch (const ArrayError &E) {
        if (R.rank() == 0)
          std::fprintf(stderr, "%s\n", E.what());
        Status = 1;
      }
    }
  }
  MPI_Finalize();
  return Status;
}
