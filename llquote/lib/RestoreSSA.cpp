//===- RestoreSSA.cpp - Variables of a read module to SSA -----------------===//
//
// Per function: find what the plan names (the placeholders by their K, the
// definitions by name, number or argument), check the types, build SSA
// (Braun et al., or LLVM's PromoteMemToReg in the reference mode), replace
// and delete the placeholders, and name the versions.
//
//===----------------------------------------------------------------------===//

#include "RestoreSSA.h"
#include "FoldPoisonPhis.h"
#include "Parse.h"
#include "PrintedType.h"
#include "llquote/Diagnostics.h"
#include "llquote/ssa/SSABuilder.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/ValueSymbolTable.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

using namespace llq;
using namespace llvm;

namespace {

class Restorer {
public:
  Restorer(Function &F, const SSAFunction &P, Function *ReadFn,
           Function *AssignFn, const RestoreOptions &Opts,
           const SourceMgr &SM, unsigned BufferID, InsertedPhis *Inserted)
      : F(F), P(P), ReadFn(ReadFn), AssignFn(AssignFn), Opts(Opts), SM(SM),
        BufferID(BufferID), Inserted(Inserted) {}

  Error run();

private:
  Error error(uint32_t At, const Twine &Msg) {
    return makeError(SM, locAt(SM, BufferID, At), Msg);
  }
  std::string varName(uint32_t Var) const {
    return "'%" + asmName(P.Variables[Var]) + "'";
  }
  /// Where a walk of the function in layout order stands among the
  /// placeholders, which lowering prints in the plan's order without their
  /// numbers (LoweredText.h).
  struct Cursor {
    size_t Read = 0, Assign = 0;
  };
  /// If \p I is a read placeholder, its index into P.Reads, else -1; a
  /// placeholder that matches no read is P.Reads.size(). A walk calls this
  /// on each instruction in layout order, with one \p C.
  int64_t readAt(const Instruction &I, Cursor &C) const {
    auto *CI = dyn_cast<CallInst>(&I);
    if (!CI || CI->getCalledOperand() != ReadFn)
      return -1;
    if (CI->arg_size() == 1) { // A read AtEnd, numbered.
      auto *K = dyn_cast<ConstantInt>(CI->getArgOperand(0));
      return K && K->getZExtValue() < P.Reads.size() &&
                     P.Reads[K->getZExtValue()].AtEnd
                 ? int64_t(K->getZExtValue())
                 : int64_t(P.Reads.size());
    }
    if (CI->arg_size() == 0 && C.Read < InOrderReads.size())
      return InOrderReads[C.Read++];
    return int64_t(P.Reads.size());
  }
  /// If \p I is an assignment placeholder, its index into P.Defs, else -1;
  /// one that matches no definition is P.Defs.size().
  int64_t assignAt(const Instruction &I, Cursor &C) const {
    auto *CI = dyn_cast<CallInst>(&I);
    if (!CI || CI->getCalledOperand() != AssignFn)
      return -1;
    if (CI->arg_size() == 1 && C.Assign < AssignDefs.size())
      return AssignDefs[C.Assign++];
    return int64_t(P.Defs.size());
  }
  Error find();
  Error checkTypes();
  void braun();
  void promote();
  void nameVersions();

  Function &F;
  const SSAFunction &P;
  Function *ReadFn, *AssignFn;
  const RestoreOptions &Opts;
  const SourceMgr &SM;
  unsigned BufferID;
  InsertedPhis *Inserted;

  /// The reads not AtEnd, and the definitions by assignment, in order:
  /// what the placeholders stand for, in the order they are printed.
  std::vector<uint32_t> InOrderReads, AssignDefs;
  std::vector<Value *> DefValue;     ///< By definition.
  std::vector<CallInst *> ReadCall;  ///< By read.
  std::vector<CallInst *> AssignCall; ///< By definition; null if not one.
  DenseMap<const Value *, uint32_t> DefOf; ///< Instruction or argument.
  std::vector<int> FirstDef;         ///< By variable.
  std::vector<Type *> VarType;       ///< By variable.
  /// By variable: whether a placeholder reads it. One that none reads has
  /// every read named its definition in the block (PrintFlat.h), so it
  /// needs no construction: only its versions are named.
  std::vector<bool> IsRead;
  /// Values that are versions of a variable: to be named `x.N`.
  DenseMap<Value *, uint32_t> Versions;
  std::vector<PHINode *> BuilderPhis;
  /// The blocks in layout order, as find() walked them.
  std::vector<BasicBlock *> BBs;
  /// The author's phis, found by find() in the reference mode: every other
  /// phi after PromoteMemToReg is one of its.
  DenseSet<PHINode *> AuthorPhis;
  bool AnyPoison = false;
};
} // namespace

