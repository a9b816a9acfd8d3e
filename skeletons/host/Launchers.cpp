//===- Launchers.cpp - The host halves of the library's skeletons ---------===//
//
// What runs each skeleton's kernel: its outputs, what the host decides
// (chunks, tile sides, segment offsets, private copies) and the order of
// its phases. Plain C++ over the launch protocol (Launch.h), in
// llquote_host: the JIT's skeletons (skeletons/lib) and programs that run
// kernels compiled ahead of time share them.
//
//===----------------------------------------------------------------------===//

#include "Launchers.h"
#include <cstring>
#include <fmt/format.h>

using namespace llq;
using namespace llq::detail;
using namespace llq::detail::permute;

int64_t llq::detail::tileFor(const Node &P) {
  return holdsAtLeast(P, LargeTileBytes) ? LargeTile : Tile;
}

bool llq::detail::transposes(const Node &N) {
  if (N.K == Op::Transpose)
    return true;
  if (!N.isProducer() || N.K == Op::Use)
    return false;
  for (unsigned K = 0; K < N.NumInputs; ++K)
    if (transposes(*N.Kids[K]))
      return true;
  return false;
}

bool llq::detail::tiled(const Node &P, const Executor &B) {
  return B.tiledWalks() && P.Sh.rank() == 2 && transposes(P);
}

namespace {

/// The shapes of a scan (scanl, scanl1, scanl' and their right and row
/// forms) of N.Kids[0]: Code[0] is 0 for a scan with a seed, one longer
/// than its input, 1 without, 2 for scanl', whose second output is the
/// totals of its rows.
rt::Status reshapeScan(Node &N) {
  const Shape &A = N.Kids[0]->Sh;
  if (A.rank() == 0)
    return failed(fmt::format("{}: needs an array of rank 1 or more, not a "
                              "scalar",
                              N.Name));
  std::vector<int64_t> Outer = outerExtents(A);
  int64_t Len = A.extent(A.rank() - 1);
  std::vector<int64_t> E = Outer;
  E.push_back(N.Code[0] == 0 ? Len + 1 : Len);
  if (rt::Status St = setShape(N, E); !St.ok())
    return St;
  N.OutShapes = {N.Sh};
  if (N.Code[0] == 2)
    N.OutShapes.push_back(*Shape::make(Outer));
  // The shapes stand; only the elements are missing.
  if (N.Consts.empty() && Len == 0 && Shape::make(Outer)->size() > 0)
    return failed(A.rank() == 1
                      ? fmt::format("{} of an empty vector", N.Name)
                      : fmt::format("{}: the innermost dimension of {} is "
                                    "empty, and {} has no seed",
                                    N.Name, A.str(), N.Name));
  return rt::Status();
}

class MaterializeLauncher final : public Launcher {
public:
  const char *name() const override { return "map"; }
  bool repeatable() const override { return true; }
  /// 1: the output is written with non-temporal stores (an output of
  /// NonTemporalMapBytes or more, not walked in tiles, where B's stores
  /// pay).
  int64_t variant(const Node &N, const Executor &B) const override {
    const Node &P = *N.Kids[0];
    return B.nonTemporalStores() && !tiled(P, B) &&
           holdsAtLeast(P, NonTemporalMapBytes);
  }

  rt::Status reshape(Node &N) const override {
    N.Sh = N.Kids[0]->Sh;
    return rt::Status();
  }

  rt::Status launch(Launch &L) const override {
    const Node &P = *L.root().Kids[0];
    if (rt::Status E = L.output(P.Type, P.Sh); !E.ok())
      return E;
    if (tiled(P, L.backend())) {
      int64_t Side = tileFor(P);
      // Large tiles are walked down the columns of tiles (Map.cpp).
      L.Host = {uint64_t(Side), uint64_t(Side == LargeTile)};
      int64_t Tiles = ((P.Sh.extent(0) + Side - 1) / Side) *
                      ((P.Sh.extent(1) + Side - 1) / Side);
      return L.run(0, 0, Tiles, L.backend().grain(4));
    }
    return L.run(0, 0, P.Sh.size(), L.grain(4096));
  }
};

class FoldLauncher final : public Launcher {
public:
  const char *name() const override { return "fold"; }
  bool repeatable() const override { return true; }

  rt::Status reshape(Node &N) const override {
    const Shape &A = N.Kids[0]->Sh;
    if (A.rank() == 0)
      return failed(fmt::format("{}: needs an array of rank 1 or more",
                                N.Name));
    N.Sh = *Shape::make(outerExtents(A));
    N.OutShapes = {N.Sh};
    // The shape stands; only the elements are missing.
    if (N.Consts.empty() && A.extent(A.rank() - 1) == 0 && N.Sh.size() > 0)
      return failed(fmt::format("{}: the innermost dimension of {} is "
                                "empty, and {} has no seed",
                                N.Name, A.str(), N.Name));
    return rt::Status();
  }

