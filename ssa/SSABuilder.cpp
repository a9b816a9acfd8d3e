//===- SSABuilder.cpp - Braun et al. SSA construction ----------------------===//
//
// The paper states readVariable, addPhiOperands and tryRemoveTrivialPhi as
// mutually recursive functions whose depth grows with the length of the
// control-flow paths they walk. Here a read is a small state machine over an
// explicit stack of frames, trivial phis are removed with a worklist, and the
// removal of redundant phi cycles runs an iterative Tarjan and an iterative
// dominator computation, so a function of any size is handled in heap memory.
//
// Removed phis are not rewritten out of their users: each records the value
// it was replaced by, and resolve() follows those links (shortening them as
// it goes, as union-find does). Only phi users are tracked, because only a
// phi can become trivial when one of its operands is replaced.
//
//===----------------------------------------------------------------------===//

#include "llquote/ssa/SSABuilder.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <algorithm>
#include <cassert>
#include <vector>

using namespace llq::ssa;

namespace {

constexpr uint32_t NoId = ~0u;

/// An Undef is the value of a variable on a path from a root (a sealed block
/// without predecessors that is not marked unreachable) that never defines
/// it. A NoValue is what an edge out of unreachable code carries: never
/// taken, so it stands for nothing and a phi ignores it.
enum class ValueKind : uint8_t { Plain, Phi, Undef, NoValue };

/// Incomplete phis wait in an unsealed block for their operands; Filling ones
/// are getting them right now. Neither may be judged trivial, because their
/// operand lists are not final.
enum class PhiState : uint8_t { Incomplete, Filling, Complete };

/// The value of each variable at the current end of one block, whether the
/// client defined it there or a read recorded what it found. A block holds
/// few, so they sit in the block itself and are searched in order; a block
/// that holds many moves them to a map. Kept with the block, a read that
/// walks from a block to its predecessors touches memory it already has in
/// cache, which a map over all blocks did not. Only looked up, never
/// iterated, so the map's hashing cannot change the output.
class BlockDefs {
public:
  uint32_t lookup(uint32_t Var) const {
    if (!Many.empty()) {
      auto It = Many.find(Var);
      return It == Many.end() ? NoId : It->second;
    }
    for (const auto &[V, Val] : Few)
      if (V == Var)
        return Val;
    return NoId;
  }
  void set(uint32_t Var, uint32_t Val) {
    if (!Many.empty()) {
      Many[Var] = Val;
      return;
    }
    for (auto &[V, Old] : Few)
      if (V == Var) {
        Old = Val;
        return;
      }
    Few.push_back({Var, Val});
    if (Few.size() > MaxFew) {
      for (const auto &[V, X] : Few)
        Many[V] = X;
      Few.clear();
    }
  }

private:
  static constexpr size_t MaxFew = 8;
  llvm::SmallVector<std::pair<uint32_t, uint32_t>, 2> Few;
  /// Keyed wide, so that no variable id is one of DenseMap's reserved keys.
  llvm::DenseMap<uint64_t, uint32_t> Many;
};

struct BlockInfo {
  BlockDefs Defs;
  llvm::SmallVector<Block, 2> Preds;
  /// The phis reads left here while the block was unsealed, in creation order.
  llvm::SmallVector<uint32_t, 2> IncompletePhis;
  /// The read that last walked through this block, to find cycles of
  /// single-predecessor blocks.
  uint64_t WalkMark = 0;
  /// The tryUseVar search that last visited this block, and its index there.
  uint64_t SearchMark = 0;
  uint32_t SearchIndex = 0;
  bool Sealed = false;
  bool Filled = false;
  /// No path from the function's entry reaches this block (markUnreachable).
  bool Unreachable = false;
};

struct ValueInfo {
  ValueKind Kind;
  PhiState State = PhiState::Complete;
  /// Set once a tryUseVar search proved that this complete phi only merges
  /// client values; replacements never add new leaves, so it stays true.
  bool KnownDefined = false;
  uint32_t BlockId = NoId;
  uint32_t VarId = NoId;
  uint32_t PhiIndex = NoId;
  /// This value's own id until it is a phi replaced by another value.
  uint32_t Forward;
};

struct PhiInfo {
  uint32_t ValueId;
  llvm::SmallVector<Value, 2> Operands;
  /// Phis that took this one as an operand. Entries may be stale (removed
  /// phis), which are dropped when the list moves to a replacement, or
  /// repeated, which costs a second look at the user and nothing else.
  llvm::SmallVector<uint32_t, 2> Users;
};

/// One step of a read. Read looks for the variable at the end of a block and
/// leaves the answer in Impl::Result; FillPhi appends that answer to a phi
/// and starts the read of its next operand; WriteChain records the answer in
/// the single-predecessor blocks a read walked through.
struct Frame {
  enum KindTy : uint8_t { Read, FillPhi, WriteChain } Kind;
  /// Read: whether the block is a predecessor, whose end the read consults.
  bool ConsultsEnd = false;
  /// Read: the block. FillPhi: the phi. WriteChain: where its blocks start
  /// in Impl::Chain.
  uint32_t A;
  /// FillPhi: the index of the operand whose read comes next.
  uint32_t B = 0;
};

} // namespace

