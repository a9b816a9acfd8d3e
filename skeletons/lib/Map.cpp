//===- Map.cpp - The materialising skeleton: generate, map, zipWith, ... --===//
//
// Writes every element of a delayed array. The index space is the output's
// linear positions; a piece [lo, hi) is walked row by row, so that the
// outer multi-index is computed once per row and the innermost loop runs
// over consecutive positions of every manifest input: that loop has no
// division in it and vectorizes.
//
// On the CPU, a matrix whose fused tree transposes an array (transpose,
// directly or under maps and zips) is walked in Tile x Tile tiles instead:
// row by row, the transposed source would be read a column at a time, one
// cache line per element; within a tile, the lines of the source's Tile
// rows that the tile reads stay in cache until all of their elements are
// used. The index space is then the tiles, in row-major order.
//
//===----------------------------------------------------------------------===//

#include "llquote/skeletons/Skeleton.h"
#include "llvm/IR/Module.h"
#include <fmt/format.h>

using namespace llq;
using namespace llq::detail;

namespace {

const Template MapSkeleton = LLQ_SKELETON(R"(
$defs:fns

define internal void @body.map(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  $instrs:setup
  %ix = i64 %lo
  %more = icmp slt i64 %ix, %hi
  while %more {
    %row = sdiv i64 %ix, %inner
    %rowbase = mul i64 %row, %inner
    %j0 = sub i64 %ix, %rowbase
    %rowend = add i64 %rowbase, %inner
    %short = icmp slt i64 %rowend, %hi
    %stop = select i1 %short, i64 %rowend, i64 %hi
    %j1 = sub i64 %stop, %rowbase
    $instrs:outer
    for i64 %j in %j0 to %j1 {
      %lin = add i64 %rowbase, %j
      $instrs:elem
    }
    %ix = i64 %stop
    %more = icmp slt i64 %ix, %hi
  }
  ret void
}

$defs:entries
)");

const Template TiledMapSkeleton = LLQ_SKELETON(R"(
$defs:fns

define internal void @body.map(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  $instrs:setup
  for i64 %t in %lo to %hi {
    %tr = sdiv i64 %t, %tcols
    %tc0 = mul i64 %tr, %tcols
    %tc = sub i64 %t, %tc0
    %i0 = mul i64 %tr, $const:tile
    %j0 = mul i64 %tc, $const:tile
    %i1 = add i64 %i0, $const:tile
    %ishort = icmp slt i64 %rows, %i1
    %i1 = select i1 %ishort, i64 %rows, i64 %i1
    %j1 = add i64 %j0, $const:tile
    %jshort = icmp slt i64 %inner, %j1
    %j1 = select i1 %jshort, i64 %inner, i64 %j1
    for i64 %o0 in %i0 to %i1 {
      %rowbase = mul i64 %o0, %inner
      for i64 %j in %j0 to %j1 {
        %lin = add i64 %rowbase, %j
        $instrs:elem
      }
    }
  }
  ret void
}

$defs:entries
)");

/// The side of a tile, in elements: 32 x 32 floats are 4 KiB of output and
/// 32 source rows of 128 bytes, well inside a level-1 cache.
constexpr int64_t Tile = 32;

/// Whether N's fused tree, the part of it computed inside the kernel,
/// transposes an array. The arrays a function reads (Fn::with) are
/// computed before the kernel: they are not looked into.
bool transposes(const Node &N) {
  if (N.K == Op::Transpose)
    return true;
  if (!N.isProducer() || N.K == Op::Use)
    return false;
  for (unsigned K = 0; K < N.NumInputs; ++K)
    if (transposes(*N.Kids[K]))
      return true;
  return false;
}

/// Whether P, a materialised array, is walked in tiles: on the CPU. A GPU
/// thread runs one element of the map, so that a warp's writes are
/// neighbours; a tile per thread would serialise 1024 of them.
bool tiled(const Node &P, const Backend &B) {
  return B.kind() != BackendKind::GPU && P.Sh.rank() == 2 && transposes(P);
}

class Materialize final : public Skeleton {
public:
  const char *name() const override { return "map"; }

  llvm::Expected<std::unique_ptr<llvm::Module>>
  generate(KernelGen &G, llvm::LLVMContext &Ctx) const override {
    const Node &P = *G.root().Kids[0];
    unsigned Rank = P.Sh.rank();
    std::string Setup, Outer, Elem;
    if (tiled(P, G.backend())) {
      Setup = fmt::format("  %rows = i64 {}\n  %inner = i64 {}\n"
                          "  %tcols0 = add i64 %inner, {}\n"
                          "  %tcols = sdiv i64 %tcols0, {}\n",
                          G.extent(P, 0), G.extent(P, 1), Tile - 1, Tile);
      std::string X = G.elemMulti(P, {"%o0", "%j"}, Elem);
      G.store(P.Type, G.outBuffers(0, P.Type), X, "%lin", Elem);
      return G.instantiate(TiledMapSkeleton,
                           {{"setup", Setup}, {"elem", Elem}, {"tile", Tile}},
                           {"map"}, Ctx);
    }
    Setup = fmt::format("  %inner = i64 {}\n",
                        Rank ? G.extent(P, Rank - 1) : "1");
    std::vector<std::string> Ix;
    if (Rank >= 2) {
      Outer += "  %q = i64 %row\n";
      Ix.resize(Rank);
      for (unsigned D = Rank - 2; D > 0; --D) {
        Ix[D] = fmt::format("%o{}", D);
        Outer += fmt::format("  {0} = srem i64 %q, {1}\n"
                             "  %q = sdiv i64 %q, {1}\n",
                             Ix[D], G.extent(P, D));
      }
      Ix[0] = "%o0";
      Outer += "  %o0 = i64 %q\n";
      Ix[Rank - 1] = "%j";
    } else if (Rank == 1) {
      Ix = {"%j"};
    }
    std::string X = Rank <= 1 ? G.elemLinear(P, "%lin", Elem)
                              : G.elemMulti(P, Ix, Elem);
    G.store(P.Type, G.outBuffers(0, P.Type), X, "%lin", Elem);
    return G.instantiate(MapSkeleton,
                         {{"setup", Setup}, {"outer", Outer}, {"elem", Elem}},
                         {"map"}, Ctx);
  }

  llvm::Error launch(Launch &L) const override {
    const Node &P = *L.root().Kids[0];
    if (llvm::Error E = L.output(P.Type, P.Sh))
      return E;
    if (tiled(P, L.backend())) {
      int64_t Tiles = ((P.Sh.extent(0) + Tile - 1) / Tile) *
                      ((P.Sh.extent(1) + Tile - 1) / Tile);
      return L.run(0, 0, Tiles, L.backend().grain(4));
    }
    return L.run(0, 0, P.Sh.size(), L.backend().grain(4096));
  }
};

} // namespace

const Skeleton &llq::detail::materializeSkeleton() {
  static const Materialize S;
  return S;
}
