//===- Map.cpp - The materialising skeleton: generate, map, zipWith, ... --===//
//
// Writes every element of a delayed array. The index space is the output's
// linear positions; a piece [lo, hi) is walked row by row, so that the
// outer multi-index is computed once per row and the innermost loop runs
// over consecutive positions of every manifest input: that loop has no
// division in it and vectorizes.
//
// On the CPU, a matrix whose fused tree transposes an array (transpose,
// directly or under maps and zips) is walked in square tiles instead (32 or,
// for a large matrix, 64 elements a side: tileFor):
// row by row, the transposed source would be read a column at a time, one
// cache line per element; within a tile, the lines of the source's Tile
// rows that the tile reads stay in cache until all of their elements are
// used. The index space is then the tiles, row by row of tiles; for a
// large matrix (64-element tiles), column by column of tiles instead
// (host slot `down`): consecutive tiles then read the same source rows (the
// next 256 bytes of each), which the TLB and the prefetchers still hold,
// where across a row of tiles each tile reads source rows no tile before it
// touched (a transpose of 2^26 floats: 7.3-8.1 GB/s across, 8.9-10.6 down,
// on a 2-core rocketlake). A matrix the caches hold goes faster across
// (2^18 floats: 94 GB/s across, 47 down): there the output's rows, which
// each tile of a column starts anew, are what costs.
//
// A heavy element with no loop of its own (weight 48 or more) has its loop
// interleaved by two, so that two vector iterations' chains of dependent
// operations overlap (interleaveIfHeavy), and may use the target's widest
// vectors where LLVM would prefer narrower ones (preferWideVectorsIfHeavy).
//
// A plain transpose of a manifest array (no function fused over it) moves
// each full tile as 16 blocks of 8 x 8: eight vector loads of the source's
// rows, the transposition in registers (three rounds of shuffles), and
// eight vector stores of the output's rows. Neither side is then read or
// written with a stride, which LLVM's vectorizers cannot arrange by
// themselves: the element loop reads the source a column at a time. Tiles
// at the right and bottom edges, and fused trees, keep the element loop.
// Large tiles first fetch the source lines of the next tile (FetchSource),
// which no hardware prefetcher follows.
//
//===----------------------------------------------------------------------===//

#include "../host/Launchers.h"
#include "llquote/skeletons/Skeleton.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Module.h"

using namespace llq;
using namespace llq::detail;