class SSABuilder::Impl {
public:
  std::vector<BlockInfo> Blocks;
  std::vector<ValueInfo> Values;
  std::vector<PhiInfo> Phis;
  bool Finished = false;
  std::vector<Value> Surviving;

  // Scratch state of a read; a read never starts while another runs.
  std::vector<Frame> Frames;
  std::vector<uint32_t> Chain;
  uint32_t ReadVar = NoId; // the variable every frame of the read concerns
  uint32_t Result = NoId;
  uint64_t WalkCounter = 0;
  std::vector<uint32_t> Worklist;

  // Scratch state of tryUseVar's search.
  uint64_t SearchCounter = 0;
  std::vector<uint64_t> ValueSearchMark;
  std::vector<uint32_t> ValueSearchIndex;

  // Scratch state of the cycle removal in finish().
  uint64_t SetCounter = 0;
  std::vector<uint64_t> SetMark;
  std::vector<uint64_t> VisitMark;
  std::vector<uint32_t> TarjanIndex;
  std::vector<uint32_t> TarjanLow;
  std::vector<uint8_t> OnStack;
  std::vector<uint64_t> LocalMark;
  std::vector<uint32_t> LocalIndex;

  uint32_t resolveId(uint32_t V) const;
  bool isReplaced(uint32_t V) const { return Values[V].Forward != V; }
  bool isPhiId(uint32_t V) const { return Values[V].Kind == ValueKind::Phi; }
  bool isNoValueId(uint32_t V) const {
    return Values[V].Kind == ValueKind::NoValue;
  }
  PhiInfo &phi(uint32_t V) {
    assert(isPhiId(V) && "not a phi");
    return Phis[Values[V].PhiIndex];
  }
  const PhiInfo &phi(uint32_t V) const {
    assert(isPhiId(V) && "not a phi");
    return Phis[Values[V].PhiIndex];
  }

  uint32_t newValue(ValueKind Kind, uint32_t BlockId, uint32_t Var);
  uint32_t newPhi(uint32_t BlockId, uint32_t Var, PhiState State);
  uint32_t lookupDef(uint32_t Var, uint32_t BlockId) const;

  uint32_t readVariable(uint32_t Var, uint32_t BlockId);
  void runFrames(uint32_t Var);
  void readFrame(uint32_t Start, bool ConsultsStart);
  void fillPhiFrame(uint32_t P, uint32_t NextOp);
  void writeChain(uint32_t Base);
  void appendOperand(uint32_t P, uint32_t V);
  bool isTrivial(uint32_t P, uint32_t &Same) const;
  uint32_t replacementOf(uint32_t P, uint32_t Same);
  void replacePhi(uint32_t P, uint32_t Same);
  uint32_t tryRemoveTrivialPhi(uint32_t P);
  void seal(uint32_t BlockId);

  bool isDefinedEverywhere(uint32_t Var, uint32_t BlockId);

  void removeRedundantPhiCycles();
  struct SCCList {
    std::vector<uint32_t> Members;
    std::vector<uint32_t> Starts; // Starts[I]..Starts[I+1] is SCC I
    size_t size() const { return Starts.size() - 1; }
    llvm::ArrayRef<uint32_t> scc(size_t I) const {
      return llvm::ArrayRef<uint32_t>(Members).slice(Starts[I],
                                                     Starts[I + 1] - Starts[I]);
    }
  };
  SCCList computeSCCs(llvm::ArrayRef<uint32_t> Set);
  void processSCC(llvm::ArrayRef<uint32_t> SCC);
  void removeMergesOfOneValue(llvm::ArrayRef<uint32_t> SCC, uint64_t InSCC);
};

//===----------------------------------------------------------------------===//
// Values and replacements
//===----------------------------------------------------------------------===//

uint32_t SSABuilder::Impl::resolveId(uint32_t V) const {
  assert(V < Values.size() && "unknown value");
  uint32_t Root = V;
  while (Values[Root].Forward != Root)
    Root = Values[Root].Forward;
  // Point the whole chain at its end so the next walk is one step. The
  // links only cache the replacement relation, which this does not change,
  // so a const query may shorten them.
  auto &Mutable = const_cast<std::vector<ValueInfo> &>(Values);
  while (V != Root) {
    uint32_t Next = Mutable[V].Forward;
    Mutable[V].Forward = Root;
    V = Next;
  }
  return Root;
}

uint32_t SSABuilder::Impl::newValue(ValueKind Kind, uint32_t BlockId,
                                    uint32_t Var) {
  uint32_t Id = uint32_t(Values.size());
  assert(Id != NoId && "too many values");
  ValueInfo VI;
  VI.Kind = Kind;
  VI.BlockId = BlockId;
  VI.VarId = Var;
  VI.Forward = Id;
  Values.push_back(VI);
  return Id;
}

uint32_t SSABuilder::Impl::newPhi(uint32_t BlockId, uint32_t Var,
                                  PhiState State) {
  uint32_t Id = newValue(ValueKind::Phi, BlockId, Var);
  Values[Id].State = State;
  Values[Id].PhiIndex = uint32_t(Phis.size());
  Phis.push_back(PhiInfo{Id, {}, {}});
  return Id;
}