Error Restorer::find() {
  DefValue.assign(P.Defs.size(), nullptr);
  AssignCall.assign(P.Defs.size(), nullptr);
  ReadCall.assign(P.Reads.size(), nullptr);
  for (size_t K = 0; K < P.Reads.size(); ++K)
    if (!P.Reads[K].AtEnd)
      InOrderReads.push_back(uint32_t(K));
  for (size_t K = 0; K < P.Defs.size(); ++K)
    if (P.Defs[K].How == SSAFunction::Def::Assign)
      AssignDefs.push_back(uint32_t(K));
  Cursor C;
  // Numbered values, in the order LLVM numbers them.
  std::vector<Value *> Numbered;
  auto Number = [&](Value &V) {
    if (!V.hasName() && !V.getType()->isVoidTy())
      Numbered.push_back(&V);
  };
  for (Argument &A : F.args())
    Number(A);
  for (BasicBlock &BB : F) {
    BBs.push_back(&BB);
    Number(BB);
    for (Instruction &I : BB) {
      Number(I);
      if (Opts.Mem2Reg)
        if (auto *PN = dyn_cast<PHINode>(&I))
          AuthorPhis.insert(PN);
      if (int64_t K = readAt(I, C); K >= 0) {
        if (K == int64_t(P.Reads.size()))
          return error(P.Reads.empty() ? 0 : P.Reads.back().At,
                       "internal error: a read placeholder that lowering "
                       "did not plan");
        ReadCall[K] = cast<CallInst>(&I);
      }
      if (int64_t K = assignAt(I, C); K >= 0) {
        if (K == int64_t(P.Defs.size()))
          return error(P.Defs.empty() ? 0 : P.Defs.back().At,
                       "internal error: an assignment placeholder that "
                       "lowering did not plan");
        AssignCall[K] = cast<CallInst>(&I);
        DefValue[K] = AssignCall[K]->getArgOperand(0);
      }
    }
  }
  for (size_t K = 0; K < P.Defs.size(); ++K) {
    const SSAFunction::Def &D = P.Defs[K];
    switch (D.How) {
    case SSAFunction::Def::Param:
      if (D.Index < F.arg_size())
        DefValue[K] = F.getArg(D.Index);
      break;
    case SSAFunction::Def::Named:
      DefValue[K] = F.getValueSymbolTable()->lookup(D.Name);
      break;
    case SSAFunction::Def::Numbered:
      if (D.Index < Numbered.size())
        DefValue[K] = Numbered[D.Index];
      break;
    case SSAFunction::Def::Assign:
      break;
    }
    if (!DefValue[K])
      return error(D.At, "internal error: LLVM's reading of this definition "
                         "of " + varName(D.Var) + " cannot be found");
    if (D.How != SSAFunction::Def::Assign)
      DefOf[DefValue[K]] = uint32_t(K);
  }
  IsRead.assign(P.Variables.size(), false);
  for (const SSAFunction::Read &R : P.Reads)
    IsRead[R.Var] = true;
  for (size_t K = 0; K < P.Reads.size(); ++K)
    if (!ReadCall[K])
      return error(P.Reads[K].At, "internal error: LLVM's reading of this "
                                  "read of " + varName(P.Reads[K].Var) +
                                  " cannot be found");
  return Error::success();
}

