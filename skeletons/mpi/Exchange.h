//===- Exchange.h - Moving array data between MPI ranks ---------*- C++ -*-===//
//
// Internal to llq::mpi. Row helpers over rt::Array (views, copies and
// joins of rows of the outermost dimension) and Exchange, the collectives
// Distributed.cpp's evaluator uses. Every Exchange function is collective:
// each rank of the communicator calls it in the same order.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_MPI_EXCHANGE_H
#define LLQUOTE_MPI_EXCHANGE_H

#include "llquote/Distributed.h"
#include <tuple>

namespace llq::mpi {

/// Elements in one row of the outermost dimension of Sh.
int64_t rowElems(const Shape &Sh);
/// Sh with Rows rows.
Shape withRows(const Shape &Sh, int64_t Rows);
/// An array of T and shape Sh, elements uninitialised; ArrayError if the
/// memory cannot be had.
std::shared_ptr<rt::Array> newArray(const ElemType &T, const Shape &Sh);
/// Rows [First, First + Count) of A, in place: A's storage stays alive as
/// long as the view.
std::shared_ptr<rt::Array> viewRows(const std::shared_ptr<rt::Array> &A,
                                    int64_t First, int64_t Count);
/// The rows Want (ranges, in order) of A, copied one after another.
std::shared_ptr<rt::Array>
pickRows(const std::shared_ptr<rt::Array> &A,
         const std::vector<std::pair<int64_t, int64_t>> &Want);
/// Copies Count rows of From, from row FromRow, over rows ToRow... of To
/// (arrays of one type and row length).
void copyRows(rt::Array &To, int64_t ToRow, const rt::Array &From,
              int64_t FromRow, int64_t Count);
/// Rows [First, First + Count) of each (array, First, Count), one after
/// another, in a new array.
std::shared_ptr<rt::Array> joinRows(
    const std::vector<std::tuple<std::shared_ptr<rt::Array>, int64_t, int64_t>>
        &Pieces);

/// The collectives over one communicator; St counts them (calls, seconds,
/// bytes sent, exchanges).
class Exchange {
public:
  Exchange(MPI_Comm Comm, int Rank, int Size, Runtime::Stats &St)
      : Comm(Comm), Rank(Rank), Size(Size), St(St) {}

  /// Throws the same ArrayError on every rank when any rank's Failure is
  /// set: the lowest such rank's message, followed by "(on rank k)" when
  /// there are several ranks.
  void agree(const std::string *Failure);
  /// The rows Want (ranges of global rows, in order) of the array laid out
  /// as L, whose rows here are Mine, concatenated. A rank's own rows are
  /// copied, not sent.
  std::shared_ptr<rt::Array>
  fetchRows(const std::shared_ptr<rt::Array> &Mine, const Layout &L,
            const Shape &Global, const ElemType &T,
            const std::vector<std::pair<int64_t, int64_t>> &Want);
  /// The elements at the global linear positions Want of the array laid
  /// out as L (rows here: Mine), in the order of Want, as a vector: each
  /// request goes to the rank that holds it, and the answers come back.
  std::shared_ptr<rt::Array>
  fetchElements(const std::shared_ptr<rt::Array> &Mine, const Layout &L,
                const Shape &Global, const ElemType &T,
                const std::vector<int64_t> &Want);
  /// What each rank sends to each, exchanged: what this rank receives.
  std::vector<int> exchangeCounts(const std::vector<int> &Send);
  /// Sends Items (grouped by destination, Counts each) of ElemBytes bytes
  /// each; returns what arrives, grouped by source (RecvCounts each).
  std::vector<std::byte> alltoallv(const std::byte *Items, size_t ElemBytes,
                                   const std::vector<int> &Counts,
                                   const std::vector<int> &RecvCounts);
  /// Sends elements of Values (of type T) to the ranks, Counts to each in
  /// rank order: the elements at positions *Pick, in order, or with no
  /// Pick the first ones in order. Returns what arrives (RecvCounts from
  /// each) as a vector of T: element I is the (*Gather)[I]-th to arrive,
  /// or with no Gather all of them in their order of arrival.
  std::shared_ptr<rt::Array>
  sendElements(const ElemType &T, const rt::Array *Values,
               const std::vector<int64_t> *Pick,
               const std::vector<int> &Counts,
               const std::vector<int> &RecvCounts,
               const std::vector<size_t> *Gather = nullptr);
  /// The one-element arrays Mine of every rank (none where null), in rank
  /// order, as a vector of T; FromRank says which rank gave each.
  std::shared_ptr<rt::Array> gatherScalars(const ElemType &T,
                                           const std::shared_ptr<rt::Array> &Mine,
                                           std::vector<int> &FromRank);

  /// The rank whose rows under L hold global row Row.
  static int ownerOf(const Layout &L, int64_t Row);
  /// Exclusive prefix sums of Counts.
  static std::vector<int> displacements(const std::vector<int> &Counts);

private:
  MPI_Comm Comm;
  int Rank, Size;
  Runtime::Stats &St;
};

} // namespace llq::mpi

#endif // LLQUOTE_MPI_EXCHANGE_H