uint32_t SSABuilder::Impl::lookupDef(uint32_t Var, uint32_t BlockId) const {
  uint32_t Def = Blocks[BlockId].Defs.lookup(Var);
  return Def == NoId ? NoId : resolveId(Def);
}

//===----------------------------------------------------------------------===//
// Reading a variable: the paper's readVariable as a state machine
//===----------------------------------------------------------------------===//

uint32_t SSABuilder::Impl::readVariable(uint32_t Var, uint32_t BlockId) {
  assert(Frames.empty() && Chain.empty() && "reads do not nest");
  // The client's own block is read at its current end, which it may still
  // extend, so unlike a predecessor it does not become filled.
  Frames.push_back(Frame{Frame::Read, /*ConsultsEnd=*/false, BlockId});
  runFrames(Var);
  return resolveId(Result);
}

void SSABuilder::Impl::runFrames(uint32_t Var) {
  ReadVar = Var;
  while (!Frames.empty()) {
    Frame F = Frames.back();
    Frames.pop_back();
    switch (F.Kind) {
    case Frame::Read:
      readFrame(F.A, F.ConsultsEnd);
      break;
    case Frame::FillPhi:
      fillPhiFrame(F.A, F.B);
      break;
    case Frame::WriteChain:
      writeChain(F.A);
      break;
    }
  }
  ReadVar = NoId;
}

/// Walks up single-predecessor blocks until one answers: by a definition, by
/// being unsealed (an incomplete phi), by having no predecessor (an undef),
/// or by needing a phi whose operands are further reads.
void SSABuilder::Impl::readFrame(uint32_t Start, bool ConsultsStart) {
  uint64_t Walk = ++WalkCounter;
  uint32_t Base = uint32_t(Chain.size());
  uint32_t Cur = Start;
  bool Consults = ConsultsStart;
  for (;;) {
    BlockInfo &BI = Blocks[Cur];
    if (BI.Unreachable && Consults) {
      // An edge out of unreachable code is never taken: whatever that
      // code defines, the edge carries no value.
      Result = newValue(ValueKind::NoValue, Cur, ReadVar);
      break;
    }
    // A read that asks for the value at a block's end relies on that end
    // staying put; defVar checks this.
    BI.Filled |= Consults;
    Consults = true;
    uint32_t Def = lookupDef(ReadVar, Cur);
    if (Def != NoId) {
      Result = Def;
      break;
    }
    if (BI.Unreachable) {
      // A read in unreachable code sees the definitions made before it in
      // its own block and nothing else: no phi is ever needed there.
      Result = newValue(ValueKind::NoValue, Cur, ReadVar);
      Blocks[Cur].Defs.set(ReadVar, Result);
      break;
    }
    if (!BI.Sealed) {
      // Predecessors may still come: sealBlock will complete this phi.
      Result = newPhi(Cur, ReadVar, PhiState::Incomplete);
      Blocks[Cur].IncompletePhis.push_back(Result);
      Blocks[Cur].Defs.set(ReadVar, Result);
      break;
    }
    if (BI.Preds.empty()) {
      Result = newValue(ValueKind::Undef, Cur, ReadVar);
      Blocks[Cur].Defs.set(ReadVar, Result);
      break;
    }
    if (BI.Preds.size() == 1 && BI.WalkMark != Walk) {
      BI.WalkMark = Walk;
      Chain.push_back(Cur);
      Cur = BI.Preds[0].Id;
      continue;
    }
    // Several predecessors, or a cycle of single-predecessor blocks that
    // defines nothing. Recording the phi before its operands are read is
    // what stops the reads that come back around a cycle.
    uint32_t P = newPhi(Cur, ReadVar, PhiState::Filling);
    Blocks[Cur].Defs.set(ReadVar, P);
    if (Chain.size() > Base)
      Frames.push_back(Frame{Frame::WriteChain, false, Base});
    Frames.push_back(Frame{Frame::FillPhi, false, P, 0});
    return;
  }
  writeChain(Base);
}

void SSABuilder::Impl::writeChain(uint32_t Base) {
  // Recording the answer in every block of the walk is what makes the next
  // read through them take one step (the paper's writeVariable).
  for (size_t I = Base; I < Chain.size(); ++I)
    Blocks[Chain[I]].Defs.set(ReadVar, Result);
  Chain.resize(Base);
}

void SSABuilder::Impl::fillPhiFrame(uint32_t P, uint32_t NextOp) {
  if (NextOp > 0)
    appendOperand(P, Result);
  const BlockInfo &BI = Blocks[Values[P].BlockId];
  if (NextOp < BI.Preds.size()) {
    // The frame that takes the answer goes below the read that makes it.
    Frames.push_back(Frame{Frame::FillPhi, false, P, NextOp + 1});
    Frames.push_back(Frame{Frame::Read, /*ConsultsEnd=*/true,
                           BI.Preds[NextOp].Id});
    return;
  }
  Values[P].State = PhiState::Complete;
  Result = tryRemoveTrivialPhi(P);
}

void SSABuilder::Impl::appendOperand(uint32_t P, uint32_t V) {
  V = resolveId(V);
  phi(P).Operands.push_back(Value{V});
  if (V != P && isPhiId(V))
    phi(V).Users.push_back(P);
}