namespace {

const Template MapSkeleton = LLQ_SKELETON(R"(
$defs:fns

define internal void @body.map(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  %inner = i64 $opr:inner
  %ix = i64 %lo
  %more = icmp slt i64 %ix, %hi
  ; The first row's number is a division, made only where the piece does
  ; not start in row 0 (a small array's whole run is one piece there); the
  ; rows after it follow one another.
  %row = i64 0
  %later = icmp sge i64 %ix, %inner
  %divide = and i1 %more, %later
  if %divide {
    %row = sdiv i64 %ix, %inner
  }
  while %more {
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
    %row = add i64 %row, 1
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
  %rows = i64 $opr:rows
  %inner = i64 $opr:inner
  %tile = i64 $opr:tile
  %downslot = i64 $opr:down
  %down = icmp ne i64 %downslot, 0
  %tilem1 = sub i64 %tile, 1
  %trows0 = add i64 %rows, %tilem1
  %trows = sdiv i64 %trows0, %tile
  %tcols0 = add i64 %inner, %tilem1
  %tcols = sdiv i64 %tcols0, %tile
  %per = select i1 %down, i64 %trows, i64 %tcols
  for i64 %t in %lo to %hi {
    $instrs:corner
    %i0 = i64 $opr:i0
    %j0 = i64 $opr:j0
    %i1 = add i64 %i0, %tile
    %ishort = icmp slt i64 %rows, %i1
    %i1 = select i1 %ishort, i64 %rows, i64 %i1
    %j1 = add i64 %j0, %tile
    %jshort = icmp slt i64 %inner, %j1
    %j1 = select i1 %jshort, i64 %inner, i64 %j1
    %whole = or i1 %ishort, %jshort
    %whole = xor i1 %whole, true
    %blocks = and i1 %whole, $const:blocks
    if %blocks {
      ; Large tiles fetch their next one's source lines first ($instrs:ahead).
      if %down {
        $instrs:ahead
      }
      for i64 %bi in 0 to %tile step 8 {
        for i64 %bj in 0 to %tile step 8 {
          %o = add i64 %i0, %bi
          %c = add i64 %j0, %bj
          $instrs:block
        }
      }
    } else {
      for i64 %o0 in %i0 to %i1 {
        %rowbase = mul i64 %o0, %inner
        for i64 %j in %j0 to %j1 {
          %lin = add i64 %rowbase, %j
          $instrs:elem
        }
      }
    }
  }
  ret void
}

$defs:entries
)");

/// The first output row i0 and column j0 of tile t + ahead, tiles being
/// numbered along rows of tiles, or (down) along columns, per to a row or
/// column.
const Template TileCorner = LLQ_HYGIENIC_INSTRS(R"(
  %n = add i64 $opr:t, $const:ahead
  %major = sdiv i64 %n, $opr:per
  %minor = mul i64 %major, $opr:per
  %minor = sub i64 %n, %minor
  %tr = select i1 $opr:down, i64 %minor, i64 %major
  %tc = select i1 $opr:down, i64 %major, i64 %minor
  %i0 = mul i64 %tr, $opr:tile
  %j0 = mul i64 %tc, $opr:tile
)");

/// The bytes of a cache line, which FetchSource fetches one at a time.
constexpr size_t LineBytes = 64;

/// The cache lines that the tile of output rows i0.. and columns j0.. reads
/// from the source (rows j0.., columns i0.. of a matrix `rows` wide),
/// fetched into the second-level cache; nothing outside the matrix.
const Template FetchSource = LLQ_HYGIENIC_INSTRS(R"(
  %c1 = add i64 $opr:j0, $opr:tile
  %cshort = icmp slt i64 $opr:inner, %c1
  %c1 = select i1 %cshort, i64 $opr:inner, i64 %c1
  %o1 = add i64 $opr:i0, $opr:tile
  %oshort = icmp slt i64 $opr:rows, %o1
  %o1 = select i1 %oshort, i64 $opr:rows, i64 %o1
  for i64 %c in $opr:j0 to %c1 {
    %row = mul i64 %c, $opr:rows
    for i64 %o in $opr:i0 to %o1 step $const:line {
      %at = add i64 %row, %o
      %p = getelementptr $type:mem, ptr $opr:buf, i64 %at
      call void @llvm.prefetch.p0(ptr %p, i32 0, i32 2, i32 1)
    }
  }
)");

/// The heaviest elements whose stores stay non-temporal: LLVM's loop
/// vectorizer does not vectorize a loop whose non-temporal vector stores
/// are not known to be aligned, so that only elements cheap enough to keep
/// up with memory one at a time gain. Black-Scholes (libm calls) ran at a
/// fifth of its speed so.
constexpr unsigned NonTemporalMaxWeight = 8;

/// Drops the !nontemporal of M's stores where its scalar functions, of
/// weight W (weighFunctions), loop or weigh more than NonTemporalMaxWeight.
void keepNonTemporalIfLight(llvm::Module &M, const Kernel &W) {
  if (!W.Loops && W.Weight <= NonTemporalMaxWeight)
    return;
  for (llvm::Function &F : M)
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : BB)
        I.setMetadata(llvm::LLVMContext::MD_nontemporal, nullptr);
}

/// The lightest elements whose loop is interleaved by two (InterleaveCount).
/// LLVM's loop vectorizer interleaves only loops it finds cheap, to hide
/// latency; a heavy element is one long chain of dependent operations
/// (Black-Scholes: a log, a square root, two divisions, then two cumulative
/// normals, each an exp and a polynomial), and one vector iteration's chain
/// leaves the core idle for most of its latency. Two iterations in flight
/// overlap their chains: Black-Scholes single-threaded went from 6.1-7.2 to
/// 4.7-5.7 ns an element on a Zen 3 (the kernel with and without the hint,
/// same run). Elements that loop inside are left alone: their loop is not
/// the vectorized one.
constexpr unsigned InterleaveMinWeight = 48;
constexpr unsigned InterleaveCount = 2;

/// Whether scalar functions of weight W (weighFunctions) are heavy and
/// straight: InterleaveMinWeight or more, and no loop of their own.
bool heavyAndStraight(const Kernel &W) {
  return !W.Loops && W.Weight >= InterleaveMinWeight;
}

/// Asks the loop vectorizer to interleave the element loop of M's
/// @body.map (the template's one `for`, whose latch is its `for.inc`) by
/// InterleaveCount, where M's scalar functions, of weight W, are heavy and
/// straight (heavyAndStraight).
void interleaveIfHeavy(llvm::Module &M, const Kernel &W) {
  if (!heavyAndStraight(W))
    return;
  llvm::Function *Body = M.getFunction("body.map");
  if (!Body)
    return;
  llvm::LLVMContext &Ctx = M.getContext();
  for (llvm::BasicBlock &BB : *Body) {
    if (!BB.getName().starts_with("for.inc"))
      continue;
    llvm::Metadata *Count[] = {
        llvm::MDString::get(Ctx, "llvm.loop.interleave.count"),
        llvm::ConstantAsMetadata::get(
            llvm::ConstantInt::get(llvm::Type::getInt32Ty(Ctx), InterleaveCount))};
    llvm::Metadata *Loop[] = {nullptr, llvm::MDNode::get(Ctx, Count)};
    llvm::MDNode *Id = llvm::MDNode::getDistinct(Ctx, Loop);
    Id->replaceOperandWith(0, Id);
    BB.getTerminator()->setMetadata(llvm::LLVMContext::MD_loop, Id);
  }
}

/// The vector width, in bits, asked for where elements are heavy.
constexpr const char *WideVectorBits = "512";

/// Lets the code generator use its widest vectors in M where M's scalar
/// functions, of weight W, are heavy and straight (heavyAndStraight, as
/// for interleaveIfHeavy). LLVM tunes several x86 CPUs with AVX-512
/// (Intel's from Skylake-SP to Sapphire Rapids, `rocketlake` among them)
/// to prefer 256-bit vectors, which keeps a light loop that waits on memory
/// from lowering the clock; an element that computes for long gains twice
/// the lanes. Black-Scholes went from
/// 0.69-0.85x to 1.04-1.18x Halide's on a 2-core `rocketlake` (bench/arrays,
/// 2^18 to 2^26). The attribute is a ceiling: a target without 512-bit
/// vectors keeps its own width. Elements that loop inside are left alone:
/// n-body's (a loop over the bodies) measured 0.97x Halide with the wider
/// vectors against 1.00x without.
void preferWideVectorsIfHeavy(llvm::Module &M, const Kernel &W) {
  if (!heavyAndStraight(W))
    return;
  for (llvm::Function &F : M)
    if (!F.isDeclaration())
      F.addFnAttr("prefer-vector-width", WideVectorBits);
}

/// The manifest array P transposes with nothing fused over it (through
/// reshapes, which keep linear positions), or null.
const Node *plainTransposeSource(const Node &P) {
  if (P.K != Op::Transpose)
    return nullptr;
  const Node *S = P.Kids[0].get();
  while (S->K == Op::Reshape)
    S = S->Kids[0].get();
  return S->K == Op::Use ? S : nullptr;
}

/// A pointer to row Row + K, column Col, of a matrix of rows Stride long
/// in Buf.
const Template RowPointer = LLQ_HYGIENIC_INSTRS(R"(
  %at = add i64 $opr:row, $const:k
  %at = mul i64 %at, $opr:stride
  %at = add i64 %at, $opr:col
  %ptr = getelementptr $type:mem, ptr $opr:buf, i64 %at
)");
/// Vectors are only as aligned as their elements.
const Template LoadRow = LLQ_HYGIENIC_INSTRS(R"(
  %r = load $type:vt, ptr $opr:ptr, align $const:align
)");
const Template StoreRow = LLQ_HYGIENIC_INSTRS(R"(
  store $type:vt $opr:v, ptr $opr:ptr, align $const:align
)");
/// One round's pair of shuffles: the low and the high halves of sub-blocks.
const Template ShufflePair = LLQ_HYGIENIC_INSTRS(R"(
  %lo = shufflevector $type:vt $opr:a, $type:vt $opr:b, $type:mt $opr:lomask
  %hi = shufflevector $type:vt $opr:a, $type:vt $opr:b, $type:mt $opr:himask
)");

/// Code that moves the 8 x 8 block of output rows %o.. and columns %c.. of
/// P, the transpose of the manifest array Src, a field at a time: output
/// row %o + k is source column %o + k, whose elements in rows %c..%c + 7
/// lie in the eight source rows loaded. Each round of shuffles swaps the
/// off-diagonal halves of 8 x 8, then 4 x 4, then 2 x 2 sub-blocks.
Code transposeBlock(KernelGen &G, const Node &P, const Node &Src) {
  constexpr int V = 8;
  llvm::LLVMContext &Ctx = G.context();
  llvm::Type *MaskT = llvm::FixedVectorType::get(llvm::Type::getInt32Ty(Ctx), V);
  // Masks of the round with sub-blocks of W rows: lanes [0, W) of every
  // 2W come from the first vector, the rest from the second, low halves
  // for the upper row of a pair and high halves for the lower one.
  auto Mask = [&](int W, bool High) {
    std::vector<uint32_t> Lanes;
    for (int L = 0; L < V; ++L) {
      int Pair = L / (2 * W), In = L % (2 * W);
      Lanes.push_back(uint32_t(Pair * 2 * W + (High ? W : 0) + In % W +
                               (In < W ? 0 : V)));
    }
    return llvm::ConstantDataVector::get(Ctx, Lanes);
  };
  Code Out;
  Operand Rows = G.extent(P, 0), Cols = G.extent(P, 1);
  std::vector<Operand> Dest = G.outBuffers(0, P.Type);
  for (unsigned F = 0; F < P.Type.numFields(); ++F) {
    llvm::Type *Mem = G.memType(P.Type.field(F));
    llvm::Type *VT = llvm::FixedVectorType::get(Mem, V);
    Operand In = G.buffer(Src, F);
    size_t Align = rt::byteSize(P.Type.field(F));
    auto RowAt = [&](const char *Row, int K, const Operand &Stride,
                     const char *Col, const Operand &Buf) {
      return G.emit(Out, RowPointer,
                    {{"row", Row}, {"k", K}, {"stride", Stride}, {"col", Col},
                     {"mem", Mem}, {"buf", Buf}},
                    "ptr");
    };
    std::vector<Operand> R;
    for (int K = 0; K < V; ++K)
      R.push_back(G.emit(Out, LoadRow,
                         {{"vt", VT},
                          {"ptr", RowAt("c", K, Rows, "o", In)},
                          {"align", Align}},
                         "r"));
    for (int W = V / 2; W >= 1; W /= 2) {
      std::vector<Operand> Next(R);
      for (int K = 0; K < V; ++K) {
        if (K % (2 * W) >= W)
          continue;
        std::vector<Operand> LoHi = G.emitAll(
            Out, ShufflePair,
            {{"vt", VT}, {"mt", MaskT}, {"a", R[K]}, {"b", R[K + W]},
             {"lomask", Mask(W, false)}, {"himask", Mask(W, true)}},
            {"lo", "hi"});
        Next[K] = LoHi[0];
        Next[K + W] = LoHi[1];
      }
      R = Next;
    }
    for (int K = 0; K < V; ++K)
      G.emit(Out, StoreRow,
             {{"vt", VT},
              {"v", R[K]},
              {"ptr", RowAt("o", K, Cols, "c", Dest[F])},
              {"align", Align}});
  }
  return Out;
}

class Materialize final : public LibrarySkeleton {
public:
  Materialize() : LibrarySkeleton(materializeLauncher()) {}


  llvm::Expected<std::unique_ptr<llvm::Module>>
  generate(KernelGen &G, llvm::LLVMContext &Ctx) const override {
    const Node &P = *G.root().Kids[0];
    unsigned Rank = P.Sh.rank();
    Code Elem;
    if (tiled(P, G.backend())) {
      Operand X = G.elemMulti(P, {"o0", "j"}, Elem);
      G.store(P.Type, G.outBuffers(0, P.Type), X, "lin", Elem);
      const Node *Src = plainTransposeSource(P);
      auto Corner = [&](Code &C, int Ahead) {
        return G.emitAll(C, TileCorner,
                         {{"t", "t"}, {"ahead", Ahead}, {"per", "per"},
                          {"down", "down"}, {"tile", "tile"}},
                         {"i0", "j0"});
      };
      Code This, Ahead;
      std::vector<Operand> Here = Corner(This, 0);
      if (Src) {
        // A plain transpose in large tiles fetches the source lines of its
        // next tile into the second-level cache before moving this one: the
        // hardware prefetchers follow none of the 64 source rows a tile
        // reads 256 bytes of. On a 2-core rocketlake, 4096 x 4096 floats
        // went from 9.5-10.9 to 19.6-20.2 GB/s and 2048 x 2048 from 28.3-29.2
        // to 31.8-32.8; 8192 x 8192 stays at 9-10. Small tiles, which a
        // matrix in cache uses, lose by it (128 x 128: 86-94 -> 77-78).
        std::vector<Operand> There = Corner(Ahead, 1);
        for (unsigned F = 0; F < P.Type.numFields(); ++F) {
          size_t Bytes = rt::byteSize(P.Type.field(F));
          G.code(Ahead, FetchSource,
                 {{"i0", There[0]},
                  {"j0", There[1]},
                  {"tile", "tile"},
                  {"rows", "rows"},
                  {"inner", "inner"},
                  {"line", int64_t(std::max<size_t>(1, LineBytes / Bytes))},
                  {"mem", G.memType(P.Type.field(F))},
                  {"buf", G.buffer(*Src, F)}});
        }
      }
      return G.instantiate(TiledMapSkeleton,
                           {{"rows", G.extent(P, 0)},
                            {"inner", G.extent(P, 1)},
                            {"elem", Elem},
                            {"corner", This},
                            {"i0", Here[0]},
                            {"j0", Here[1]},
                            {"ahead", Ahead},
                            {"block", Src ? transposeBlock(G, P, *Src) : Code()},
                            {"blocks", Src != nullptr},
                            {"tile", G.hostInt(0)},
                            {"down", G.hostInt(1)}},
                           {"map"}, Ctx);
    }
    // The outer indices of row %row, computed once per row; the innermost
    // is the loop's %j.
    Code Outer;
    std::vector<Operand> Ix;
    if (Rank >= 2) {
      Ix = G.multiOf(P, "row", Outer, /*Dims=*/Rank - 1);
      Ix.push_back("j");
    } else if (Rank == 1) {
      Ix = {"j"};
    }
    Operand X = Rank <= 1 ? G.elemLinear(P, "lin", Elem)
                          : G.elemMulti(P, Ix, Elem);
    bool NonTemporal = variant(G.root(), G.backend()) == 1;
    G.store(P.Type, G.outBuffers(0, P.Type), X, "lin", Elem, NonTemporal);
    auto M = G.instantiate(MapSkeleton,
                           {{"inner", Rank ? G.extent(P, Rank - 1) : Operand(1)},
                            {"outer", Outer},
                            {"elem", Elem}},
                           {"map"}, Ctx);
    if (!M)
      return M;
    Kernel Weight;
    weighFunctions(**M, G, Weight);
    if (NonTemporal)
      keepNonTemporalIfLight(**M, Weight);
    interleaveIfHeavy(**M, Weight);
    preferWideVectorsIfHeavy(**M, Weight);
    return M;
  }

};

} // namespace

const Skeleton &llq::detail::materializeSkeleton() {
  static const Materialize S;
  return S;
}

std::shared_ptr<Node> llq::detail::makeMaterialize(const NodeRef &N) {
  auto M = makeConsumer(materializeSkeleton(), N->Name, {N});
  M->Type = N->Type;
  M->Sh = N->Sh;
  return M;
}
