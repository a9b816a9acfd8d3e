//===- PrintFlat.cpp - A flattened function as LLVM text to read once -----===//
//
// One walk over the blocks in source order prints each item, records the
// plan's definitions and reads in text order, and records for checkAssigned
// the reads and assignments of every variable, block by block. A first walk
// over the author's phis finds the reads that belong at the end of a
// predecessor, which may be printed before or after the phi.
//
//===----------------------------------------------------------------------===//

#include "PrintFlat.h"
#include "CheckAssigned.h"
#include "Parse.h"
#include "UniqueNames.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llquote/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include <optional>

using namespace llq;
using namespace llvm;

namespace {

struct VarInfo {
  std::string Base;         ///< The name without '%' and quotes.
  unsigned NumDefs = 0;
  bool Forced = false;      ///< Assigned directly, or a loop counter.
  bool Treated = false;     ///< Needs SSA construction.
  bool Defined = false;     ///< A definition has been printed.
  /// Where a read may take the variable's value without a placeholder: in
  /// block LocalBlock (~0u: none), named LocalText. That is the instruction
  /// that last defined it earlier in the block; or, with no definition
  /// since, the placeholder of an earlier read written with type LocalType.
  unsigned LocalBlock = ~0u;
  std::string LocalText;
  llvm::StringRef LocalType; ///< Empty for a definition.
};

/// A local-name token of an instruction, and the type its value has there.
struct Token {
  const Node *N;
  const Node *Type;      ///< The type written before it, or null.
  const char *Implied;   ///< "ptr" or "token" where none is written.
};

/// A read of a variable at the end of a predecessor, for an author's phi.
struct EndRead {
  std::string Name;
  uint32_t K;
  const Node *Type;
  uint32_t At;
};

bool isNumbered(StringRef Name) {
  return !Name.empty() &&
         Name.find_first_not_of("0123456789") == StringRef::npos;
}

class FlatPrinter {
public:
  FlatPrinter(const SyntaxTree &Tree, const FlatFunction &F, StringSet<> &Used,
              const LowerOptions &Opts, StringRef ReadFn, StringRef AssignFn,
              LoweredTextBuilder &Out, const SourceMgr &SM, unsigned BufferID)
      : Tree(Tree), F(F), Names(Used), Opts(Opts), ReadFn(ReadFn),
        AssignFn(AssignFn), Out(Out), SM(SM), BufferID(BufferID) {}

  Error run(const Node *Define, const Node *Body);

private:
  StringRef nameOf(const Node *N) const {
    StringRef S = Tree.text(N);
    S.consume_front("%");
    return S;
  }
  int varOf(const Node *N) const {
    auto It = VarIds.find(nameOf(N));
    return It == VarIds.end() ? -1 : int(It->second);
  }
  void declareVars(const Node *Define, const Node *Body);
  std::vector<Token> tokens(const Node *N) const;
  void access(unsigned Block, uint32_t Var, const Node *ReadAt) {
    Accesses[Block].push_back({Var, ReadAt});
  }
  void setLocal(uint32_t Var, unsigned Block, std::string Text,
                StringRef Type = "") {
    Vars[Var].LocalBlock = Block;
    Vars[Var].LocalText = std::move(Text);
    Vars[Var].LocalType = Type;
  }
  void emitType(const Node *Type, const char *Implied, uint32_t Origin) {
    if (Type)
      Out.copy(Type->Range.Begin, Type->Range.End);
    else
      Out.emit(Implied, Origin);
  }
  /// The text of a read of treated \p Var in \p Block, written with
  /// \p Type (or \p Implied): the block's value of Var (VarInfo) where
  /// there is one, LLVM's parser checking the type of a definition's; else
  /// a new placeholder's name.
  std::string read(uint32_t Var, unsigned Block, const Node *Type,
                   const char *Implied, uint32_t At);
  /// Prints a read placeholder of variable \p Var; returns its name.
  std::string placeholder(uint32_t Var, const Node *Type, const char *Implied,
                          uint32_t At, bool AtEnd);
  /// \p K is the read's index, printed only for a read AtEnd: every other
  /// placeholder is printed in the order of the plan (LoweredText.h).
  void printPlaceholder(const std::string &Name, std::optional<uint32_t> K,
                        const Node *Type, const char *Implied, uint32_t At);
  /// The text of a read of \p O in block \p Block, printing a placeholder
  /// first where it needs one.
  std::string operand(const GenOperand &O, unsigned Block, const Node *Type,
                      const char *Implied);
  /// Records a definition of \p Var at \p At; returns the name to print
  /// for it, or "" to print the name as written.
  std::string define(uint32_t Var, const Node *At, bool ByInstruction,
                     unsigned Block);
  void sourceItem(const FlatItem &I, unsigned Block);
  void assign(uint32_t Var, const Node *At, const Node *Type,
              const GenOperand &Value, unsigned Block);
  void findPhiReads();