//===----------------------------------------------------------------------===//
// Trivial phis
//===----------------------------------------------------------------------===//

/// A phi is trivial when its operands other than itself are all one value,
/// which is then left in Same; NoId there means it has no such operand.
/// Operands from unreachable predecessors (NoValue) are never taken, so they
/// count no more than the phi itself.
bool SSABuilder::Impl::isTrivial(uint32_t P, uint32_t &Same) const {
  Same = NoId;
  for (Value Op : phi(P).Operands) {
    uint32_t R = resolveId(Op.Id);
    if (R == Same || R == P || isNoValueId(R))
      continue;
    if (Same != NoId)
      return false;
    Same = R;
  }
  return true;
}

/// What a trivial phi stands for. A phi that only merges itself and
/// edges out of unreachable code is reachable from no root at all: it is in
/// unreachable code itself, where the variable has no value.
uint32_t SSABuilder::Impl::replacementOf(uint32_t P, uint32_t Same) {
  if (Same != NoId)
    return Same;
  return newValue(ValueKind::NoValue, Values[P].BlockId, Values[P].VarId);
}

void SSABuilder::Impl::replacePhi(uint32_t P, uint32_t Same) {
  assert(P != Same && !isReplaced(P) && "replacing a phi twice");
  Values[P].Forward = Same;
  llvm::SmallVector<uint32_t, 2> Users = std::move(phi(P).Users);
  phi(P).Users.clear();
  bool SameIsPhi = isPhiId(Same);
  for (uint32_t U : Users) {
    if (U == P || isReplaced(U))
      continue;
    // U now reads Same where it read P, so it may have become trivial; and
    // should Same go later, U must hear of it.
    Worklist.push_back(U);
    if (SameIsPhi && U != Same)
      phi(Same).Users.push_back(U);
  }
}

uint32_t SSABuilder::Impl::tryRemoveTrivialPhi(uint32_t P0) {
  assert(Worklist.empty() && "trivial-phi removal does not nest");
  Worklist.push_back(P0);
  while (!Worklist.empty()) {
    uint32_t P = Worklist.back();
    Worklist.pop_back();
    if (isReplaced(P) || Values[P].State != PhiState::Complete)
      continue;
    uint32_t Same;
    if (isTrivial(P, Same))
      replacePhi(P, replacementOf(P, Same));
  }
  return resolveId(P0);
}

void SSABuilder::Impl::seal(uint32_t BlockId) {
  assert(!Blocks[BlockId].Sealed && "block sealed twice");
  // Completing a phi reads only its own variable, and that variable has a
  // definition here (the phi), so no read adds to this list meanwhile; the
  // index loop would cope anyway.
  for (size_t I = 0; I < Blocks[BlockId].IncompletePhis.size(); ++I) {
    uint32_t P = Blocks[BlockId].IncompletePhis[I];
    Values[P].State = PhiState::Filling;
    Frames.push_back(Frame{Frame::FillPhi, false, P, 0});
    runFrames(Values[P].VarId);
  }
  Blocks[BlockId].IncompletePhis.clear();
  Blocks[BlockId].Sealed = true;
}

//===----------------------------------------------------------------------===//
// Small graph algorithms, on nodes numbered from 0
//===----------------------------------------------------------------------===//

namespace {

/// Edges kept both ways, since dominators need predecessors and the
/// depth-first search that precedes them needs successors.
struct Graph {
  std::vector<llvm::SmallVector<uint32_t, 2>> Preds, Succs;