  rt::Status launch(Launch &L) const override {
    const Node &N = L.root(), &A = *N.Kids[0];
    int64_t N1 = A.Sh.extent(A.Sh.rank() - 1);
    int64_t Rows = N.Sh.size();
    if (rt::Status E = L.output(N.Type, N.Sh); !E.ok())
      return E;
    unsigned T = L.backend().parallelism();
    int64_t Chunks;
    if (N1 == 0 || Rows == 0)
      Chunks = 0;
    else if (T == 1 || Rows >= 2 * int64_t(T))
      Chunks = 1;
    else
      Chunks = chunksFor(N1, std::max<unsigned>(1, unsigned(2 * T / Rows)),
                         1 << 14);
    int64_t Chunk = Chunks ? (N1 + Chunks - 1) / Chunks : 0;
    if (Chunks)
      Chunks = (N1 + Chunk - 1) / Chunk; // every chunk non-empty
    // Phase 0 writes every partial result that phase 1 reads.
    void *Part = L.scratch(size_t(std::max<int64_t>(Rows * Chunks, 1)) *
                               N.Type.numFields() * 8,
                           /*Zero=*/false);
    L.Host = {uint64_t(N1), uint64_t(Chunks), uint64_t(Chunk),
              reinterpret_cast<uintptr_t>(Part)};
    if (rt::Status E = L.run(0, 0, Rows * Chunks, 1); !E.ok())
      return E;
    return L.run(1, 0, Rows, 64);
  }
};

/// The segments a piece of a segmented operation takes at least: as many
/// as hold the elements of a piece of a quarter of an element-wise one
/// (Launch::grain), from their mean length (Inner elements in NSeg
/// segments), so that a few segments of a small array run on the calling
/// thread, and long ones are still shared; at least 16. A segment's
/// elements are a chain of dependent combinations, which cost about 4
/// times a map's element (a sum of 2^14 floats in segments of 64 runs on
/// 2 threads, 0.7x OpenMP's on one).
static int64_t segmentGrain(const Launch &L, int64_t Inner, int64_t NSeg) {
  int64_t Mean = std::max<int64_t>(1, Inner / std::max<int64_t>(NSeg, 1));
  return std::max<int64_t>(16, L.grain(1024) / Mean);
}

class FoldSegLauncher final : public Launcher {
public:
  const char *name() const override { return "foldSeg"; }
  bool repeatable() const override { return true; }

  /// The outer extents of the array, and one result per segment.
  rt::Status reshape(Node &N) const override {
    const Shape &A = N.Kids[0]->Sh;
    if (A.rank() == 0)
      return failed(fmt::format("{}: needs an array of rank 1 or more",
                                N.Name));
    std::vector<int64_t> E = outerExtents(A);
    E.push_back(N.Kids[1]->Sh.size());
    if (rt::Status St = setShape(N, E); !St.ok())
      return St;
    N.OutShapes = {N.Sh};
    return rt::Status();
  }

  rt::Status launch(Launch &L) const override {
    const Node &N = L.root(), &A = *N.Kids[0], &S = *N.Kids[1];
    int64_t NSeg = S.Sh.size();
    int64_t Inner = A.Sh.extent(A.Sh.rank() - 1);
    int64_t *Offs, *Lens;
    if (rt::Status E = segmentsOf(L, S, Inner, !N.Consts.empty(), Offs, Lens); !E.ok())
      return E;
    if (rt::Status E = L.output(N.Type, N.Sh); !E.ok())
      return E;
    L.Host = {uint64_t(NSeg), reinterpret_cast<uintptr_t>(Offs),
              reinterpret_cast<uintptr_t>(Lens)};
    return L.run(0, 0, N.Sh.size(), segmentGrain(L, Inner, NSeg));
  }
};

class ScanSegLauncher final : public Launcher {
public:
  explicit ScanSegLauncher(bool Left) : Left(Left) {}
  const char *name() const override { return Left ? "scanlSeg" : "scanrSeg"; }
  bool repeatable() const override { return true; }

  /// The array's shape, each segment one longer (its seed).
  rt::Status reshape(Node &N) const override {
    const Shape &A = N.Kids[0]->Sh;
    if (A.rank() == 0)
      return failed(fmt::format("{}: needs an array of rank 1 or more, not "
                                "a scalar",
                                N.Name));
    std::vector<int64_t> E = extentsOf(A);
    E.back() += N.Kids[1]->Sh.size();
    if (rt::Status St = setShape(N, E); !St.ok())
      return St;
    N.OutShapes = {N.Sh};
    return rt::Status();
  }