  const SyntaxTree &Tree;
  const FlatFunction &F;
  UniqueNamer Names;
  const LowerOptions &Opts;
  StringRef ReadFn, AssignFn;
  LoweredTextBuilder &Out;
  const SourceMgr &SM;
  unsigned BufferID;

  SSAFunction Plan;
  StringMap<uint32_t> VarIds;
  std::vector<VarInfo> Vars;
  std::vector<std::vector<VarAccess>> Accesses, EndAccesses;
  StringMap<unsigned> BlockByName;
  std::vector<std::vector<EndRead>> EndReads;
  DenseMap<const Node *, std::string> PhiReadName;
  DenseSet<const Node *> AtPredecessor; ///< Phi operands read there.
  /// The first read whose type nothing in the text tells.
  const Node *Untyped = nullptr;
  std::vector<std::string> TempText;
};
} // namespace

void FlatPrinter::declareVars(const Node *Define, const Node *Body) {
  auto Declare = [&](const Node *N, bool Forced) {
    StringRef Name = nameOf(N);
    auto [It, New] = VarIds.try_emplace(Name, uint32_t(Vars.size()));
    if (New) {
      StringRef Base = Name;
      if (Base.size() >= 2 && Base.front() == '"' && Base.back() == '"')
        Base = Base.drop_front().drop_back();
      Vars.push_back({Base.str()});
      Plan.Variables.push_back(nameOfToken(Tree.text(N)));
    }
    VarInfo &VI = Vars[It->second];
    ++VI.NumDefs;
    VI.Forced |= Forced;
  };
  for (const Node *C = Define->First; C; C = C->Next)
    if (C->is(NodeKind::Param) && C->Last && C->Last->is(NodeKind::LocalDef))
      Declare(C->Last, false);
  SmallVector<const Node *, 32> Stack{Body};
  while (!Stack.empty()) {
    const Node *N = Stack.pop_back_val();
    for (const Node *C = N->First; C; C = C->Next) {
      if (C->is(NodeKind::LocalDef))
        Declare(C, N->is(NodeKind::Assign) || N->is(NodeKind::For));
      Stack.push_back(C);
    }
  }
  for (VarInfo &VI : Vars)
    VI.Treated = Opts.AllowUndef || VI.Forced || VI.NumDefs > 1;
}

std::vector<Token> FlatPrinter::tokens(const Node *N) const {
  std::vector<Token> Out;
  const Node *LastType = nullptr;
  struct Item {
    const Node *N, *Parent;
  };
  SmallVector<Item, 32> Stack{{N, nullptr}};
  while (!Stack.empty()) {
    auto [C, Parent] = Stack.pop_back_val();
    if (C->is(NodeKind::Type) ||
        (C->is(NodeKind::Antiquote) &&
         static_cast<AntiquoteKind>(C->Sub) == AntiquoteKind::Type)) {
      LastType = C;
      continue; // Type names are not variables.
    }
    if (C->is(NodeKind::LocalRef) || C->is(NodeKind::LabelRef)) {
      Token T{C, LastType, nullptr};
      if (Parent && Parent == N && N->is(NodeKind::Inst)) {
        switch (static_cast<Opcode>(N->Sub)) {
        case Opcode::Call: case Opcode::Invoke: case Opcode::CallBr:
          T = {C, nullptr, "ptr"}; // The callee.
          break;
        case Opcode::CleanupRet: case Opcode::CatchRet:
        case Opcode::CatchSwitch: case Opcode::CatchPad:
        case Opcode::CleanupPad:
          T = {C, nullptr, "token"}; // After `from` or `within`.
          break;
        default:
          break;
        }
      }
      Out.push_back(T);
    }
    size_t Mark = Stack.size();
    for (const Node *K = C->First; K; K = K->Next)
      Stack.push_back({K, C});
    std::reverse(Stack.begin() + Mark, Stack.end());
  }
  return Out;
}

void FlatPrinter::printPlaceholder(const std::string &Name,
                                   std::optional<uint32_t> K,
                                   const Node *Type, const char *Implied,
                                   uint32_t At) {
  Out.markInstruction(At, /*Placeholder=*/true);
  Out.emit("  %" + asmName(Name) + " = call ", At);
  emitType(Type, Implied, At);
  Out.emit(" @" + asmName(ReadFn) +
               (K ? "(i32 " + std::to_string(*K) + ")\n" : "()\n"),
           At);
}