  uint32_t size() const { return uint32_t(Preds.size()); }
  uint32_t addNode() {
    Preds.emplace_back();
    Succs.emplace_back();
    return size() - 1;
  }
  void addEdge(uint32_t From, uint32_t To) {
    Succs[From].push_back(To);
    Preds[To].push_back(From);
  }
};

/// Whether every node has a path to one of Targets.
bool allReach(const Graph &G, llvm::ArrayRef<uint32_t> Targets) {
  std::vector<uint8_t> Reaches(G.size(), 0);
  std::vector<uint32_t> Stack(Targets.begin(), Targets.end());
  for (uint32_t T : Targets)
    Reaches[T] = 1;
  while (!Stack.empty()) {
    uint32_t N = Stack.back();
    Stack.pop_back();
    for (uint32_t From : G.Preds[N])
      if (!Reaches[From]) {
        Reaches[From] = 1;
        Stack.push_back(From);
      }
  }
  return std::find(Reaches.begin(), Reaches.end(), 0) == Reaches.end();
}

/// Depth-first preorder from node 0: the nodes in order, each node's number
/// in it, and each node's parent in the search tree.
void depthFirstPreorder(const Graph &G, std::vector<uint32_t> &Order,
                        std::vector<uint32_t> &Num,
                        std::vector<uint32_t> &Parent) {
  Order.assign(1, 0);
  Num.assign(G.size(), NoId);
  Parent.assign(G.size(), NoId);
  Num[0] = 0;
  std::vector<std::pair<uint32_t, uint32_t>> Calls{{0, 0}}; // node, next
  while (!Calls.empty()) {
    auto [V, Next] = Calls.back();
    if (Next == G.Succs[V].size()) {
      Calls.pop_back();
      continue;
    }
    Calls.back().second = Next + 1;
    uint32_t W = G.Succs[V][Next];
    if (Num[W] != NoId)
      continue;
    Num[W] = uint32_t(Order.size());
    Order.push_back(W);
    Parent[W] = V;
    Calls.emplace_back(W, 0);
  }
}

/// Immediate dominators from node 0 by the Semi-NCA algorithm, with path
/// compression done on an explicit stack. Every node must be reachable from
/// node 0; Order is left holding the depth-first preorder.
std::vector<uint32_t> immediateDominators(const Graph &G,
                                          std::vector<uint32_t> &Order) {
  std::vector<uint32_t> Num, Parent;
  depthFirstPreorder(G, Order, Num, Parent);
  assert(Order.size() == G.size() && "a node is unreachable from node 0");
  uint32_t N = G.size();
  // Semidominators, as preorder numbers, from the minimum over each
  // predecessor's path in the forest of the nodes already processed.
  std::vector<uint32_t> Semi(Num), Label(N), Ancestor(N, NoId), Path;
  for (uint32_t V = 0; V < N; ++V)
    Label[V] = V;
  auto Eval = [&](uint32_t V) {
    if (Ancestor[V] == NoId)
      return V;
    // The textbook compresses recursively, updating nodes nearest the root
    // first on the way back; the stack gives the same order.
    for (uint32_t X = V; Ancestor[Ancestor[X]] != NoId; X = Ancestor[X])
      Path.push_back(X);
    while (!Path.empty()) {
      uint32_t X = Path.back();
      Path.pop_back();
      uint32_t A = Ancestor[X];
      if (Semi[Label[A]] < Semi[Label[X]])
        Label[X] = Label[A];
      Ancestor[X] = Ancestor[A];
    }
    return Label[V];
  };
  for (uint32_t I = N; I-- > 1;) {
    uint32_t W = Order[I];
    for (uint32_t V : G.Preds[W])
      Semi[W] = std::min(Semi[W], Semi[Eval(V)]);
    Ancestor[W] = Parent[W];
  }
  // The immediate dominator is the nearest ancestor of the parent whose
  // number is at most the semidominator's.
  std::vector<uint32_t> IDom(Parent);
  IDom[0] = 0;
  for (uint32_t I = 1; I < N; ++I) {
    uint32_t W = Order[I];
    while (Num[IDom[W]] > Semi[W])
      IDom[W] = IDom[IDom[W]];
  }
  return IDom;
}

} // namespace

//===----------------------------------------------------------------------===//
// tryUseVar: is a variable defined on every path?
//===----------------------------------------------------------------------===//

/// Searches, without changing anything, the graph a read would explore:
/// blocks lead to their definition or else to their predecessors, phis to
/// their operands. Undefined means an undef or a sealed block without
/// predecessors is reached, or some node reaches no definition at all (an
/// unreachable region, where a read would make phis of nothing but
/// themselves).
bool SSABuilder::Impl::isDefinedEverywhere(uint32_t Var, uint32_t Start) {
  uint64_t Search = ++SearchCounter;
  if (ValueSearchMark.size() < Values.size()) {
    ValueSearchMark.resize(Values.size(), 0);
    ValueSearchIndex.resize(Values.size(), 0);
  }
  Graph G;
  std::vector<std::pair<uint32_t, bool>> Nodes; // id, is a block
  std::vector<uint32_t> Leaves, Stack;
  // Whether an unsealed block was met: its missing predecessors make the
  // answer provisional, so nothing is cached.
  bool Provisional = false;

  // Edges point from a node to what it reads from; allReach follows them.
  auto Visit = [&](bool IsBlock, uint32_t Id, uint32_t From) {
    uint64_t &Mark = IsBlock ? Blocks[Id].SearchMark : ValueSearchMark[Id];
    uint32_t &Index = IsBlock ? Blocks[Id].SearchIndex : ValueSearchIndex[Id];
    if (Mark != Search) {
      Mark = Search;
      Index = G.addNode();
      Nodes.emplace_back(Id, IsBlock);
      Stack.push_back(Index);
    }
    if (From != NoId)
      G.addEdge(From, Index);
  };
  // Edges out of unreachable code carry no value and need none.
  auto VisitPreds = [&](uint32_t BlockId, uint32_t From) {
    for (Block Pred : Blocks[BlockId].Preds)
      if (!Blocks[Pred.Id].Unreachable)
        Visit(true, Pred.Id, From);
  };

  Visit(true, Start, NoId);
  while (!Stack.empty()) {
    uint32_t N = Stack.back();
    Stack.pop_back();
    auto [Id, IsBlock] = Nodes[N];
    if (IsBlock) {
      uint32_t Def = lookupDef(Var, Id);
      if (Def != NoId) {
        Visit(false, Def, N);
        continue;
      }
      if (Blocks[Id].Unreachable) {
        Leaves.push_back(N);
        continue;
      }
      if (!Blocks[Id].Sealed) {
        // The predecessors still to come are presumed to define it.
        Provisional = true;
        Leaves.push_back(N);
      } else if (Blocks[Id].Preds.empty()) {
        return false;
      }
      VisitPreds(Id, N);
      continue;
    }
    const ValueInfo &VI = Values[Id];
    if (VI.Kind == ValueKind::Undef)
      return false;
    if (VI.Kind == ValueKind::Plain || VI.Kind == ValueKind::NoValue ||
        VI.KnownDefined) {
      Leaves.push_back(N);
    } else if (VI.State == PhiState::Incomplete) {
      Provisional = true;
      Leaves.push_back(N);
      VisitPreds(VI.BlockId, N);
    } else {
      assert(VI.State == PhiState::Complete && "search during a read");
      for (Value Op : phi(Id).Operands)
        Visit(false, resolveId(Op.Id), N);
    }
  }
  if (!allReach(G, Leaves))
    return false;
  if (!Provisional)
    for (auto [Id, IsBlock] : Nodes)
      if (!IsBlock && isPhiId(Id))
        Values[Id].KnownDefined = true;
  return true;
}

