//===- CheckAssigned.cpp - Reads of variables not assigned on a path ------===//
//
// For each variable with a read that no earlier assignment in its block
// covers (an upward-exposed read), a backward search from those reads,
// stopping at blocks that assign the variable, finds the region that can
// reach them without an assignment. If the entry is in it, a forward search
// from the entry inside the region finds the blocks whose start some path
// reaches with the variable unassigned; its tree of first visits gives the
// path the note describes.
//
//===----------------------------------------------------------------------===//

#include "CheckAssigned.h"
#include "Parse.h"
#include "llquote/Diagnostics.h"
#include <algorithm>
#include <optional>

using namespace llq;
using namespace llvm;

namespace {

struct ExposedRead {
  uint32_t Var;
  unsigned Block;
  const Node *At;
};

class Checker {
public:
  Checker(const FlatFunction &F, ArrayRef<uint8_t> Reachable)
      : F(F), Reachable(Reachable), N(unsigned(F.Blocks.size())),
        PredStart(N + 1, 0), DefMark(N, 0), RegionMark(N, 0),
        BadMark(N, 0), Parent(N, 0) {
    // Predecessor lists side by side in one array: block S's are
    // PredList[PredStart[S]..PredStart[S+1]), in block order.
    for (unsigned B = 0; B < N; ++B)
      if (Reachable[B])
        for (unsigned S : F.Blocks[B].Succs)
          ++PredStart[S + 1];
    for (unsigned B = 0; B < N; ++B)
      PredStart[B + 1] += PredStart[B];
    PredList.resize(PredStart[N]);
    std::vector<unsigned> Fill(PredStart.begin(), PredStart.end() - 1);
    for (unsigned B = 0; B < N; ++B)
      if (Reachable[B])
        for (unsigned S : F.Blocks[B].Succs)
          PredList[Fill[S]++] = B;
  }

  /// The first unassigned read of Var among \p Reads, all of Var, given the
  /// blocks that assign it; updates Worst.
  void checkVariable(ArrayRef<ExposedRead> Reads, ArrayRef<unsigned> DefBlocks);

  const ExposedRead *Worst = nullptr;
  /// The branch to point the note at, or none for the entry.
  std::optional<unsigned> NoteBlock;

private:
  bool tainted(unsigned B) const {
    return Reachable[B] && BadMark[B] == Gen && DefMark[B] != Gen;
  }
  std::optional<unsigned> branchWithoutValue(unsigned B) const;
  ArrayRef<unsigned> preds(unsigned B) const {
    return ArrayRef<unsigned>(PredList).slice(PredStart[B],
                                              PredStart[B + 1] - PredStart[B]);
  }

  const FlatFunction &F;
  ArrayRef<uint8_t> Reachable;
  unsigned N;
  /// Reachable predecessors only (preds()).
  std::vector<unsigned> PredStart, PredList;
  unsigned Gen = 0;
  std::vector<unsigned> DefMark, RegionMark, BadMark, Parent;
  /// Worklists of checkVariable, kept to reuse their memory.
  std::vector<unsigned> Stack, Queue;
};

} // namespace

void Checker::checkVariable(ArrayRef<ExposedRead> Reads,
                            ArrayRef<unsigned> DefBlocks) {
  ++Gen;
  for (unsigned B : DefBlocks)
    DefMark[B] = Gen;
  // The region: blocks from which a read is reached with no assignment.
  Stack.clear();
  for (const ExposedRead &R : Reads)
    if (RegionMark[R.Block] != Gen) {
      RegionMark[R.Block] = Gen;
      Stack.push_back(R.Block);
    }
  while (!Stack.empty()) {
    unsigned B = Stack.back();
    Stack.pop_back();
    for (unsigned P : preds(B))
      if (DefMark[P] != Gen && RegionMark[P] != Gen) {
        RegionMark[P] = Gen;
        Stack.push_back(P);
      }
  }
  unsigned Entry = F.Order.front();
  if (RegionMark[Entry] != Gen)
    return;
  // Blocks entered with the variable unassigned, breadth first so the
  // path to each is a shortest one.
  Queue.assign(1, Entry);
  BadMark[Entry] = Gen;
  for (size_t I = 0; I < Queue.size(); ++I) {
    unsigned B = Queue[I];
    if (DefMark[B] == Gen)
      continue;
    for (unsigned S : F.Blocks[B].Succs)
      if (RegionMark[S] == Gen && BadMark[S] != Gen) {
        BadMark[S] = Gen;
        Parent[S] = B;
        Queue.push_back(S);
      }
  }
  for (const ExposedRead &R : Reads) {
    if (BadMark[R.Block] != Gen)
      continue;
    if (Worst && Worst->At->Range.Begin <= R.At->Range.Begin)
      continue;
    Worst = &R;
    NoteBlock = branchWithoutValue(R.Block);
  }
}