std::string FlatPrinter::placeholder(uint32_t Var, const Node *Type,
                                     const char *Implied, uint32_t At,
                                     bool AtEnd) {
  std::string Name = Names.make(Vars[Var].Base + ".read", "");
  Out.noteSourceName(Name, Vars[Var].Base);
  Plan.Reads.push_back({Var, At, AtEnd});
  if (!AtEnd)
    printPlaceholder(Name, std::nullopt, Type, Implied, At);
  return Name;
}

std::string FlatPrinter::read(uint32_t Var, unsigned Block, const Node *Type,
                              const char *Implied, uint32_t At) {
  StringRef Written = Type ? Tree.text(Type) : StringRef(Implied ? Implied : "");
  const VarInfo &VI = Vars[Var];
  // A placeholder answers only reads of its own type: a read of another
  // type must get its own, so that the error names the right one.
  if (VI.LocalBlock == Block &&
      (VI.LocalType.empty() || (!Written.empty() && VI.LocalType == Written)))
    return VI.LocalText;
  std::string Text = "%" + asmName(placeholder(Var, Type, Implied, At, false));
  if (!Written.empty())
    setLocal(Var, Block, Text, Written);
  return Text;
}

std::string FlatPrinter::operand(const GenOperand &O, unsigned Block,
                                 const Node *Type, const char *Implied) {
  const Node *Ref = nullptr;
  switch (O.K) {
  case GenOperand::Source:
    if (O.Src->is(NodeKind::LocalRef) && varOf(O.Src) >= 0)
      Ref = O.Src;
    else
      return Tree.text(O.Src).str();
    break;
  case GenOperand::Var:
    Ref = O.Src;
    break;
  case GenOperand::TempValue:
    return TempText[O.Temp];
  case GenOperand::Const:
    return O.Text;
  case GenOperand::None:
    llvm_unreachable("operand without a kind");
  }
  uint32_t Var = uint32_t(varOf(Ref));
  access(Block, Var, Ref);
  if (!Vars[Var].Treated)
    return Tree.text(Ref).str();
  return read(Var, Block, Type, Implied, Ref->Range.Begin);
}

std::string FlatPrinter::define(uint32_t Var, const Node *At,
                                bool ByInstruction, unsigned Block) {
  access(Block, Var, nullptr);
  VarInfo &VI = Vars[Var];
  bool First = !VI.Defined;
  VI.Defined = true;
  VI.LocalBlock = ~0u; // The caller sets it for a definition by instruction.
  if (!VI.Treated || !ByInstruction)
    return "";
  SSAFunction::Def D{SSAFunction::Def::Named, Var, At->Range.Begin};
  if (First && isNumbered(VI.Base)) {
    D.How = SSAFunction::Def::Numbered;
    D.Index = unsigned(std::stoul(VI.Base));
    Plan.Defs.push_back(D);
    return "";
  }
  // `x.v`, `x.v1`, ...: never a name nameVersions gives (RestoreSSA.cpp).
  D.Name = First ? Plan.Variables[Var] : Names.make(VI.Base + ".v", "");
  if (!First)
    Out.noteSourceName(D.Name, VI.Base);
  Plan.Defs.push_back(D);
  return First ? "" : D.Name;
}