  rt::Status launch(Launch &L) const override {
    const Node &N = L.root(), &A = *N.Kids[0], &S = *N.Kids[1];
    int64_t *Offs, *Lens;
    unsigned Rank = A.Sh.rank();
    if (rt::Status E = segmentsOf(L, S, A.Sh.extent(Rank - 1), true, Offs,
                                   Lens); !E.ok())
      return E;
    if (rt::Status E = L.output(N.Type, N.Sh); !E.ok())
      return E;
    int64_t NSeg = S.Sh.size(), Rows = 1;
    for (unsigned D = 0; D + 1 < Rank; ++D)
      Rows *= A.Sh.extent(D);
    L.Host = {reinterpret_cast<uintptr_t>(Offs),
              reinterpret_cast<uintptr_t>(Lens), uint64_t(NSeg)};
    return L.run(0, 0, Rows * NSeg,
                 segmentGrain(L, A.Sh.extent(Rank - 1), NSeg));
  }

private:
  bool Left;
};

class ScanLauncher final : public Launcher {
public:
  explicit ScanLauncher(bool Left) : Left(Left) {}
  const char *name() const override { return Left ? "scanl" : "scanr"; }
  bool repeatable() const override { return true; }
  /// 1: a vector scanned by the streaming phase (B's pieces run in order)
  /// whose output, ScanNonTemporalBytes or more, is written with non-temporal
  /// stores where B's stores pay in interleaved streams (the phase writes a
  /// chunk's four quarters at once).
  int64_t variant(const Node &N, const Executor &B) const override {
    return B.piecesInOrder() && B.nonTemporalStreams() &&
           holdsAtLeast(*N.Kids[0], ScanNonTemporalBytes);
  }

  rt::Status reshape(Node &N) const override {
    return reshapeScan(N);
  }

  rt::Status launch(Launch &L) const override {
    const Node &N = L.root();
    int64_t Len = N.Kids[0]->Sh.size();
    for (size_t I = 0; I < N.OutTypes.size(); ++I)
      if (rt::Status E = L.output(N.OutTypes[I], N.OutShapes[I]); !E.ok())
        return E;
    unsigned T = L.backend().parallelism();
    bool Stream = L.backend().piecesInOrder();
    int64_t Chunk, Chunks;
    int64_t ElemBytes = int64_t(N.Type.bytes());
    if (Stream) {
      // Chunks a level-2 cache holds with room to spare, however many
      // threads: each is read from memory once and scanned again from it.
      // Eight or more per thread while they are small; larger ones, up to
      // StreamChunkMaxBytes of input, stream faster.
      // A vector of fewer than T such chunks is still cut in T, down to
      // chunks of StreamChunkMinElems.
      int64_t Least = std::max<int64_t>(
          1, StreamChunkBytes / int64_t(N.Type.numFields() * 8));
      Least = std::min(Least, std::max(StreamChunkMinElems, Len / int64_t(T)));
      Chunk = std::clamp<int64_t>(
          Len / (8 * int64_t(T)), Least,
          std::max<int64_t>(1, StreamChunkMaxBytes / std::max<int64_t>(ElemBytes, 1)));
      Chunks = (Len + Chunk - 1) / Chunk;
    } else {
      Chunks = T == 1 ? (Len ? 1 : 0) : chunksFor(Len, T, 1 << 14);
      Chunk = Chunks ? (Len + Chunks - 1) / Chunks : 0;
      if (Chunks)
        Chunks = (Len + Chunk - 1) / Chunk;
    }
    size_t PerChunk = size_t(std::max<int64_t>(Chunks, 1));
    size_t Bytes = PerChunk * N.Type.numFields() * 8;
    L.Host = {uint64_t(Len), uint64_t(Chunks), uint64_t(Chunk),
              reinterpret_cast<uintptr_t>(L.scratch(Bytes)),
              reinterpret_cast<uintptr_t>(L.scratch(Bytes))};
    if (Stream) {
      // The chunks' published flags, and the ticket counter.
      L.Host.push_back(reinterpret_cast<uintptr_t>(L.scratch(PerChunk * 4)));
      L.Host.push_back(reinterpret_cast<uintptr_t>(L.scratch(8)));
      if (!Chunks)
        return L.run(1, 0, 1, 1);
      return L.run(0, 0, std::min<int64_t>(T, Chunks), 1);
    }
    if (rt::Status E = L.run(0, 0, Chunks, 1); !E.ok())
      return E;
    if (rt::Status E = L.run(1, 0, 1, 1); !E.ok())
      return E;
    return L.run(2, 0, Chunks, 1);
  }

private:
  bool Left;
};

class ScanRowsLauncher final : public Launcher {
public:
  explicit ScanRowsLauncher(bool Left) : Left(Left) {}
  const char *name() const override { return Left ? "scanlRows" : "scanrRows"; }
  bool repeatable() const override { return true; }