//===----------------------------------------------------------------------===//
// finish(): redundant phi cycles (paper section 3.2, Algorithm 5)
//===----------------------------------------------------------------------===//

/// Tarjan's algorithm on the phis of Set and the operand edges among them,
/// with an explicit call stack. SCCs come out operands-first: each one's
/// operands outside it are in SCCs already listed.
SSABuilder::Impl::SCCList
SSABuilder::Impl::computeSCCs(llvm::ArrayRef<uint32_t> Set) {
  uint64_t Gen = ++SetCounter;
  for (uint32_t P : Set)
    SetMark[P] = Gen;
  auto InSet = [&](uint32_t V) {
    return V < SetMark.size() && SetMark[V] == Gen;
  };
  SCCList Out;
  Out.Starts.push_back(0);
  uint32_t Counter = 0;
  std::vector<uint32_t> Stack;
  std::vector<std::pair<uint32_t, uint32_t>> Calls; // phi, next operand
  auto Enter = [&](uint32_t V) {
    VisitMark[V] = Gen;
    TarjanIndex[V] = TarjanLow[V] = Counter++;
    Stack.push_back(V);
    OnStack[V] = 1;
    Calls.emplace_back(V, 0);
  };

  for (uint32_t Root : Set) {
    if (VisitMark[Root] == Gen)
      continue;
    Enter(Root);
    while (!Calls.empty()) {
      auto [V, Next] = Calls.back();
      llvm::ArrayRef<Value> Ops = phi(V).Operands;
      if (Next < Ops.size()) {
        Calls.back().second = Next + 1;
        uint32_t W = resolveId(Ops[Next].Id);
        if (!InSet(W))
          continue;
        if (VisitMark[W] != Gen)
          Enter(W);
        else if (OnStack[W])
          TarjanLow[V] = std::min(TarjanLow[V], TarjanIndex[W]);
        continue;
      }
      Calls.pop_back();
      if (!Calls.empty()) {
        uint32_t Parent = Calls.back().first;
        TarjanLow[Parent] = std::min(TarjanLow[Parent], TarjanLow[V]);
      }
      if (TarjanLow[V] != TarjanIndex[V])
        continue;
      uint32_t W;
      do {
        W = Stack.back();
        Stack.pop_back();
        OnStack[W] = 0;
        Out.Members.push_back(W);
      } while (W != V);
      Out.Starts.push_back(uint32_t(Out.Members.size()));
    }
  }
  return Out;
}

/// Algorithm 5's test of one SCC, whose operands from outside are final.
/// With no outside operand the phis merge nothing: an undef. With one, they
/// all stand for it. With several, a part of the SCC may still reference
/// only itself and one value; see removeMergesOfOneValue.
void SSABuilder::Impl::processSCC(llvm::ArrayRef<uint32_t> SCC) {
  uint64_t Gen = ++SetCounter;
  for (uint32_t P : SCC) {
    assert(!isReplaced(P) && "SCC member already removed");
    SetMark[P] = Gen;
  }
  uint32_t Outer = NoId;
  bool SeveralOuter = false;
  for (uint32_t P : SCC) {
    for (Value Op : phi(P).Operands) {
      uint32_t R = resolveId(Op.Id);
      if ((R < SetMark.size() && SetMark[R] == Gen) || isNoValueId(R))
        continue;
      if (Outer == NoId)
        Outer = R;
      else if (R != Outer)
        SeveralOuter = true;
    }
  }
  if (SeveralOuter) {
    // A lone phi with two outside operands merges two values: nothing in
    // its SCC can stand for it, so the operand graph need not be built.
    if (SCC.size() > 1)
      removeMergesOfOneValue(SCC, Gen);
    return;
  }
  if (Outer == NoId) {
    // Unreachable code, as for a trivial phi of nothing but itself.
    uint32_t First = *std::min_element(SCC.begin(), SCC.end());
    Outer = newValue(ValueKind::NoValue, Values[First].BlockId,
                     Values[First].VarId);
  }
  // User lists are not kept up to date from here on: every user of these
  // phis is in this SCC or a later one and sees them through resolveId.
  for (uint32_t P : SCC)
    Values[P].Forward = Outer;
}