void FlatPrinter::sourceItem(const FlatItem &I, unsigned Block) {
  const Node *N = I.N;
  uint32_t Pos = N->Range.Begin;
  bool Reads = N->is(NodeKind::Inst) || N->is(NodeKind::DbgRecord);
  // Reads first, each printed before the instruction; then the definition.
  std::vector<std::pair<const Node *, std::string>> Substs;
  if (Reads)
    for (const Token &T : tokens(N)) {
      if (!T.N->is(NodeKind::LocalRef) || varOf(T.N) < 0)
        continue;
      if (AtPredecessor.contains(T.N)) {
        auto Phi = PhiReadName.find(T.N);
        if (Phi != PhiReadName.end())
          Substs.push_back({T.N, "%" + asmName(Phi->second)});
        continue;
      }
      uint32_t Var = uint32_t(varOf(T.N));
      access(Block, Var, T.N);
      if (Vars[Var].Treated && !T.Type && !T.Implied && !Untyped)
        Untyped = T.N;
      if (!Vars[Var].Treated)
        continue;
      std::string Text = read(Var, Block, T.Type, T.Implied, T.N->Range.Begin);
      if (Text != Tree.text(T.N))
        Substs.push_back({T.N, std::move(Text)});
    }
  const Node *Def =
      N->First && N->First->is(NodeKind::LocalDef) ? N->First : nullptr;
  if (Def && N->is(NodeKind::Inst)) {
    uint32_t Var = uint32_t(varOf(Def));
    std::string Name = define(Var, Def, true, Block);
    if (Vars[Var].Treated) // Only a treated variable's reads look it up.
      setLocal(Var, Block,
               Name.empty() ? Tree.text(Def).str() : "%" + asmName(Name));
    if (!Name.empty())
      Substs.insert(Substs.begin(), {Def, "%" + asmName(Name)});
  }
  if (N->is(NodeKind::Inst))
    Out.markInstruction(Pos);
  Out.emit("  ", Pos);
  for (const auto &[Token, Text] : Substs) {
    Out.copy(Pos, Token->Range.Begin);
    Out.emit(Text, Token->Range.Begin);
    Pos = Token->Range.End;
  }
  Out.copy(Pos, N->Range.End);
  Out.emit("\n", N->Range.End);
}

void FlatPrinter::assign(uint32_t Var, const Node *At, const Node *Type,
                         const GenOperand &Value, unsigned Block) {
  std::string V = operand(Value, Block, Type, nullptr);
  define(Var, At, /*ByInstruction=*/false, Block);
  Plan.Defs.push_back({SSAFunction::Def::Assign, Var, At->Range.Begin});
  uint32_t Origin = At->Range.Begin;
  Out.markInstruction(Origin, /*Placeholder=*/true);
  Out.emit("  call void @" + asmName(AssignFn) + "(", Origin);
  emitType(Type, "", Origin);
  Out.emit(" ", Origin);
  if (Value.K == GenOperand::Source && V == Tree.text(Value.Src))
    Out.copy(Value.Src->Range.Begin, Value.Src->Range.End);
  else
    Out.emit(V, Value.K == GenOperand::Source ? Value.Src->Range.Begin : Origin);
  Out.emit(")\n", Origin);
}

void FlatPrinter::findPhiReads() {
  for (unsigned Block : F.Order)
    for (const FlatItem &I : F.Blocks[Block].Items) {
      if (I.K != FlatItem::Source || !I.N->is(NodeKind::Inst) ||
          static_cast<Opcode>(I.N->Sub) != Opcode::Phi)
        continue;
      std::vector<Token> Tokens = tokens(I.N);
      for (size_t K = 0; K + 1 < Tokens.size(); ++K) {
        const Node *T = Tokens[K].N;
        if (!T->is(NodeKind::LocalRef) || varOf(T) < 0 ||
            !Tokens[K + 1].N->is(NodeKind::LabelRef))
          continue;
        auto It = BlockByName.find(nameOf(Tokens[K + 1].N));
        if (It == BlockByName.end())
          continue;
        uint32_t Var = uint32_t(varOf(T));
        EndAccesses[It->second].push_back({Var, T});
        AtPredecessor.insert(T);
        if (!Vars[Var].Treated)
          continue;
        uint32_t KRead = uint32_t(Plan.Reads.size());
        std::string Name =
            placeholder(Var, Tokens[K].Type, nullptr, T->Range.Begin, true);
        EndReads[It->second].push_back({Name, KRead, Tokens[K].Type,
                                        T->Range.Begin});
        PhiReadName[T] = Name;
      }
    }
}