  rt::Status reshape(Node &N) const override {
    return reshapeScan(N);
  }

  rt::Status launch(Launch &L) const override {
    const Node &N = L.root();
    for (size_t I = 0; I < N.OutTypes.size(); ++I)
      if (rt::Status E = L.output(N.OutTypes[I], N.OutShapes[I]); !E.ok())
        return E;
    const Shape &Sh = N.Sh;
    int64_t Rows = Sh.size() / std::max<int64_t>(Sh.extent(Sh.rank() - 1), 1);
    if (Sh.extent(Sh.rank() - 1) == 0) {
      // Empty rows: only the totals of scanl' and scanr', each the seed.
      Rows = 1;
      for (unsigned D = 0; D + 1 < Sh.rank(); ++D)
        Rows *= Sh.extent(D);
    }
    return L.run(0, 0, Rows, 1);
  }

private:
  bool Left;
};

class PermuteLauncher final : public Launcher {
public:
  const char *name() const override { return "permute"; }
  bool repeatable() const override { return true; }

  rt::Status reshape(Node &N) const override {
    N.Sh = N.Kids[0]->Sh;
    N.OutShapes = {N.Sh};
    return rt::Status();
  }

  rt::Status launch(Launch &L) const override {
    const Node &N = L.root();
    if (rt::Status E = L.output(N.Type, N.Sh); !E.ok())
      return E;
    int64_t Cells = N.Sh.size(), Source = N.Kids[1]->Sh.size();
    unsigned Threads = L.backend().parallelism();
    int64_t Grain = L.grain(4096);
    // A scattered element costs a dependent load and store besides its
    // projection, some 4 times a map's element: its ranges are shared
    // from a quarter of the length (a 256-bin histogram of 2^14 elements
    // runs on 2 threads, 0.7x OpenMP's on one; one of 2^12 on one, where
    // 2 threads ran it at 0.67x the plain loop).
    int64_t ScatterGrain = L.grain(1024);
    L.Host.assign(Parts + 1, 0);
    L.Host[Locks] = reinterpret_cast<uintptr_t>(
        L.scratch(N.Type.isTuple() ? size_t(Cells) : 1));
    if (rt::Status E = L.run(0, 0, Cells, Grain); !E.ok())
      return E;
    // A scatter that the calling thread runs alone, in one call, combines
    // into the output with plain loads and stores: neither atomics nor a
    // private copy to merge would buy anything there.
    if (Source > 0 && L.backend().callsInline(0, Source, ScatterGrain))
      return L.run(4, 0, Source, ScatterGrain);
    // Else, where the output is small beside the source, each thread's
    // part goes into a private copy, merged after; a short scatter on a
    // backend that does not say it runs on the calling thread alone takes
    // one copy where that copy is no longer than the source.
    bool OneThread = Source <= ScatterGrain || Threads == 1;
    bool Privatise =
        L.backend().atomics() && !N.Type.isTuple() && Cells > 0 &&
        Cells <= MaxPrivateCells &&
        (OneThread ? Cells <= Source
                   : Threads > 1 &&
                         Source >= MinSourcePerCell * Cells * int64_t(Threads));
    if (!Privatise)
      return L.run(1, 0, Source, ScatterGrain);
    int64_t Len = OneThread ? Source : (Source + Threads - 1) / Threads;
    int64_t NumParts = (Source + Len - 1) / Len;
    int64_t Bytes = int64_t(rt::byteSize(N.Type.field(0)));
    // Copies PartAlignBytes apart (in cells, also for the reached bytes).
    int64_t Stride = Cells;
    if (NumParts > 1) {
      int64_t Align = std::max<int64_t>(1, PartAlignBytes / Bytes);
      Stride = (Cells + Align - 1) / Align * Align;
    }
    // Pieces of at least Len indices start Len or more apart, so no two
    // share a part (their first index over Len).
    L.Host[Private] = reinterpret_cast<uintptr_t>(
        L.scratch(size_t(NumParts * Stride * Bytes)));
    if (!N.Code[0])
      L.Host[Reached] =
          reinterpret_cast<uintptr_t>(L.scratch(size_t(NumParts * Stride)));
    L.Host[PartStride] = uint64_t(Stride);
    L.Host[PartLen] = uint64_t(Len);
    L.Host[Parts] = uint64_t(NumParts);
    if (rt::Status E = L.run(2, 0, Source, Len); !E.ok())
      return E;
    return L.run(3, 0, Cells, Grain);
  }
};

class StencilLauncher final : public Launcher {
public:
  const char *name() const override { return "stencil"; }
  bool repeatable() const override { return true; }

