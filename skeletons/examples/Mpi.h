//===- Mpi.h - The examples' --mpi switch -----------------------*- C++ -*-===//
//
// An example that can run over MPI ranks writes its computation once, as a
// template over the runtime (llq::Runtime, or llq::mpi::Runtime, whose run()
// gives a distributed array instead of an Array), and calls runOnRanks()
// when --mpi is given: MPI is started, the computation runs on every rank,
// and the result, gathered on rank 0, is checked there. The exit status is
// rank 0's, on every rank. Without MPI in the build, --mpi is an error.
//
//===----------------------------------------------------------------------===//
#ifndef LLQUOTE_EXAMPLES_MPI_H
#define LLQUOTE_EXAMPLES_MPI_H

#include "Options.h"
#ifdef LLQ_EXAMPLE_MPI
#include "llquote/Distributed.h"
#endif

/// Whole: the computed array on rank 0 (an empty Array<> elsewhere).
/// Compute(R) runs the computation on R and gives its result; Check(Whole)
/// compares it with the reference and gives the exit status.
template <typename ComputeFn, typename CheckFn>
int runOnRanks(const Options &O, ComputeFn Compute, CheckFn Check) {
#ifdef LLQ_EXAMPLE_MPI
  int Argc = 0;
  char **Argv = nullptr;
  MPI_Init(&Argc, &Argv);
  int Status = 0;
  {
    llq::RuntimeOptions RO;
    RO.Threads = unsigned(O.get("threads", 0));
    llq::mpi::Runtime R(MPI_COMM_WORLD, RO);
    try {
      llq::mpi::DArray Out = Compute(R);
      llq::Array<> Whole = R.gather(Out, 0);
      if (R.rank() == 0) {
        std::printf("on %d MPI ranks: ", R.size());
        Status = Check(Whole);
      }
    } catch (const llq::ArrayError &E) {
      // Every rank throws the same error: rank 0 says it.
      if (R.rank() == 0)
        std::fprintf(stderr, "%s\n", E.what());
      Status = 1;
    }
    MPI_Bcast(&Status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return Status;
#else
  (void)O, (void)Compute, (void)Check;
  std::fprintf(stderr, "--mpi: this build has no MPI (llquote::mpi)\n");
  return 2;
#endif
}

#endif