Error FlatPrinter::run(const Node *Define, const Node *Body) {
  for (const Node *C = Define->First; C; C = C->Next)
    if (C->is(NodeKind::GlobalRef))
      Plan.Function = nameOfToken(Tree.text(C));
  declareVars(Define, Body);
  for (unsigned I = 0; I < F.Blocks.size(); ++I)
    BlockByName[F.Blocks[I].Name] = I;
  Accesses.resize(F.Blocks.size());
  EndAccesses.resize(F.Blocks.size());
  EndReads.resize(F.Blocks.size());
  TempText.resize(F.NumTemps);
  findPhiReads();
  unsigned Entry = F.Order.front();
  unsigned ParamNo = 0;
  for (const Node *C = Define->First; C; C = C->Next) {
    if (!C->is(NodeKind::Param))
      continue;
    if (C->Last && C->Last->is(NodeKind::LocalDef)) {
      uint32_t Var = uint32_t(varOf(C->Last));
      access(Entry, Var, nullptr);
      Vars[Var].Defined = true;
      if (Vars[Var].Treated) {
        SSAFunction::Def D{SSAFunction::Def::Param, Var, C->Last->Range.Begin};
        D.Index = ParamNo;
        Plan.Defs.push_back(D);
      }
    }
    ++ParamNo;
  }

  Out.beginFunction(Plan.Function);
  Out.emit("{\n", Body->Range.Begin);
  for (unsigned Block : F.Order) {
    const FlatBlock &FB = F.Blocks[Block];
    uint32_t At = FB.Origin ? FB.Origin->Range.Begin : Body->Range.Begin;
    Out.emit(FB.Name + ":\n", At);
    for (size_t K = 0; K < FB.Items.size(); ++K) {
      const FlatItem &I = FB.Items[K];
      uint32_t Origin = I.N ? I.N->Range.Begin : At;
      if (K + 1 == FB.Items.size())
        for (const EndRead &R : EndReads[Block])
          printPlaceholder(R.Name, R.K, R.Type, nullptr, R.At);
      switch (I.K) {
      case FlatItem::Source:
        sourceItem(I, Block);
        break;
      case FlatItem::Assign: {
        const Node *Def = I.N->First, *TypeN = Def->Next, *Val = TypeN->Next;
        assign(uint32_t(varOf(Def)), I.N, TypeN, GenOperand::source(Val),
               Block);
        break;
      }
      case FlatItem::SetVar:
        assign(uint32_t(varOf(I.Var)), I.N, I.Type, I.Lhs, Block);
        break;
      case FlatItem::Bind:
        TempText[I.Temp] = operand(I.Lhs, Block, I.Type, nullptr);
        break;
      case FlatItem::Compare:
      case FlatItem::Arith: {
        std::string L = operand(I.Lhs, Block, I.Type, nullptr);
        std::string R = operand(I.Rhs, Block, I.Type, nullptr);
        std::string Result;
        if (I.K == FlatItem::Arith && I.Var) {
          uint32_t Var = uint32_t(varOf(I.Var));
          Result = define(Var, I.N, true, Block);
          if (Result.empty())
            Result = Vars[Var].Base;
          setLocal(Var, Block, "%" + asmName(Result));
        } else {
          Result = F.TempNames[I.Temp];
          TempText[I.Temp] = "%" + asmName(Result);
        }
        Out.markInstruction(Origin);
        Out.emit("  %" + asmName(Result) + " = " +
                     (I.K == FlatItem::Compare ? "icmp " : "") + I.Op + " ",
                 Origin);
        emitType(I.Type, "", Origin);
        Out.emit(" " + L + ", " + R + "\n", Origin);
        break;
      }
      case FlatItem::CondBr: {
        std::string C = operand(I.Lhs, Block, nullptr, "i1");
        Out.markInstruction(Origin);
        Out.emit("  br i1 " + C + ", label %" + F.Blocks[I.Targets[0]].Name +
                     ", label %" + F.Blocks[I.Targets[1]].Name + "\n",
                 Origin);
        break;
      }
      case FlatItem::Br:
        Out.markInstruction(Origin);
        Out.emit("  br label %" + F.Blocks[I.Targets[0]].Name + "\n", Origin);
        break;
      }
    }
  }
  Out.emit("}", Body->Range.End - 1);

  if (Untyped)
    return makeError(SM, locAt(SM, BufferID, Untyped->Range.Begin),
                     "cannot tell the type of this read of '" +
                         Tree.text(Untyped) +
                         "', which is assigned more than once; write its "
                         "type before it");
  if (!Opts.AllowUndef) {
    for (unsigned I = 0; I < F.Blocks.size(); ++I)
      Accesses[I].insert(Accesses[I].end(), EndAccesses[I].begin(),
                         EndAccesses[I].end());
    if (Error E = checkAssigned(Tree, F, Accesses, F.reachable(),
                                unsigned(Vars.size()), SM, BufferID))
      return E;
  }
  if (!Plan.Defs.empty() || !Plan.Reads.empty())
    Out.addSSA(std::move(Plan));
  return Error::success();
}

Error llq::printFlat(const SyntaxTree &Tree, const Node *Define,
                     const Node *Body, const FlatFunction &F,
                     StringSet<> &UsedNames, const LowerOptions &Opts,
                     StringRef ReadFn, StringRef AssignFn,
                     LoweredTextBuilder &Out, const SourceMgr &SM,
                     unsigned BufferID) {
  return FlatPrinter(Tree, F, UsedNames, Opts, ReadFn, AssignFn, Out, SM,
                     BufferID)
      .run(Define, Body);
}