Error Restorer::checkTypes() {
  FirstDef.assign(P.Variables.size(), -1);
  VarType.assign(P.Variables.size(), nullptr);
  for (size_t K = 0; K < P.Defs.size(); ++K) {
    const SSAFunction::Def &D = P.Defs[K];
    Type *T = DefValue[K]->getType();
    if (FirstDef[D.Var] < 0) {
      FirstDef[D.Var] = int(K);
      VarType[D.Var] = T;
      continue;
    }
    if (T == VarType[D.Var])
      continue;
    auto E = std::make_unique<DiagnosticError>(SM.GetMessage(
        locAt(SM, BufferID, D.At), SourceMgr::DK_Error,
        varName(D.Var) + " is assigned a value of type '" + printed(T) +
            "' here, but a value of type '" + printed(VarType[D.Var]) +
            "' elsewhere"));
    E->addNote(SM.GetMessage(
        locAt(SM, BufferID, P.Defs[FirstDef[D.Var]].At), SourceMgr::DK_Note,
        varName(D.Var) + " is assigned a '" + printed(VarType[D.Var]) +
            "' here"));
    return Error(std::move(E));
  }
  // The first read, in the text, whose type is not its variable's.
  int Bad = -1;
  for (size_t K = 0; K < P.Reads.size(); ++K) {
    const SSAFunction::Read &R = P.Reads[K];
    Type *Want = ReadCall[K]->getType();
    if (VarType[R.Var] && Want != VarType[R.Var] &&
        (Bad < 0 || R.At < P.Reads[Bad].At))
      Bad = int(K);
  }
  if (Bad >= 0) {
    const SSAFunction::Read &R = P.Reads[Bad];
    return error(R.At, varName(R.Var) + " defined with type '" +
                           printed(VarType[R.Var]) + "' but expected '" +
                           printed(ReadCall[Bad]->getType()) + "'");
  }
  for (size_t K = 0; K < P.Reads.size(); ++K)
    if (!VarType[P.Reads[K].Var]) // Only under AllowUndef: never assigned.
      VarType[P.Reads[K].Var] = ReadCall[K]->getType();
  // Every instruction that defines a variable, but the first definition
  // when it is one, is a version.
  for (size_t K = 0; K < P.Defs.size(); ++K)
    if (P.Defs[K].How == SSAFunction::Def::Named ||
        P.Defs[K].How == SSAFunction::Def::Numbered)
      if (FirstDef[P.Defs[K].Var] != int(K))
        Versions[DefValue[K]] = P.Defs[K].Var;
  return Error::success();
}