/// Along the path to \p B, the last join where the variable is assigned on
/// some incoming edge and not on another: the first such edge's source, in
/// predecessor order. None when no path assigns it: the entry is to blame.
std::optional<unsigned> Checker::branchWithoutValue(unsigned B) const {
  for (unsigned Entry = F.Order.front(); B != Entry; B = Parent[B]) {
    ArrayRef<unsigned> Ps = preds(B);
    if (std::all_of(Ps.begin(), Ps.end(),
                     [&](unsigned P) { return tainted(P); }))
      continue;
    for (unsigned P : Ps)
      if (tainted(P))
        return P;
  }
  return std::nullopt;
}

Error llq::checkAssigned(const SyntaxTree &Tree, const FlatFunction &F,
                         ArrayRef<std::vector<VarAccess>> Accesses,
                         ArrayRef<uint8_t> Reachable, unsigned NumVars,
                         const SourceMgr &SM, unsigned BufferID) {
  // Upward-exposed reads, and the blocks that assign each variable.
  std::vector<ExposedRead> Exposed;
  std::vector<std::vector<unsigned>> DefBlocks(NumVars);
  std::vector<unsigned> AssignedIn(NumVars, ~0u);
  for (unsigned B = 0; B < F.Blocks.size(); ++B) {
    if (!Reachable[B])
      continue;
    for (const VarAccess &A : Accesses[B]) {
      if (!A.ReadAt) {
        if (AssignedIn[A.Var] != B)
          DefBlocks[A.Var].push_back(B);
        AssignedIn[A.Var] = B;
      } else if (AssignedIn[A.Var] != B) {
        Exposed.push_back({A.Var, B, A.ReadAt});
      }
    }
  }
  std::stable_sort(Exposed.begin(), Exposed.end(),
                   [](const ExposedRead &L, const ExposedRead &R) {
                     return L.Var < R.Var;
                   });
  Checker C(F, Reachable);
  for (size_t I = 0, E; I < Exposed.size(); I = E) {
    for (E = I + 1; E < Exposed.size() && Exposed[E].Var == Exposed[I].Var;)
      ++E;
    C.checkVariable(ArrayRef<ExposedRead>(Exposed).slice(I, E - I),
                    DefBlocks[Exposed[I].Var]);
  }
  if (!C.Worst)
    return Error::success();

  StringRef Name = Tree.text(C.Worst->At);
  Name.consume_front("%");
  auto E = std::make_unique<DiagnosticError>(SM.GetMessage(
      locAt(SM, BufferID, C.Worst->At->Range.Begin), SourceMgr::DK_Error,
      "'%" + Name + "' is read here but is not assigned on every path to "
                    "this point"));
  const Node *NoteAt;
  std::string Note;
  if (C.NoteBlock) {
    const FlatBlock &PB = F.Blocks[*C.NoteBlock];
    NoteAt = !PB.Items.empty() && PB.Items.back().N ? PB.Items.back().N
                                                    : PB.Origin;
    Note = "'%" + Name.str() + "' has no value when control comes through "
           "here";
  } else {
    NoteAt = F.Blocks[F.Order.front()].Origin;
    Note = "'%" + Name.str() + "' has no value on the path from the "
           "function's entry, here";
  }
  if (NoteAt)
    E->addNote(SM.GetMessage(locAt(SM, BufferID, NoteAt->Range.Begin),
                             SourceMgr::DK_Note, Note));
  return Error(std::move(E));
}
