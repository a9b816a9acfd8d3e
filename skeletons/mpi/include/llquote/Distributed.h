//===- Distributed.h - Array programs over MPI ranks ------------*- C++ -*-===//
//
// The same array program on every rank of an MPI job (SPMD). Every rank
// builds the same expression over distributed arrays (DArray) and runs it
// with an llq::mpi::Runtime; each rank computes its own rows, and the
// communication an operation needs goes through MPI collectives.
//
// Layout: an array of rank 1 or more is split by its outermost dimension
// into contiguous blocks of rows, rank r holding rows [start(r), start(r+1))
// (Layout). scatter() and generate() split rows evenly, the first ranks
// taking one row more; a rank may hold none. An array of rank 0 (a
// reduction's result) is held whole by every rank. An llq::Array used in
// an expression (not a DArray) is taken to be the whole array on every
// rank, the same everywhere.
//
// Errors: a mistake in the expression is found on every rank alike before
// any communication; a failure on one rank during a run (segments that do
// not add up, a division fault) is sent to every rank, which all throw the
// same ArrayError, so that no rank waits for another. docs/Distributed.md
// says which operations communicate and how.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_DISTRIBUTED_H
#define LLQUOTE_DISTRIBUTED_H

#include "llquote/Skeletons.h"
#include <mpi.h>

namespace llq::mpi {

/// Which rows of the outermost dimension each rank holds: rank r holds
/// [Starts[r], Starts[r + 1]).
struct Layout {
  std::vector<int64_t> Starts;

  /// Rows split evenly over Ranks: the first Rows % Ranks ranks one more.
  static Layout even(int64_t Rows, int Ranks);
  /// All Rows on rank Root, none elsewhere.
  static Layout onRank(int64_t Rows, int Root, int Ranks);
  int ranks() const { return int(Starts.size()) - 1; }
  int64_t rows() const { return Starts.back(); }
  int64_t start(int Rank) const { return Starts[Rank]; }
  int64_t rowsOf(int Rank) const { return Starts[Rank + 1] - Starts[Rank]; }
  friend bool operator==(const Layout &A, const Layout &B) {
    return A.Starts == B.Starts;
  }
};

class Runtime;

/// A distributed array: its global shape and element type, the layout of
/// its rows, and this rank's block. Use it in expressions as an Acc.
class DArray {
public:
  DArray() = default;
  const Shape &shape() const { return Global; }
  const ElemType &type() const { return Block.type(); }
  const Layout &layout() const { return L; }
  /// Whether every rank holds the whole array (rank 0 arrays).
  bool whole() const { return Whole; }
  /// The first row this rank holds.
  int64_t firstRow() const { return Whole ? 0 : L.start(Rank); }
  /// This rank's block: its rows, in place (no copy), of shape
  /// [rows here, inner extents...]; the whole array when whole().
  const Array<> &local() const { return Block; }
  /// The array in an expression.
  operator Acc() const { return Use; }
  Acc acc() const { return Use; }

private:
  friend class Runtime;
  Shape Global;
  Layout L;
  bool Whole = false;
  int Rank = 0;
  Array<> Block;
  Acc Use;
};

/// Runs array programs over the ranks of a communicator. Every rank of it
/// makes one, and calls its methods in the same order with the same
/// expressions (they are collective, as MPI's are). The local work runs
/// on an llq::Runtime made with Options (its threads, backend, caches).
class Runtime {
public:
  explicit Runtime(MPI_Comm Comm, const RuntimeOptions &Options = {});
  ~Runtime();
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

  int rank() const { return Rank; }
  int size() const { return Size; }
  MPI_Comm comm() const { return Comm; }
  /// The Runtime that runs each rank's part.
  llq::Runtime &local() { return *Local; }

  /// The array Whole, given on rank Root (other ranks pass any array, an
  /// empty Array<>() included), split evenly over the ranks.
  DArray scatter(const detail::ArrayHandle &Whole, int Root = 0);
  /// Each rank's own Block (its rows; the inner extents and the element
  /// type the same on every rank), with no copy: the layout is the ranks'
  /// row counts in rank order.
  DArray fromBlocks(const detail::ArrayHandle &Block);
  /// Every rank holds the same array Whole and keeps its even share of it,
  /// with no communication.
  DArray distribute(const detail::ArrayHandle &Whole);
  /// The whole array on rank Root; an empty Array<>() elsewhere.
  Array<> gather(const DArray &A, int Root = 0);
  /// The whole array on every rank.
  Array<> allgather(const DArray &A);

  /// Computes E over the ranks. A result of rank 0 is held by every rank;
  /// another is split by rows (evenly, or as the operation leaves it: a
  /// scan's extra element is on the first or the last rank). Throws
  /// ArrayError, on every rank alike, on a mistake or a failure.
  DArray run(const Acc &E);

  /// Counts since the Runtime was made, this rank's.
  struct Stats {
    uint64_t LocalRuns = 0;   ///< Runs of the local Runtime.
    uint64_t Exchanges = 0;   ///< Collective exchanges of array data.
    uint64_t BytesSent = 0;   ///< Array bytes this rank sent to others.
    uint64_t Replicated = 0;  ///< Operations computed whole on every rank.
    /// MPI collective calls, and the seconds spent in them (waiting for
    /// other ranks included).
    uint64_t Collectives = 0;
    double CommSeconds = 0;
  };
  Stats stats() const { return St; }

private:
  friend struct Evaluator;
  DArray make(Array<> Block, const Shape &Global, Layout L, bool Whole);
  MPI_Comm Comm;
  int Rank = 0, Size = 1;
  std::unique_ptr<llq::Runtime> Local;
  Stats St;
};

} // namespace llq::mpi

#endif // LLQUOTE_DISTRIBUTED_H