/// The paper finds the redundant parts of an SCC with several outside
/// operands by recursing into its inner phis (those with no outside
/// operand), which peels one layer of phis per step and so takes quadratic
/// time on a nest of loops that all carry a variable (about a second for
/// the tests' 10 000 nested loops, where this takes milliseconds). Instead:
/// a set of phis that references only itself and one value v is one in
/// which every path along operand edges out of the set passes through v, so
/// a phi is in such a set exactly when some value post-dominates it in the
/// SCC's operand graph, every outside operand leading to one exit. The
/// dominator tree of the reversed graph finds all such phis at once, and
/// the value each stands for is its highest post-dominator below the exit.
/// Removing them cannot make the rest redundant: a path that avoided every
/// candidate v before still does once the removed phis are bypassed.
void SSABuilder::Impl::removeMergesOfOneValue(llvm::ArrayRef<uint32_t> SCC,
                                              uint64_t InSCC) {
  if (LocalMark.size() < Values.size()) {
    LocalMark.resize(Values.size(), 0);
    LocalIndex.resize(Values.size(), 0);
  }
  // Node 0 is the exit, then come the distinct outside operands, then the
  // phis; an edge runs from each operand to its user.
  Graph G;
  G.addNode();
  std::vector<uint32_t> ValueOf{NoId};
  uint64_t Gen = ++SetCounter;
  auto LocalOf = [&](uint32_t V) {
    if (LocalMark[V] != Gen) {
      LocalMark[V] = Gen;
      LocalIndex[V] = G.addNode();
      ValueOf.push_back(V);
    }
    return LocalIndex[V];
  };
  // Operands from unreachable code (NoValue) are left out: no path takes
  // them, and every phi still reaches the SCC's two or more real outside
  // operands.
  for (uint32_t P : SCC)
    for (Value Op : phi(P).Operands) {
      uint32_t R = resolveId(Op.Id);
      if ((R >= SetMark.size() || SetMark[R] != InSCC) && !isNoValueId(R))
        G.addEdge(0, LocalOf(R));
    }
  uint32_t FirstPhi = G.size();
  for (uint32_t P : SCC)
    LocalOf(P);
  for (uint32_t L = FirstPhi; L < G.size(); ++L)
    for (Value Op : phi(ValueOf[L]).Operands)
      if (!isNoValueId(resolveId(Op.Id)))
        G.addEdge(LocalOf(resolveId(Op.Id)), L);

  std::vector<uint32_t> Order;
  std::vector<uint32_t> IDom = immediateDominators(G, Order);
  // Dominators come before the nodes they dominate in preorder, so one
  // pass finds each node's highest dominator below the exit.
  std::vector<uint32_t> Top(G.size(), 0);
  for (uint32_t L : Order)
    Top[L] = IDom[L] == 0 ? L : Top[IDom[L]];
  for (uint32_t L = FirstPhi; L < G.size(); ++L)
    if (Top[L] != L)
      Values[ValueOf[L]].Forward = ValueOf[Top[L]];
}

void SSABuilder::Impl::removeRedundantPhiCycles() {
  size_t N = Values.size();
  SetMark.assign(N, 0);
  VisitMark.assign(N, 0);
  TarjanIndex.assign(N, 0);
  TarjanLow.assign(N, 0);
  OnStack.assign(N, 0);

  std::vector<uint32_t> Live;
  for (const PhiInfo &PI : Phis)
    if (!isReplaced(PI.ValueId))
      Live.push_back(PI.ValueId);
  // Operands first, so the outside operands of each SCC are final when it
  // is processed.
  SCCList SCCs = computeSCCs(Live);
  for (size_t I = 0; I < SCCs.size(); ++I)
    processSCC(SCCs.scc(I));
}

//===----------------------------------------------------------------------===//
// SSABuilder
//===----------------------------------------------------------------------===//

SSABuilder::SSABuilder() : I(std::make_unique<Impl>()) {}
SSABuilder::~SSABuilder() = default;
SSABuilder::SSABuilder(SSABuilder &&) noexcept = default;
SSABuilder &SSABuilder::operator=(SSABuilder &&) noexcept = default;

Block SSABuilder::declareBlock() {
  assert(!I->Finished && "declareBlock after finish");
  assert(I->Blocks.size() < NoId && "too many blocks");
  I->Blocks.emplace_back();
  return Block{uint32_t(I->Blocks.size() - 1)};
}

void SSABuilder::addPredecessor(Block B, Block Pred) {
  assert(!I->Finished && "addPredecessor after finish");
  assert(B.Id < I->Blocks.size() && Pred.Id < I->Blocks.size() &&
         "unknown block");
  assert(!I->Blocks[B.Id].Sealed && "predecessor added to a sealed block");
  I->Blocks[B.Id].Preds.push_back(Pred);
}

void SSABuilder::sealBlock(Block B) {
  assert(!I->Finished && "sealBlock after finish");
  assert(B.Id < I->Blocks.size() && "unknown block");
  I->seal(B.Id);
}

void SSABuilder::sealAllBlocks() {
  assert(!I->Finished && "sealAllBlocks after finish");
  for (uint32_t Id = 0; Id < I->Blocks.size(); ++Id)
    if (!I->Blocks[Id].Sealed)
      I->seal(Id);
}

