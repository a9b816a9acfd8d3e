//===- Exchange.cpp - Moving array data between MPI ranks -----------------===//
//
// The collectives of llq::mpi (Exchange.h): agreeing on a failure, moving
// rows of a row-split array to the ranks that want them, fetching single
// elements from their owners, and gathering one value per rank. Every
// function here is collective: each rank of the communicator calls it in
// the same order. Array bytes cross as MPI elements of one row or one
// element (MPI_Type_contiguous), so counts are rows or elements.
//
//===----------------------------------------------------------------------===//

#include "Exchange.h"
#include "llquote/skeletons/Node.h"
#include <algorithm>
#include <cstring>
#include <fmt/format.h>

using namespace llq;
using namespace llq::detail;

namespace llq::mpi {

/// Elements in one row of the outermost dimension of Sh.
int64_t rowElems(const Shape &Sh) {
  int64_t N = 1;
  for (unsigned D = 1; D < Sh.rank(); ++D)
    N *= Sh.extent(D);
  return N;
}

Shape withRows(const Shape &Sh, int64_t Rows) {
  std::vector<int64_t> E(Sh.extents(), Sh.extents() + Sh.rank());
  E[0] = Rows;
  return *Shape::make(E);
}

/// Copies Count rows of From, from row FromRow, over rows ToRow... of To
/// (arrays of one type and row length).
void copyRows(rt::Array &To, int64_t ToRow, const rt::Array &From,
              int64_t FromRow, int64_t Count) {
  int64_t Row = rowElems(From.shape());
  for (size_t F = 0; F < From.numFields(); ++F) {
    size_t RowBytes = size_t(Row) * rt::byteSize(From.type().field(F));
    if (Count > 0 && RowBytes > 0)
      std::memcpy(static_cast<std::byte *>(To.data(F)) + ToRow * RowBytes,
                  static_cast<const std::byte *>(From.data(F)) +
                      FromRow * RowBytes,
                  size_t(Count) * RowBytes);
  }
}

/// An array of T and shape Sh, elements uninitialised; ArrayError if the
/// memory cannot be had.
std::shared_ptr<rt::Array> newArray(const ElemType &T, const Shape &Sh) {
  auto A = rt::Array::create(T, Sh, rt::Array::Fill::Uninitialized);
  if (!A)
    throw ArrayError(A.message());
  return std::make_shared<rt::Array>(std::move(*A));
}

/// Rows [First, First + Count) of A, in place: A's storage stays alive as
/// long as the view.
std::shared_ptr<rt::Array> viewRows(const std::shared_ptr<rt::Array> &A,
                                    int64_t First, int64_t Count) {
  Shape Sh = withRows(A->shape(), Count);
  if (Sh.size() == 0)
    return newArray(A->type(), Sh);
  int64_t Row = rowElems(A->shape());
  std::vector<void *> Buffers;
  for (size_t F = 0; F < A->numFields(); ++F)
    Buffers.push_back(static_cast<std::byte *>(A->data(F)) +
                      First * Row * rt::byteSize(A->type().field(F)));
  auto V = rt::Array::wrap(A->type(), Sh, Buffers);
  if (!V)
    throw ArrayError(V.message());
  std::shared_ptr<rt::Array> Owner = A;
  return std::shared_ptr<rt::Array>(new rt::Array(std::move(*V)),
                                    [Owner](rt::Array *P) { delete P; });
}

std::shared_ptr<rt::Array>
pickRows(const std::shared_ptr<rt::Array> &A,
         const std::vector<std::pair<int64_t, int64_t>> &Want) {
  int64_t Rows = 0;
  for (auto [First, End] : Want)
    Rows += End - First;
  auto Out = newArray(A->type(), withRows(A->shape(), Rows));
  int64_t At = 0;
  for (auto [First, End] : Want) {
    copyRows(*Out, At, *A, First, End - First);
    At += End - First;
  }
  return Out;
}

/// Rows [First, First + Count) of each (array, First, Count), one after
/// another, in a new array.
std::shared_ptr<rt::Array> joinRows(
    const std::vector<std::tuple<std::shared_ptr<rt::Array>, int64_t, int64_t>>
        &Pieces) {
  const rt::Array &A0 = *std::get<0>(Pieces[0]);
  int64_t Rows = 0;
  for (const auto &P : Pieces)
    Rows += std::get<2>(P);
  auto Out = newArray(A0.type(), withRows(A0.shape(), Rows));
  int64_t At = 0;
  for (const auto &[A, First, Count] : Pieces) {
    copyRows(*Out, At, *A, First, Count);
    At += Count;
  }
  return Out;
}

/// Counts one MPI collective and the time it takes, in Runtime::Stats.
struct Collective {
  Runtime::Stats &St;
  double T0 = MPI_Wtime();
  explicit Collective(Runtime::Stats &St) : St(St) { ++St.Collectives; }
  ~Collective() { St.CommSeconds += MPI_Wtime() - T0; }
};

/// Collective: throws the same ArrayError on every rank when any rank's
/// Failure is set (the lowest such rank's message).
void Exchange::agree(const std::string *Failure) {
  int Mine = Failure ? Rank : Size, First = Size;
  {
    Collective C(St);
    MPI_Allreduce(&Mine, &First, 1, MPI_INT, MPI_MIN, Comm);
  }
  if (First == Size)
    return;
  std::string Msg = Failure ? *Failure : "";
  int Len = int(Msg.size());
  {
    Collective C(St);
    MPI_Bcast(&Len, 1, MPI_INT, First, Comm);
  }
  Msg.resize(size_t(Len));
  {
    Collective C(St);
    MPI_Bcast(Msg.data(), Len, MPI_CHAR, First, Comm);
  }
  if (Size > 1)
    Msg = fmt::format("{} (on rank {})", Msg, First);
  throw ArrayError(Msg);
}

//===-- Moving rows -----------------------------------------------------===//

/// Collective: the rows Want (ranges of global rows, in order) of the
/// array laid out as L, whose rows here are Mine, concatenated.
std::shared_ptr<rt::Array>
Exchange::fetchRows(const std::shared_ptr<rt::Array> &Mine, const Layout &L,
          const Shape &Global, const ElemType &T,
          const std::vector<std::pair<int64_t, int64_t>> &Want) {
  int N = Size;
  // Everyone's wants.
  int MyCount = int(Want.size()) * 2;
  std::vector<int> Counts(N), Displs(N);
  {
    Collective C(St);
    MPI_Allgather(&MyCount, 1, MPI_INT, Counts.data(), 1, MPI_INT, Comm);
  }
  int Total = 0;
  for (int I = 0; I < N; ++I) {
    Displs[I] = Total;
    Total += Counts[I];
  }
  std::vector<int64_t> Flat;
  for (auto [A, B] : Want) {
    Flat.push_back(A);
    Flat.push_back(B);
  }
  std::vector<int64_t> All(size_t(Total) + 1);
  {
    Collective C(St);
    MPI_Allgatherv(Flat.data(), MyCount, MPI_INT64_T, All.data(),
                   Counts.data(), Displs.data(), MPI_INT64_T, Comm);
  }
  auto Overlap = [](int64_t A, int64_t B, int64_t S, int64_t E) {
    return std::make_pair(std::max(A, S), std::min(B, E));
  };
  int64_t WantRows = 0;
  for (auto [A, B] : Want)
    WantRows += B - A;
  auto Out = newArray(T, withRows(Global, WantRows));
  int64_t Row = rowElems(Global);
  ++St.Exchanges;
  if (Row == 0 || Global.size() == 0)
    return Out;
  // What goes to each rank, and comes from each, in rows.
  // Counted in 64 bits, checked against MPI's int counts below.
  std::vector<int64_t> SendRows(N, 0), SendDispl(N, 0), RecvRows(N, 0),
      RecvDispl(N, 0);
  int64_t S = L.start(Rank), E = L.start(Rank + 1);
  // This rank's own rows are copied, not sent: SelfFrom[i] (a row of
  // Mine, a count) goes to SelfTo[i] (a row of Out).
  std::vector<std::pair<int64_t, int64_t>> SendPieces, SelfFrom, SelfTo;
  for (int D = 0; D < N; ++D) {
    SendDispl[D] = D ? SendDispl[D - 1] + SendRows[D - 1] : 0;
    for (int K = 0; K < Counts[D]; K += 2) {
      auto [A, B] = Overlap(All[Displs[D] + K], All[Displs[D] + K + 1], S, E);
      if (A >= B)
        continue;
      if (D == Rank) {
        SelfFrom.push_back({A - S, B - A});
        continue;
      }
      SendPieces.push_back({A - S, B - A});
      SendRows[D] += B - A;
    }
  }
  // Pieces arrive by source, each source's in the order of Want.
  struct Piece {
    int64_t Out, Rows;
  };
  std::vector<std::vector<Piece>> From(N);
  for (int Src = 0; Src < N; ++Src) {
    RecvDispl[Src] = Src ? RecvDispl[Src - 1] + RecvRows[Src - 1] : 0;
    int64_t At = 0;
    for (auto [WA, WB] : Want) {
      auto [A, B] = Overlap(WA, WB, L.start(Src), L.start(Src + 1));
      if (A < B) {
        if (Src == Rank) {
          SelfTo.push_back({At + (A - WA), B - A});
        } else {
          From[Src].push_back({At + (A - WA), B - A});
          RecvRows[Src] += B - A;
        }
      }
      At += WB - WA;
    }
  }
  int64_t SendTotal = 0, RecvTotal = 0;
  for (int I = 0; I < N; ++I) {
    SendTotal += SendRows[I];
    RecvTotal += RecvRows[I];
  }
  // MPI counts are ints: rows per message, and a row's bytes.
  std::string Limit;
  if (SendTotal > INT32_MAX || RecvTotal > INT32_MAX ||
      uint64_t(Row) * 8 > uint64_t(INT32_MAX))
    Limit = fmt::format("a rank's exchange of {} rows of {} elements is "
                        "past MPI's int counts (docs/Distributed.md, "
                        "Limits)",
                        std::max(SendTotal, RecvTotal), Row);
  agree(Limit.empty() ? nullptr : &Limit);
  auto Ints = [](const std::vector<int64_t> &V) {
    return std::vector<int>(V.begin(), V.end());
  };
  std::vector<int> SendN = Ints(SendRows), SendAt = Ints(SendDispl),
                   RecvN = Ints(RecvRows), RecvAt = Ints(RecvDispl);
  for (size_t F = 0; F < T.numFields(); ++F) {
    size_t RowBytes = size_t(Row) * rt::byteSize(T.field(F));
    MPI_Datatype RowType;
    MPI_Type_contiguous(int(RowBytes), MPI_BYTE, &RowType);
    MPI_Type_commit(&RowType);
    std::vector<std::byte> Send(size_t(SendTotal) * RowBytes + 1),
        Recv(size_t(RecvTotal) * RowBytes + 1);
    size_t At = 0;
    const std::byte *Src =
        Mine ? static_cast<const std::byte *>(Mine->data(F)) : nullptr;
    for (auto [First, Count] : SendPieces) {
      std::memcpy(Send.data() + At, Src + First * RowBytes,
                  size_t(Count) * RowBytes);
      At += size_t(Count) * RowBytes;
    }
    {
      Collective C(St);
      MPI_Alltoallv(Send.data(), SendN.data(), SendAt.data(), RowType,
                    Recv.data(), RecvN.data(), RecvAt.data(), RowType,
                    Comm);
    }
    MPI_Type_free(&RowType);
    std::byte *Dst = static_cast<std::byte *>(Out->data(F));
    for (size_t I = 0; I < SelfFrom.size(); ++I)
      std::memcpy(Dst + SelfTo[I].first * RowBytes,
                  Src + SelfFrom[I].first * RowBytes,
                  size_t(SelfFrom[I].second) * RowBytes);
    for (int I = 0; I < N; ++I) {
      if (I != Rank)
        St.BytesSent += uint64_t(SendRows[I]) * RowBytes;
      size_t From0 = size_t(RecvDispl[I]) * RowBytes;
      for (const Piece &P : From[I]) {
        std::memcpy(Dst + P.Out * RowBytes, Recv.data() + From0,
                    size_t(P.Rows) * RowBytes);
        From0 += size_t(P.Rows) * RowBytes;
      }
    }
  }
  return Out;
}

//===-- Moving elements -------------------------------------------------===//

/// The rank whose rows under L hold global row Row.
int Exchange::ownerOf(const Layout &L, int64_t Row) {
  auto It = std::upper_bound(L.Starts.begin(), L.Starts.end(), Row);
  return int(It - L.Starts.begin()) - 1;
}

/// Counts per rank, exchanged: what each rank sends to each.
std::vector<int> Exchange::exchangeCounts(const std::vector<int> &Send) {
  std::vector<int> Recv(static_cast<size_t>(Size));
  {
    Collective C(St);
    MPI_Alltoall(Send.data(), 1, MPI_INT, Recv.data(), 1, MPI_INT, Comm);
  }
  return Recv;
}
std::vector<int> Exchange::displacements(const std::vector<int> &Counts) {
  std::vector<int> D(Counts.size(), 0);
  for (size_t I = 1; I < Counts.size(); ++I)
    D[I] = D[I - 1] + Counts[I - 1];
  return D;
}

/// Sends Items (grouped by destination, Counts each) of ElemBytes bytes
/// each, as bytes; returns what arrives, grouped by source, and its
/// counts in RecvCounts.
std::vector<std::byte> Exchange::alltoallv(const std::byte *Items, size_t ElemBytes,
                                 const std::vector<int> &Counts,
                                 const std::vector<int> &RecvCounts) {
  MPI_Datatype T;
  MPI_Type_contiguous(int(ElemBytes), MPI_BYTE, &T);
  MPI_Type_commit(&T);
  std::vector<int> SD = displacements(Counts), RD = displacements(RecvCounts);
  size_t Total = 0;
  for (int C : RecvCounts)
    Total += size_t(C);
  std::vector<std::byte> Out(Total * ElemBytes + 1);
  std::byte Dummy{};
  {
    Collective C(St);
    MPI_Alltoallv(Items ? Items : &Dummy, Counts.data(), SD.data(), T,
                  Out.data(), RecvCounts.data(), RD.data(), T, Comm);
  }
  MPI_Type_free(&T);
  for (int I = 0; I < Size; ++I)
    if (I != Rank)
      St.BytesSent += uint64_t(Counts[size_t(I)]) * ElemBytes;
  return Out;
}

/// Collective: the elements at the global linear positions Want of the
/// array laid out as L (rows here: Mine), in the order of Want, as a
/// vector. Each request goes to the rank that holds it, and the answers
/// come back (MPI_Alltoallv both ways).
std::shared_ptr<rt::Array>
Exchange::fetchElements(const std::shared_ptr<rt::Array> &Mine, const Layout &L,
              const Shape &Global, const ElemType &T,
              const std::vector<int64_t> &Want) {
  int64_t Row = std::max<int64_t>(1, rowElems(Global));
  std::vector<int> Counts(static_cast<size_t>(Size), 0);
  std::vector<int> Owner(Want.size());
  for (size_t K = 0; K < Want.size(); ++K) {
    Owner[K] = ownerOf(L, Want[K] / Row);
    ++Counts[size_t(Owner[K])];
  }
  std::vector<int> At = displacements(Counts);
  std::vector<int64_t> Req(Want.size());
  std::vector<size_t> Slot(Want.size());
  for (size_t K = 0; K < Want.size(); ++K) {
    Slot[K] = size_t(At[size_t(Owner[K])]++);
    Req[Slot[K]] = Want[K];
  }
  std::vector<int> RecvCounts = exchangeCounts(Counts);
  std::vector<std::byte> Asked = alltoallv(
      reinterpret_cast<const std::byte *>(Req.data()), 8, Counts, RecvCounts);
  size_t NAsked = 0;
  for (int C : RecvCounts)
    NAsked += size_t(C);
  // The answers: the asked elements, by their place in this rank's rows.
  const int64_t *Idx = reinterpret_cast<const int64_t *>(Asked.data());
  int64_t Base = L.start(Rank) * Row;
  std::vector<int64_t> Here(NAsked);
  for (size_t K = 0; K < NAsked; ++K)
    Here[K] = Idx[K] - Base;
  auto Out = sendElements(T, Mine.get(), &Here, RecvCounts, Counts, &Slot);
  ++St.Exchanges;
  return Out;
}

std::shared_ptr<rt::Array>
Exchange::sendElements(const ElemType &T, const rt::Array *Values,
                       const std::vector<int64_t> *Pick,
                       const std::vector<int> &Counts,
                       const std::vector<int> &RecvCounts,
                       const std::vector<size_t> *Gather) {
  size_t Sent = 0, Got = 0;
  for (int C : Counts)
    Sent += size_t(C);
  for (int C : RecvCounts)
    Got += size_t(C);
  size_t NOut = Gather ? Gather->size() : Got;
  auto Out = newArray(T, *Shape::make({int64_t(NOut)}));
  for (size_t F = 0; F < T.numFields(); ++F) {
    size_t B = rt::byteSize(T.field(F));
    const std::byte *Src =
        Values ? static_cast<const std::byte *>(Values->data(F)) : nullptr;
    std::vector<std::byte> Picked;
    if (Pick) {
      Picked.resize(Sent * B + 1);
      for (size_t K = 0; K < Sent; ++K)
        std::memcpy(Picked.data() + K * B, Src + size_t((*Pick)[K]) * B, B);
      Src = Picked.data();
    }
    std::vector<std::byte> Arrived = alltoallv(Src, B, Counts, RecvCounts);
    std::byte *Dst = static_cast<std::byte *>(Out->data(F));
    if (!Gather) {
      std::memcpy(Dst, Arrived.data(), Got * B);
      continue;
    }
    for (size_t K = 0; K < NOut; ++K)
      std::memcpy(Dst + K * B, Arrived.data() + (*Gather)[K] * B, B);
  }
  return Out;
}

/// Elements of T from a packed record per rank (a flag byte, then the
/// fields), those flagged, in rank order.
std::shared_ptr<rt::Array> Exchange::gatherScalars(const ElemType &T,
                                         const std::shared_ptr<rt::Array> &Mine,
                                         std::vector<int> &FromRank) {
  size_t Bytes = 1;
  for (ScalarKind K : T.fields())
    Bytes += rt::byteSize(K);
  std::vector<std::byte> Rec(Bytes), All(Bytes * size_t(Size));
  Rec[0] = std::byte(Mine ? 1 : 0);
  size_t At = 1;
  for (size_t F = 0; F < T.numFields(); ++F) {
    size_t B = rt::byteSize(T.field(F));
    if (Mine)
      std::memcpy(Rec.data() + At, Mine->data(F), B);
    At += B;
  }
  {
    Collective C(St);
    MPI_Allgather(Rec.data(), int(Bytes), MPI_BYTE, All.data(), int(Bytes),
                  MPI_BYTE, Comm);
  }
  ++St.Exchanges;
  FromRank.clear();
  for (int I = 0; I < Size; ++I)
    if (All[size_t(I) * Bytes] != std::byte(0))
      FromRank.push_back(I);
  auto Out = newArray(T, *Shape::make({int64_t(FromRank.size())}));
  for (size_t K = 0; K < FromRank.size(); ++K) {
    size_t At = size_t(FromRank[K]) * Bytes + 1;
    for (size_t F = 0; F < T.numFields(); ++F) {
      size_t B = rt::byteSize(T.field(F));
      std::memcpy(static_cast<std::byte *>(Out->data(F)) + K * B,
                  All.data() + At, B);
      At += B;
    }
  }
  return Out;
}

} // namespace llq::mpi