  rt::Status reshape(Node &N) const override {
    const Shape &First = N.Kids[0]->Sh;
    std::vector<int64_t> E = extentsOf(First);
    for (unsigned K = 1; K < N.NumInputs; ++K)
      for (unsigned D = 0; D < First.rank(); ++D)
        E[D] = std::min(E[D], N.Kids[K]->Sh.extent(D));
    N.Sh = *Shape::make(E);
    N.OutShapes = {N.Sh};
    return rt::Status();
  }

  rt::Status launch(Launch &L) const override {
    const Node &N = L.root();
    if (rt::Status E = L.output(N.Type, N.Sh); !E.ok())
      return E;
    return L.run(0, 0, N.Sh.size(), L.grain(4096));
  }
};

class FilterLauncher final : public Launcher {
public:
  const char *name() const override { return "filter"; }

  /// Its length is counted by the launch itself.
  rt::Status reshape(Node &) const override { return rt::Status(); }

  rt::Status launch(Launch &L) const override {
    const Node &N = L.root();
    int64_t Len = N.Kids[0]->Sh.extent(0);
    if (N.Code[0]) // compact: the flags may be shorter
      Len = std::min(Len, N.Kids[1]->Sh.extent(0));
    int64_t Chunks = chunksFor(Len, L.backend().parallelism(), 1 << 13);
    int64_t Chunk = Chunks ? (Len + Chunks - 1) / Chunks : 0;
    if (Chunks)
      Chunks = (Len + Chunk - 1) / Chunk; // every chunk non-empty
    auto *Counts = static_cast<int64_t *>(
        L.scratch(size_t(std::max<int64_t>(Chunks, 1)) * 8));
    L.Host = {uint64_t(Len), uint64_t(Chunk),
              reinterpret_cast<uintptr_t>(Counts)};
    L.OutputsPending = true;
    if (rt::Status E = L.run(0, 0, Chunks, 1); !E.ok())
      return E;
    L.OutputsPending = false;
    // Each chunk's first position: the counts before it.
    int64_t Total = 0;
    for (int64_t C = 0; C < Chunks; ++C) {
      int64_t K = Counts[C];
      Counts[C] = Total;
      Total += K;
    }
    rt::Expected<Shape> Sh = Shape::make({Total});
    if (rt::Status E = L.output(N.Type, *Sh); !E.ok())
      return E;
    return L.run(1, 0, Chunks, 1);
  }
};

} // namespace

const Launcher &llq::detail::materializeLauncher() {
  static const MaterializeLauncher L;
  return L;
}
const Launcher &llq::detail::foldLauncher() {
  static const FoldLauncher L;
  return L;
}
const Launcher &llq::detail::foldSegLauncher() {
  static const FoldSegLauncher L;
  return L;
}
const Launcher &llq::detail::scanLauncher(bool Left) {
  static const ScanLauncher L(true), R(false);
  return Left ? static_cast<const Launcher &>(L) : R;
}
const Launcher &llq::detail::scanSegLauncher(bool Left) {
  static const ScanSegLauncher L(true), R(false);
  return Left ? static_cast<const Launcher &>(L) : R;
}
const Launcher &llq::detail::scanRowsLauncher(bool Left) {
  static const ScanRowsLauncher L(true), R(false);
  return Left ? static_cast<const Launcher &>(L) : R;
}
const Launcher &llq::detail::permuteLauncher() {
  static const PermuteLauncher L;
  return L;
}
const Launcher &llq::detail::stencilLauncher() {
  static const StencilLauncher L;
  return L;
}
const Launcher &llq::detail::filterLauncher() {
  static const FilterLauncher L;
  return L;
}

const Launcher *llq::detail::launcherNamed(const std::string &Name) {
  const Launcher *All[] = {
      &materializeLauncher(), &foldLauncher(),         &foldSegLauncher(),
      &scanLauncher(true),    &scanLauncher(false),    &scanSegLauncher(true),
      &scanSegLauncher(false), &scanRowsLauncher(true), &scanRowsLauncher(false),
      &permuteLauncher(),     &stencilLauncher(),      &filterLauncher()};
  for (const Launcher *L : All)
    if (Name == L->name())
      return L;
  return nullptr;
}