void Restorer::braun() {
  ssa::SSABuilder B;
  // Each block's successors by index, read once from its terminator: every
  // later walk of the CFG reads this array, not the IR, which in a function
  // larger than the cache costs a miss per block and walk.
  DenseMap<const BasicBlock *, unsigned> Index;
  Index.reserve(BBs.size());
  for (unsigned I = 0; I < BBs.size(); ++I) {
    Index[BBs[I]] = I;
    B.declareBlock();
  }
  std::vector<unsigned> SuccBegin{0}, Succ;
  Succ.reserve(BBs.size() * 2);
  for (BasicBlock *BB : BBs) {
    for (BasicBlock *S : successors(BB))
      Succ.push_back(Index.lookup(S));
    SuccBegin.push_back(unsigned(Succ.size()));
  }
  auto Successors = [&](unsigned I) {
    return ArrayRef<unsigned>(Succ).slice(SuccBegin[I],
                                          SuccBegin[I + 1] - SuccBegin[I]);
  };
  auto Blk = [](unsigned I) { return ssa::Block{I}; };
  std::vector<unsigned> NumPreds(BBs.size()), Seen(BBs.size());
  for (unsigned S : Succ)
    ++NumPreds[S];
  // Edges out of unreachable code carry no value into a phi, and no phi is
  // placed in it (ssa/README.md).
  std::vector<uint8_t> Reachable(BBs.size());
  SmallVector<unsigned, 32> Work{0};
  Reachable[0] = true;
  while (!Work.empty())
    for (unsigned S : Successors(Work.pop_back_val()))
      if (!Reachable[S]) {
        Reachable[S] = true;
        Work.push_back(S);
      }
  for (unsigned I = 0; I < BBs.size(); ++I) {
    if (!Reachable[I])
      B.markUnreachable(Blk(I));
    if (!NumPreds[I])
      B.sealBlock(Blk(I));
  }

  // Client values: LLVM's, one per llvm::Value, so that equal constants
  // are one value and a phi of `5` and `5` is trivial.
  DenseMap<Value *, ssa::Value> Client;
  Client.reserve(P.Defs.size() + P.Reads.size());
  std::vector<Value *> ById;
  auto ValueOf = [&](Value *V) {
    auto [It, New] = Client.try_emplace(V, ssa::Value{0});
    if (New) {
      It->second = B.createValue();
      ById.resize(B.numValues(), nullptr);
      ById[It->second.Id] = V;
    }
    return It->second;
  };
  // Definition K of a variable some placeholder reads, by \p V in block I.
  auto DefVar = [&](size_t K, Value *V, unsigned I) {
    if (IsRead[P.Defs[K].Var])
      B.defVar(ssa::Variable{P.Defs[K].Var}, ValueOf(V), Blk(I));
  };
  std::vector<ssa::Value> ReadValue(P.Reads.size(), ssa::Value{0});
  for (size_t K = 0; K < P.Defs.size(); ++K)
    if (P.Defs[K].How == SSAFunction::Def::Param)
      DefVar(K, DefValue[K], 0);
  SmallVector<uint32_t, 8> AtEnd;
  Cursor C; // find() checked that every placeholder matches.
  for (unsigned I = 0; I < BBs.size(); ++I) {
    for (Instruction &Inst : *BBs[I]) {
      if (int64_t K = readAt(Inst, C); K >= 0) {
        if (P.Reads[K].AtEnd) {
          AtEnd.push_back(uint32_t(K));
          continue;
        }
        ReadValue[K] = B.useVar(ssa::Variable{P.Reads[K].Var}, Blk(I));
        Client[&Inst] = ReadValue[K];
        continue;
      }
      if (int64_t K = assignAt(Inst, C); K >= 0) {
        DefVar(size_t(K), DefValue[K], I);
        continue;
      }
      if (auto It = DefOf.find(&Inst); It != DefOf.end())
        DefVar(It->second, &Inst, I);
    }
    for (uint32_t K : AtEnd)
      ReadValue[K] = B.useVar(ssa::Variable{P.Reads[K].Var}, Blk(I));
    AtEnd.clear();
    for (unsigned SI : Successors(I)) {
      B.addPredecessor(Blk(SI), Blk(I));
      if (++Seen[SI] == NumPreds[SI])
        B.sealBlock(Blk(SI));
    }
  }
  B.sealAllBlocks();
  B.finish();

  // The phis, in creation order at the top of their blocks, before the
  // author's.
  std::vector<Instruction *> Top(BBs.size());
  for (unsigned I = 0; I < BBs.size(); ++I)
    Top[I] = BBs[I]->empty() ? nullptr : &BBs[I]->front();
  DenseMap<uint32_t, PHINode *> PhiOf;
  for (ssa::Value Phi : B.phis()) {
    unsigned I = B.blockOf(Phi).Id;
    uint32_t Var = B.variableOf(Phi).Id;
    PHINode *PN = PHINode::Create(VarType[Var],
                                  unsigned(B.predecessors(Blk(I)).size()));
    PN->insertBefore(Top[I]);
    PhiOf[Phi.Id] = PN;
    Versions[PN] = Var;
    BuilderPhis.push_back(PN);
    if (Inserted)
      Inserted->insert(PN);
  }
  auto LLVMValue = [&](ssa::Value V) -> Value * {
    V = B.resolve(V);
    if (B.isUndef(V))
      return PoisonValue::get(VarType[B.variableOf(V).Id]);
    if (B.isPhi(V))
      return PhiOf.lookup(V.Id);
    return ById[V.Id];
  };
  for (ssa::Value Phi : B.phis()) {
    PHINode *PN = PhiOf[Phi.Id];
    ArrayRef<ssa::Block> Preds = B.predecessors(B.blockOf(Phi));
    ArrayRef<ssa::Value> Ops = B.phiOperands(Phi);
    for (size_t K = 0; K < Ops.size(); ++K) {
      AnyPoison |= B.isUndef(B.resolve(Ops[K]));
      PN->addIncoming(LLVMValue(Ops[K]), BBs[Preds[K].Id]);
    }
  }
  for (size_t K = 0; K < P.Reads.size(); ++K) {
    ReadCall[K]->replaceAllUsesWith(LLVMValue(ReadValue[K]));
    ReadCall[K]->eraseFromParent();
  }
  for (CallInst *CI : AssignCall)
    if (CI)
      CI->eraseFromParent();
}