void SSABuilder::markUnreachable(Block B) {
  assert(!I->Finished && "markUnreachable after finish");
  assert(B.Id < I->Blocks.size() && "unknown block");
  BlockInfo &BI = I->Blocks[B.Id];
  assert(!BI.Filled && BI.IncompletePhis.empty() &&
         "markUnreachable on a block a read has already passed through");
  BI.Unreachable = true;
}

bool SSABuilder::isUnreachable(Block B) const {
  assert(B.Id < I->Blocks.size() && "unknown block");
  return I->Blocks[B.Id].Unreachable;
}

unsigned SSABuilder::numBlocks() const { return unsigned(I->Blocks.size()); }

llvm::ArrayRef<Block> SSABuilder::predecessors(Block B) const {
  assert(B.Id < I->Blocks.size() && "unknown block");
  return I->Blocks[B.Id].Preds;
}

bool SSABuilder::isSealed(Block B) const {
  assert(B.Id < I->Blocks.size() && "unknown block");
  return I->Blocks[B.Id].Sealed;
}

Value SSABuilder::createValue() {
  assert(!I->Finished && "createValue after finish");
  return Value{I->newValue(ValueKind::Plain, NoId, NoId)};
}

void SSABuilder::defVar(Variable Var, Value Val, Block B) {
  assert(!I->Finished && "defVar after finish");
  assert(Var.Id != NoId && "UINT32_MAX is not a variable");
  assert(B.Id < I->Blocks.size() && "unknown block");
  assert(Val.Id < I->Values.size() && "unknown value");
  assert(!I->Blocks[B.Id].Filled &&
         "defVar in a block a successor has already read through");
  I->Blocks[B.Id].Defs.set(Var.Id, Val.Id);
}

Value SSABuilder::useVar(Variable Var, Block B) {
  assert(!I->Finished && "useVar after finish");
  assert(Var.Id != NoId && "UINT32_MAX is not a variable");
  assert(B.Id < I->Blocks.size() && "unknown block");
  return Value{I->readVariable(Var.Id, B.Id)};
}

std::optional<Value> SSABuilder::tryUseVar(Variable Var, Block B) {
  assert(!I->Finished && "tryUseVar after finish");
  assert(Var.Id != NoId && "UINT32_MAX is not a variable");
  assert(B.Id < I->Blocks.size() && "unknown block");
  if (!I->isDefinedEverywhere(Var.Id, B.Id))
    return std::nullopt;
  return useVar(Var, B);
}

unsigned SSABuilder::numValues() const { return unsigned(I->Values.size()); }

Value SSABuilder::resolve(Value V) const { return Value{I->resolveId(V.Id)}; }

bool SSABuilder::isPhi(Value V) const {
  assert(V.Id < I->Values.size() && "unknown value");
  return I->Values[V.Id].Kind == ValueKind::Phi;
}

bool SSABuilder::isUndef(Value V) const {
  assert(V.Id < I->Values.size() && "unknown value");
  ValueKind K = I->Values[V.Id].Kind;
  return K == ValueKind::Undef || K == ValueKind::NoValue;
}

bool SSABuilder::isNoValue(Value V) const {
  assert(V.Id < I->Values.size() && "unknown value");
  return I->Values[V.Id].Kind == ValueKind::NoValue;
}

bool SSABuilder::isRemoved(Value V) const {
  return isPhi(V) && I->isReplaced(V.Id);
}

bool SSABuilder::isIncompletePhi(Value V) const {
  return isPhi(V) && I->Values[V.Id].State == PhiState::Incomplete;
}

Block SSABuilder::blockOf(Value V) const {
  assert(V.Id < I->Values.size() && "unknown value");
  assert(I->Values[V.Id].Kind != ValueKind::Plain &&
         "the builder does not know where a client value lives");
  return Block{I->Values[V.Id].BlockId};
}

Variable SSABuilder::variableOf(Value V) const {
  assert(V.Id < I->Values.size() && "unknown value");
  assert(I->Values[V.Id].Kind != ValueKind::Plain &&
         "a client value belongs to no variable");
  return Variable{I->Values[V.Id].VarId};
}

llvm::ArrayRef<Value> SSABuilder::phiOperands(Value Phi) const {
  assert(Phi.Id < I->Values.size() && "unknown value");
  return I->phi(Phi.Id).Operands;
}

void SSABuilder::finish() {
  assert(!I->Finished && "finish called twice");
  for (const BlockInfo &BI : I->Blocks) {
    (void)BI;
    assert(BI.Sealed && "finish requires every block to be sealed");
  }
  I->removeRedundantPhiCycles();
  for (PhiInfo &PI : I->Phis) {
    if (I->isReplaced(PI.ValueId))
      continue;
    for (Value &Op : PI.Operands)
      Op.Id = I->resolveId(Op.Id);
    I->Surviving.push_back(Value{PI.ValueId});
  }
#ifndef NDEBUG
  for (Value P : I->Surviving) {
    uint32_t Same;
    assert(!I->isTrivial(P.Id, Same) && "a trivial phi survived finish");
  }
#endif
  I->Finished = true;
}

bool SSABuilder::isFinished() const { return I->Finished; }

llvm::ArrayRef<Value> SSABuilder::phis() const {
  assert(I->Finished && "phis() is known after finish()");
  return I->Surviving;
}