void Restorer::promote() {
  BasicBlock &Entry = F.getEntryBlock();
  Instruction *First = &Entry.front();
  unsigned AS = F.getParent()->getDataLayout().getAllocaAddrSpace();
  std::vector<AllocaInst *> Slots(P.Variables.size(), nullptr);
  StringMap<uint32_t> SlotVar;
  for (uint32_t V = 0; V < P.Variables.size(); ++V) {
    if (!VarType[V] || !IsRead[V])
      continue;
    Slots[V] = new AllocaInst(VarType[V], AS, P.Variables[V] + ".slot", First);
    SlotVar[Slots[V]->getName()] = V;
  }
  auto StoreAfter = [&](Value *V, uint32_t Var, Instruction *I) {
    Instruction *At = isa<PHINode>(I)
                          ? &*I->getParent()->getFirstInsertionPt()
                          : I->getNextNode();
    if (At)
      new StoreInst(V, Slots[Var], At);
  };
  // Only what find() located is visited, not every instruction. A store
  // goes right after its definition, before anything later put there; a
  // load goes at its read.
  for (size_t K = 0; K < P.Defs.size(); ++K) {
    const SSAFunction::Def &D = P.Defs[K];
    if (!Slots[D.Var])
      continue;
    if (D.How == SSAFunction::Def::Param)
      new StoreInst(DefValue[K], Slots[D.Var], First);
    else if (D.How != SSAFunction::Def::Assign)
      if (auto *I = dyn_cast<Instruction>(DefValue[K]); I && !I->isTerminator())
        StoreAfter(I, D.Var, I);
  }
  for (size_t K = 0; K < P.Reads.size(); ++K) {
    uint32_t Var = P.Reads[K].Var;
    auto *L = new LoadInst(VarType[Var], Slots[Var], "", ReadCall[K]);
    ReadCall[K]->replaceAllUsesWith(L);
    ReadCall[K]->eraseFromParent();
  }
  for (size_t K = 0; K < P.Defs.size(); ++K)
    if (CallInst *CI = AssignCall[K]) {
      // Its operand, when a read, is a load by now.
      if (AllocaInst *Slot = Slots[P.Defs[K].Var])
        new StoreInst(CI->getArgOperand(0), Slot, CI);
      CI->eraseFromParent();
    }
  std::vector<AllocaInst *> Promote;
  for (AllocaInst *AI : Slots)
    if (AI)
      Promote.push_back(AI);
  DominatorTree DT(F);
  PromoteMemToReg(Promote, DT);
  // PromoteMemToReg names its phis after the slot: `x.slot.N`.
  for (BasicBlock &BB : F)
    for (PHINode &PN : BB.phis())
      if (!AuthorPhis.contains(&PN)) {
        auto It = SlotVar.find(PN.getName().rsplit('.').first);
        if (It != SlotVar.end())
          Versions[&PN] = It->second;
        PN.setName(""); // nameVersions names it.
        if (Inserted)
          Inserted->insert(&PN);
      }
}

/// One walk in text order names each version at its first mention. No
/// version's name need be cleared first: the builder's phis are unnamed,
/// PromoteMemToReg's are cleared in promote(), and lowering names versions
/// `x.v`, `x.v1`, ... (PrintFlat.cpp), whose last part is never all digits,
/// so no name still to be replaced takes one this walk gives. A version is
/// looked up by address before its memory is read: most operands are not
/// versions, and reading each one's name costs a cache miss per operand in
/// a function larger than the cache.
void Restorer::nameVersions() {
  std::vector<unsigned> Next(P.Variables.size(), 1);
  auto Name = [&](Value *V) {
    auto It = Versions.find(V);
    if (It == Versions.end())
      return;
    uint32_t Var = It->second;
    Versions.erase(It);
    // LLVM's symbol table makes a taken name unique by appending to it;
    // then the next number is tried. Taken names are rare: most versions
    // are named with one lookup, not a lookup and then an insertion.
    SmallString<32> N;
    do {
      N = P.Variables[Var];
      N += '.';
      N += std::to_string(Next[Var]++);
      V->setName(N);
    } while (V->getName() != StringRef(N));
  };
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      Name(&I);
      for (Value *Op : I.operands())
        Name(Op);
    }
}

Error Restorer::run() {
  if (Error E = find())
    return E;
  if (Error E = checkTypes())
    return E;
  if (Opts.Mem2Reg)
    promote();
  else
    braun();
  nameVersions();
  if (Opts.AllowUndef && AnyPoison)
    foldPoisonPhis(F, BuilderPhis, Inserted);
  return Error::success();
}

Error llq::restoreSSA(Module &M, const LoweredText &L,
                      const RestoreOptions &Opts, const SourceMgr &SM,
                      unsigned BufferID, InsertedPhis *Inserted) {
  if (L.SSA.empty())
    return Error::success();
  Function *ReadFn = M.getFunction(L.ReadFn);
  Function *AssignFn = M.getFunction(L.AssignFn);
  for (const SSAFunction &P : L.SSA) {
    Function *F = M.getFunction(P.Function);
    if (!F || F->isDeclaration())
      return makeError(SM, locAt(SM, BufferID, 0),
                       "internal error: function '@" + P.Function +
                           "' was not read as lowering wrote it");
    if (Error E = Restorer(*F, P, ReadFn, AssignFn, Opts, SM, BufferID,
                           Inserted)
                      .run())
      return E;
  }
  for (Function *Fn : {ReadFn, AssignFn})
    if (Fn && Fn->use_empty())
      Fn->eraseFromParent();
  return Error::success();
}
