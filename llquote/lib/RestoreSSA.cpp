//===- RestoreSSA.cpp - Variables of a flattened function to SSA ----------===//
//
// Two phases. First, blocks are processed in source order: each read asks the
// SSA builder for the reaching value, each definition records a new one, and
// a block's terminator adds its edges, sealing a successor once all of its
// predecessors are in. Then the builder finishes (removing redundant phi
// cycles), names its surviving phis, and the body is printed with every
// local name replaced by the name of the value it now denotes.
//
//===----------------------------------------------------------------------===//

#include "RestoreSSA.h"
#include "CheckAssigned.h"
#include "Parse.h"
#include "UniqueNames.h"
#include "llquote/Diagnostics.h"
#include "llquote/ssa/SSABuilder.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include <optional>

using namespace llq;
using namespace llvm;

namespace {

/// What the restorer knows of one variable.
struct VarInfo {
  ssa::Variable Id;
  std::string Base;           ///< The name without '%' and quotes.
  std::string Type;           ///< Its type, as written; empty if unknown.
  const Node *TypeAt = nullptr; ///< The definition that fixed the type.
  bool Defined = false;       ///< The first definition has kept the name.
  unsigned NextVersion = 1;
};

/// A local-name token of an instruction and what replaces it.
struct Subst {
  const Node *Token;
  ssa::Value V;
};

/// Per flattened item: the values its generated text needs.
struct ItemValues {
  std::vector<Subst> Substs; ///< Source items.
  ssa::Value Lhs{0}, Rhs{0};
  bool HasLhs = false, HasRhs = false;
  ssa::Value Result{0};      ///< Compare / Arith result.
  /// Reference mode: loads before the item and stores after it.
  std::vector<std::pair<uint32_t, std::string>> Loads;
  std::vector<std::pair<uint32_t, ssa::Value>> Stores;
};

bool isPlainName(StringRef S) {
  if (S.empty() || isdigit(static_cast<unsigned char>(S[0])))
    return false;
  return S.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRST"
                             "UVWXYZ0123456789-$._") == StringRef::npos;
}

std::string normalizeType(StringRef T) {
  std::string S;
  for (char C : T)
    if (!isspace(static_cast<unsigned char>(C)))
      S += C;
  // `ptr addrspace(0)` is `ptr`, as LLVM holds it to be.
  static constexpr StringRef Space = "ptraddrspace(";
  for (size_t At = S.find(Space.data(), 0, Space.size()); At != std::string::npos;
       At = S.find(Space.data(), At + 3, Space.size())) {
    size_t Digits = At + Space.size(), End = Digits;
    while (End < S.size() && S[End] == '0')
      ++End;
    if (End > Digits && End < S.size() && S[End] == ')')
      S.erase(At + 3, End + 1 - (At + 3));
  }
  return S;
}

/// `<N x T>` splits into N and T; anything else gives nullopt.
std::optional<std::pair<StringRef, StringRef>> vectorParts(StringRef T) {
  T = T.trim();
  if (!T.consume_front("<") || !T.consume_back(">"))
    return std::nullopt;
  auto [N, Rest] = T.split(" x ");
  if (Rest.empty() || N.trim().starts_with("vscale"))
    return std::nullopt;
  return std::make_pair(N.trim(), Rest.trim());
}

class Restorer {
public:
  Restorer(const SyntaxTree &Tree, const FlatFunction &F, StringSet<> &Used,
           const LowerOptions &Opts, LoweredTextBuilder &Out,
           const SourceMgr &SM, unsigned BufferID)
      : Tree(Tree), F(F), Used(Used), Names(Used), Opts(Opts), Out(Out),
        SM(SM), BufferID(BufferID) {}

  Error run(const Node *Define, const Node *Body);

private:
  Error error(const Node *At, const Twine &Msg) {
    return makeError(SM, locAt(SM, BufferID, At->Range.Begin), Msg);
  }
  StringRef nameOf(const Node *N) const {
    StringRef S = Tree.text(N);
    S.consume_front("%");
    return S;
  }
  VarInfo *varOf(const Node *N) {
    auto It = Vars.find(nameOf(N));
    return It == Vars.end() ? nullptr : &It->second;
  }
  void declareVars(const Node *Define, const Node *Body);
  ssa::Value textValue(std::string Text) {
    ssa::Value V = B.createValue();
    setText(V, std::move(Text));
    return V;
  }
  /// The value a constant (or any text that is not a local name) stands
  /// for: one per text, as LLVM uniques its constants, so that a phi
  /// merging `5` and `5` is seen to be trivial.
  ssa::Value constantValue(StringRef Text) {
    auto [It, New] = Constants.try_emplace(Text, ssa::Value{0});
    if (New)
      It->second = textValue(Text.str());
    return It->second;
  }
  /// Records a read of or (when \p ReadAt is null) an assignment to a
  /// variable, for checkAssigned; \p AtEnd for a read at the block's end.
  void access(unsigned Block, uint32_t Var, const Node *ReadAt,
              bool AtEnd = false) {
    (AtEnd ? EndAccesses : Accesses)[Block].push_back({Var, ReadAt});
  }
  void setText(ssa::Value V, std::string Text) {
    if (Texts.size() <= V.Id)
      Texts.resize(V.Id + 1);
    Texts[V.Id] = std::move(Text);
  }
  std::string newVersion(VarInfo &VI);
  std::string newVersionBase(StringRef Hint);
  Error noteType(VarInfo &VI, StringRef Type, const Node *At);
  ssa::Value read(const Node *ValueNode, unsigned Block, StringRef TypeHint);
  ssa::Value slotLoad(const Node *Ref, unsigned Block, bool AtEnd);
  std::string slotName(uint32_t Var);
  void printSlots(uint32_t At);
  ssa::Value operand(const GenOperand &O, unsigned Block, StringRef TypeHint);
  Error define(const Node *Def, ssa::Value V, unsigned Block, StringRef Type,
               bool NamesValue);
  Error sourceItem(const FlatItem &I, unsigned Block, ItemValues &IV);
  Error item(const FlatItem &I, unsigned Block, ItemValues &IV);
  std::optional<std::string> resultType(const Node *Inst) const;
  std::string valueText(ssa::Value V);
  std::string blockRef(unsigned Block) const;
  void print(const Node *Body);
  void printSource(const FlatItem &I, const ItemValues &IV);

  const SyntaxTree &Tree;
  const FlatFunction &F;
  std::string FunctionName;
  StringSet<> &Used;
  UniqueNamer Names;
  const LowerOptions &Opts;
  LoweredTextBuilder &Out;
  const SourceMgr &SM;
  unsigned BufferID;

  ssa::SSABuilder B;
  std::vector<ssa::Block> Blocks;
  StringMap<VarInfo> Vars;
  std::vector<std::string> VarNames; ///< By variable id.
  std::vector<std::string> Texts; ///< By value id: client values' text.
  std::vector<ssa::Value> Temps;
  std::vector<std::vector<ItemValues>> Values; ///< By block, by item.
  /// Per block, reads and assignments of variables in order, and the reads
  /// at the block's end (an author's phi operands).
  std::vector<std::vector<VarAccess>> Accesses, EndAccesses;
  StringMap<ssa::Value> Constants;
  struct PendingPhiRead {
    const Node *Token;
    unsigned Pred;
    unsigned Block, Item;
  };
  std::vector<PendingPhiRead> PhiReads;
  StringMap<unsigned> BlockByName;
  DenseMap<uint32_t, std::string> PhiNames;
  DenseMap<uint32_t, uint32_t> Unnamed; ///< Value id -> variable id.
  /// Reference mode: the item being processed, the parameters' stores, the
  /// loads at the end of each block (for phi operands) and the slot names.
  ItemValues *CurIV = nullptr;
  ItemValues EntryIV;
  std::vector<std::vector<std::pair<uint32_t, std::string>>> EndLoads;
  DenseMap<uint32_t, std::string> Slots;
};
} // namespace

void Restorer::declareVars(const Node *Define, const Node *Body) {
  auto Declare = [&](const Node *N) {
    StringRef Name = nameOf(N);
    if (Vars.count(Name))
      return;
    VarInfo VI;
    VI.Id = ssa::Variable{static_cast<uint32_t>(Vars.size())};
    StringRef Base = Name;
    if (Base.size() >= 2 && Base.front() == '"' && Base.back() == '"')
      Base = Base.drop_front().drop_back();
    VI.Base = Base.str();
    Vars[Name] = std::move(VI);
    VarNames.push_back(Name.str());
  };
  for (const Node *C = Define->First; C; C = C->Next)
    if (C->is(NodeKind::Param) && C->Last && C->Last->is(NodeKind::LocalDef))
      Declare(C->Last);
  SmallVector<const Node *, 32> Stack{Body};
  while (!Stack.empty()) {
    const Node *N = Stack.pop_back_val();
    if (N->is(NodeKind::LocalDef))
      Declare(N);
    for (const Node *C = N->First; C; C = C->Next)
      Stack.push_back(C);
  }
}

/// A fresh plain name from \p Hint, quoted if it needs to be.
std::string Restorer::newVersionBase(StringRef Hint) {
  std::string Name = Names.make(Hint, "");
  return isPlainName(Name) ? Name : "\"" + Name + "\"";
}

std::string Restorer::newVersion(VarInfo &VI) {
  std::string Name;
  do
    Name = VI.Base + "." + std::to_string(VI.NextVersion++);
  while (Used.contains(Name));
  Used.insert(Name);
  Out.noteSourceName(Name, VI.Base);
  return isPlainName(Name) ? "%" + Name : "%\"" + Name + "\"";
}

Error Restorer::noteType(VarInfo &VI, StringRef Type, const Node *At) {
  if (Type.empty())
    return Error::success();
  if (VI.Type.empty() || !VI.TypeAt) {
    VI.Type = Type.str();
    VI.TypeAt = At;
    return Error::success();
  }
  if (normalizeType(VI.Type) == normalizeType(Type))
    return Error::success();
  auto E = std::make_unique<DiagnosticError>(SM.GetMessage(
      locAt(SM, BufferID, At->Range.Begin), SourceMgr::DK_Error,
      "'%" + nameOf(At) + "' is assigned a value of type '" + Type +
          "' here, but a value of type '" + VI.Type + "' elsewhere"));
  E->addNote(SM.GetMessage(locAt(SM, BufferID, VI.TypeAt->Range.Begin),
                           SourceMgr::DK_Note,
                           "'%" + nameOf(At) + "' is assigned a '" + VI.Type +
                               "' here"));
  return Error(std::move(E));
}

ssa::Value Restorer::read(const Node *ValueNode, unsigned Block,
                          StringRef TypeHint) {
  if (ValueNode->is(NodeKind::LocalRef))
    if (VarInfo *VI = varOf(ValueNode)) {
      if (VI->Type.empty() && !TypeHint.empty())
        VI->Type = TypeHint.str();
      access(Block, VI->Id.Id, ValueNode);
      if (Opts.Mem2Reg)
        return slotLoad(ValueNode, Block, /*AtEnd=*/false);
      return B.useVar(VI->Id, Blocks[Block]);
    }
  return constantValue(Tree.text(ValueNode));
}

/// Reference mode: a load of the variable's slot, before the current item or
/// at the end of block \p Block (before its terminator).
ssa::Value Restorer::slotLoad(const Node *Ref, unsigned Block, bool AtEnd) {
  VarInfo *VI = varOf(Ref);
  std::string Name = "%" + newVersionBase(VI->Base + ".load");
  Out.noteSourceName(nameOfToken(Name), VI->Base);
  ssa::Value V = textValue(Name);
  if (AtEnd)
    EndLoads[Block].push_back({VI->Id.Id, Name});
  else
    CurIV->Loads.push_back({VI->Id.Id, Name});
  return V;
}

std::string Restorer::slotName(uint32_t Var) {
  auto It = Slots.find(Var);
  if (It != Slots.end())
    return It->second;
  const std::string &Base = Vars.find(VarNames[Var])->second.Base;
  std::string Name = "%" + newVersionBase(Base + ".slot");
  Out.noteSourceName(nameOfToken(Name), Base);
  Slots[Var] = Name;
  return Name;
}

ssa::Value Restorer::operand(const GenOperand &O, unsigned Block,
                             StringRef TypeHint) {
  switch (O.K) {
  case GenOperand::Source:
    return read(O.Src, Block, TypeHint);
  case GenOperand::TempValue:
    return Temps[O.Temp];
  case GenOperand::Var: {
    VarInfo *VI = varOf(O.Src);
    assert(VI && "a generated read of an undeclared variable");
    access(Block, VI->Id.Id, O.Src);
    if (Opts.Mem2Reg)
      return slotLoad(O.Src, Block, /*AtEnd=*/false);
    return B.useVar(VI->Id, Blocks[Block]);
  }
  case GenOperand::Const:
    return constantValue(O.Text);
  case GenOperand::None:
    break;
  }
  llvm_unreachable("operand without a kind");
}

Error Restorer::define(const Node *Def, ssa::Value V, unsigned Block,
                       StringRef Type, bool NamesValue) {
  VarInfo *VI = varOf(Def);
  assert(VI && "a definition of an undeclared variable");
  if (Error E = noteType(*VI, Type, Def))
    return E;
  if (NamesValue) {
    // Later versions are named when first printed, so names follow the text.
    setText(V, VI->Defined ? "" : Tree.text(Def).str());
    if (VI->Defined)
      Unnamed[V.Id] = VI->Id.Id;
  }
  VI->Defined = true;
  access(Block, VI->Id.Id, nullptr);
  if (Opts.Mem2Reg)
    CurIV->Stores.push_back({VI->Id.Id, V});
  else
    B.defVar(VI->Id, V, Blocks[Block]);
  return Error::success();
}

/// The type of the value instruction \p Inst defines, as text, when it can be
/// read off the instruction; nullopt otherwise.
std::optional<std::string> Restorer::resultType(const Node *Inst) const {
  SmallVector<const Node *, 8> Types, Typed;
  for (const Node *C = Inst->First; C; C = C->Next) {
    if (C->is(NodeKind::Type))
      Types.push_back(C);
    if (C->is(NodeKind::TypedValue))
      Typed.push_back(C);
  }
  auto TypeOf = [&](const Node *TV) { return Tree.text(TV->First).str(); };
  switch (static_cast<Opcode>(Inst->Sub)) {
  case Opcode::Add: case Opcode::FAdd: case Opcode::Sub: case Opcode::FSub:
  case Opcode::Mul: case Opcode::FMul: case Opcode::UDiv: case Opcode::SDiv:
  case Opcode::FDiv: case Opcode::URem: case Opcode::SRem: case Opcode::FRem:
  case Opcode::Shl: case Opcode::LShr: case Opcode::AShr: case Opcode::And:
  case Opcode::Or: case Opcode::Xor: case Opcode::FNeg: case Opcode::Freeze:
  case Opcode::InsertValue: case Opcode::InsertElement:
    if (!Typed.empty())
      return TypeOf(Typed[0]);
    break;
  case Opcode::ICmp: case Opcode::FCmp:
    if (!Typed.empty()) {
      if (auto V = vectorParts(TypeOf(Typed[0])))
        return ("<" + V->first + " x i1>").str();
      return std::string("i1");
    }
    break;
  case Opcode::Select: case Opcode::AtomicRMW:
    if (Typed.size() >= 2)
      return TypeOf(Typed[1]);
    break;
  case Opcode::CmpXchg:
    if (Typed.size() >= 2)
      return "{ " + TypeOf(Typed[1]) + ", i1 }";
    break;
  case Opcode::ExtractElement:
    if (!Typed.empty())
      if (auto V = vectorParts(TypeOf(Typed[0])))
        return V->second.str();
    break;
  case Opcode::Alloca:
    return std::string("ptr");
  case Opcode::GetElementPtr:
    if (Typed.size() == 1 || (!Typed.empty() && !vectorParts(TypeOf(Typed[1]))))
      if (!Typed.empty() && TypeOf(Typed[0]) == "ptr")
        return std::string("ptr");
    break;
  case Opcode::CatchPad: case Opcode::CleanupPad: case Opcode::CatchSwitch:
    return std::string("token");
  default: // Casts, load, phi, call, invoke, va_arg, landingpad: a Type child.
    if (!Types.empty()) {
      const Node *T = Types[0];
      Opcode Op = static_cast<Opcode>(Inst->Sub);
      if (Op >= Opcode::Trunc && Op <= Opcode::AddrSpaceCast)
        T = Types.back();
      return Tree.text(T).str();
    }
    break;
  }
  return std::nullopt;
}

Error Restorer::sourceItem(const FlatItem &I, unsigned Block, ItemValues &IV) {
  const Node *N = I.N;
  const Node *Def = N->First && N->First->is(NodeKind::LocalDef) ? N->First
                                                                  : nullptr;
  bool IsPhi = N->is(NodeKind::Inst) &&
               static_cast<Opcode>(N->Sub) == Opcode::Phi;
  // Local-name tokens in source order, each with the type written before it.
  struct Token {
    const Node *N;
    std::string Type;
  };
  std::vector<Token> Tokens;
  std::string LastType;
  SmallVector<const Node *, 32> Stack{N};
  while (!Stack.empty()) {
    const Node *C = Stack.pop_back_val();
    if (C->is(NodeKind::Type)) {
      LastType = Tree.text(C).str();
      continue; // Type names are not variables.
    }
    if (C->is(NodeKind::LocalRef) || C->is(NodeKind::LabelRef))
      Tokens.push_back({C, LastType});
    size_t Mark = Stack.size();
    for (const Node *K = C->First; K; K = K->Next)
      Stack.push_back(K);
    std::reverse(Stack.begin() + Mark, Stack.end());
  }
  for (size_t K = 0; K < Tokens.size(); ++K) {
    const Node *T = Tokens[K].N;
    if (!T->is(NodeKind::LocalRef) || !varOf(T))
      continue;
    if (IsPhi && K + 1 < Tokens.size() && Tokens[K + 1].N->is(NodeKind::LabelRef)) {
      // Read at the end of the named predecessor, once all blocks are filled.
      auto It = BlockByName.find(nameOf(Tokens[K + 1].N));
      if (It != BlockByName.end()) {
        access(It->second, varOf(T)->Id.Id, T, /*AtEnd=*/true);
        if (Opts.Mem2Reg) {
          IV.Substs.push_back({T, slotLoad(T, It->second, /*AtEnd=*/true)});
          continue;
        }
        PhiReads.push_back({T, It->second, Block,
                            static_cast<unsigned>(Values[Block].size() - 1)});
        IV.Substs.push_back({T, ssa::Value{0}});
        continue;
      }
    }
    IV.Substs.push_back({T, read(T, Block, Tokens[K].Type)});
  }
  if (!Def)
    return Error::success();
  ssa::Value V = B.createValue();
  IV.Substs.insert(IV.Substs.begin(), {Def, V});
  std::optional<std::string> Type =
      N->is(NodeKind::Inst) ? resultType(N) : std::nullopt;
  return define(Def, V, Block, Type ? *Type : "", /*NamesValue=*/true);
}

Error Restorer::item(const FlatItem &I, unsigned Block, ItemValues &IV) {
  StringRef Type = I.Type ? Tree.text(I.Type) : StringRef();
  switch (I.K) {
  case FlatItem::Source:
    return sourceItem(I, Block, IV);
  case FlatItem::Assign: {
    const Node *Def = I.N->First, *TypeN = Def->Next, *Val = TypeN->Next;
    ssa::Value V = read(Val, Block, Tree.text(TypeN));
    return define(Def, V, Block, Tree.text(TypeN), /*NamesValue=*/false);
  }
  case FlatItem::SetVar:
    return define(I.Var, operand(I.Lhs, Block, Type), Block, Type, false);
  case FlatItem::Bind:
    Temps.resize(std::max<size_t>(Temps.size(), I.Temp + 1), ssa::Value{0});
    Temps[I.Temp] = operand(I.Lhs, Block, Type);
    return Error::success();
  case FlatItem::Compare:
  case FlatItem::Arith: {
    IV.Lhs = operand(I.Lhs, Block, Type);
    IV.Rhs = operand(I.Rhs, Block, Type);
    IV.HasLhs = IV.HasRhs = true;
    IV.Result = B.createValue();
    if (I.K == FlatItem::Arith && I.Var)
      return define(I.Var, IV.Result, Block, Type, /*NamesValue=*/true);
    setText(IV.Result, "%" + F.TempNames[I.Temp]);
    Temps.resize(std::max<size_t>(Temps.size(), I.Temp + 1), ssa::Value{0});
    Temps[I.Temp] = IV.Result;
    return Error::success();
  }
  case FlatItem::CondBr:
    IV.Lhs = operand(I.Lhs, Block, "i1");
    IV.HasLhs = true;
    return Error::success();
  case FlatItem::Br:
    return Error::success();
  }
  llvm_unreachable("unknown flat item");
}

std::string Restorer::valueText(ssa::Value V) {
  V = B.resolve(V);
  if (B.isUndef(V))
    return "poison";
  uint32_t Var;
  if (B.isPhi(V)) {
    auto It = PhiNames.find(V.Id);
    if (It != PhiNames.end())
      return It->second;
    Var = B.variableOf(V).Id;
  } else {
    auto It = Unnamed.find(V.Id);
    if (It == Unnamed.end())
      return Texts[V.Id];
    Var = It->second;
    Unnamed.erase(It);
  }
  std::string Name = newVersion(Vars.find(VarNames[Var])->second);
  (B.isPhi(V) ? PhiNames[V.Id] : Texts[V.Id]) = Name;
  return Name;
}

std::string Restorer::blockRef(unsigned Block) const {
  return "%" + F.Blocks[Block].Name;
}

void Restorer::printSource(const FlatItem &I, const ItemValues &IV) {
  const Node *N = I.N;
  uint32_t Pos = N->Range.Begin;
  if (N->is(NodeKind::Inst))
    Out.markInstruction(Pos);
  Out.emit("  ", Pos);
  for (const Subst &S : IV.Substs) {
    Out.copy(Pos, S.Token->Range.Begin);
    Out.emit(valueText(S.V), S.Token->Range.Begin);
    Pos = S.Token->Range.End;
  }
  Out.copy(Pos, N->Range.End);
  Out.emit("\n", N->Range.End);
}

/// Reference mode: a stack slot per variable, marked for promotion, and the
/// parameters' first stores.
void Restorer::printSlots(uint32_t At) {
  for (uint32_t Var = 0; Var < VarNames.size(); ++Var) {
    Out.markInstruction(At);
    Out.emit("  " + slotName(Var) + " = alloca " +
                 Vars.find(VarNames[Var])->second.Type + ", !llq.slot !{}\n",
             At);
  }
  for (const auto &S : EntryIV.Stores) {
    Out.markInstruction(At);
    Out.emit("  store " + Vars.find(VarNames[S.first])->second.Type + " " +
                 valueText(S.second) + ", ptr " + slotName(S.first) + "\n",
             At);
  }
}

void Restorer::print(const Node *Body) {
  Out.beginFunction(FunctionName);
  Out.emit("{\n", Body->Range.Begin);
  // Phis by block, in creation order.
  std::vector<std::vector<ssa::Value>> PhisOf(F.Blocks.size());
  for (ssa::Value P : B.phis())
    PhisOf[B.blockOf(P).Id].push_back(P);
  for (unsigned Block : F.Order) {
    const FlatBlock &FB = F.Blocks[Block];
    uint32_t At = FB.Origin ? FB.Origin->Range.Begin : Body->Range.Begin;
    Out.emit(FB.Name + ":\n", At);
    if (Opts.Mem2Reg && Block == F.Order.front())
      printSlots(At);
    for (ssa::Value P : PhisOf[Block]) {
      const VarInfo &VI = Vars.find(VarNames[B.variableOf(P).Id])->second;
      std::string Text = "  " + valueText(P) + " = phi " + VI.Type;
      ArrayRef<ssa::Block> Preds = B.predecessors(B.blockOf(P));
      ArrayRef<ssa::Value> Ops = B.phiOperands(P);
      if (Opts.AllowUndef)
        Out.notePhi({FunctionName, nameOfToken(valueText(P)),
                     llvm::any_of(Ops, [&](ssa::Value Op) {
                       return B.isUndef(B.resolve(Op));
                     })});
      for (unsigned K = 0; K < Ops.size(); ++K)
        Text += std::string(K ? "," : "") + " [ " + valueText(Ops[K]) + ", " +
                blockRef(Preds[K].Id) + " ]";
      Out.markInstruction(At);
      Out.emit(Text + "\n", At);
    }
    for (size_t K = 0; K < FB.Items.size(); ++K) {
      const FlatItem &I = FB.Items[K];
      const ItemValues &IV = Values[Block][K];
      uint32_t Origin = I.N ? I.N->Range.Begin : At;
      std::string Type = I.Type ? Tree.text(I.Type).str() : "";
      auto Load = [&](const std::pair<uint32_t, std::string> &L) {
        const VarInfo &VI = Vars.find(VarNames[L.first])->second;
        Out.markInstruction(Origin);
        Out.emit("  " + L.second + " = load " + VI.Type + ", ptr " +
                     slotName(L.first) + "\n",
                 Origin);
      };
      for (const auto &L : IV.Loads)
        Load(L);
      if (K + 1 == FB.Items.size())
        for (const auto &L : EndLoads[Block])
          Load(L);
      switch (I.K) {
      case FlatItem::Source:
        printSource(I, IV);
        break;
      case FlatItem::Compare:
      case FlatItem::Arith:
        Out.markInstruction(Origin);
        Out.emit("  " + valueText(IV.Result) + " = " +
                     (I.K == FlatItem::Compare ? "icmp " : "") + I.Op + " " +
                     Type + " " + valueText(IV.Lhs) + ", " + valueText(IV.Rhs) +
                     "\n",
                 Origin);
        break;
      case FlatItem::Br:
        Out.markInstruction(Origin);
        Out.emit("  br label " + blockRef(I.Targets[0]) + "\n", Origin);
        break;
      case FlatItem::CondBr:
        Out.markInstruction(Origin);
        Out.emit("  br i1 " + valueText(IV.Lhs) + ", label " +
                     blockRef(I.Targets[0]) + ", label " +
                     blockRef(I.Targets[1]) + "\n",
                 Origin);
        break;
      default: // Assignments and bindings print nothing.
        break;
      }
      for (const auto &S : IV.Stores) {
        Out.markInstruction(Origin);
        Out.emit("  store " + Vars.find(VarNames[S.first])->second.Type + " " +
                     valueText(S.second) + ", ptr " + slotName(S.first) + "\n",
                 Origin);
      }
    }
  }
  Out.emit("}", Body->Range.End - 1);
}

Error Restorer::run(const Node *Define, const Node *Body) {
  for (const Node *C = Define->First; C; C = C->Next)
    if (C->is(NodeKind::GlobalRef))
      FunctionName = nameOfToken(Tree.text(C));
  declareVars(Define, Body);
  for (unsigned I = 0; I < F.Blocks.size(); ++I) {
    Blocks.push_back(B.declareBlock());
    BlockByName[F.Blocks[I].Name] = I;
  }
  std::vector<unsigned> Preds(F.Blocks.size()), Seen(F.Blocks.size());
  for (const FlatBlock &FB : F.Blocks)
    for (unsigned S : FB.Succs)
      ++Preds[S];
  // Edges out of unreachable code carry no value into a phi, and no phi is
  // placed in it, so only the paths from the entry decide (ssa/README.md).
  std::vector<uint8_t> Reachable = reachableBlocks(F);
  for (unsigned I = 0; I < F.Blocks.size(); ++I)
    if (!Reachable[I])
      B.markUnreachable(Blocks[I]);
  for (unsigned I = 0; I < F.Blocks.size(); ++I)
    if (!Preds[I])
      B.sealBlock(Blocks[I]);
  // Parameters are defined on entry.
  unsigned Entry = F.Order.front();
  EndLoads.resize(F.Blocks.size());
  Accesses.resize(F.Blocks.size());
  EndAccesses.resize(F.Blocks.size());
  CurIV = &EntryIV;
  for (const Node *C = Define->First; C; C = C->Next)
    if (C->is(NodeKind::Param) && C->Last && C->Last->is(NodeKind::LocalDef)) {
      StringRef Type = C->First && C->First->is(NodeKind::Type)
                           ? Tree.text(C->First)
                           : StringRef();
      if (Error E = define(C->Last, B.createValue(), Entry, Type, true))
        return E;
    }
  Values.resize(F.Blocks.size());
  for (unsigned Block : F.Order) {
    const FlatBlock &FB = F.Blocks[Block];
    for (const FlatItem &I : FB.Items) {
      Values[Block].emplace_back();
      CurIV = &Values[Block].back();
      if (Error E = item(I, Block, *CurIV))
        return E;
    }
    for (unsigned S : FB.Succs) {
      B.addPredecessor(Blocks[S], Blocks[Block]);
      if (++Seen[S] == Preds[S])
        B.sealBlock(Blocks[S]);
    }
  }
  for (const PendingPhiRead &P : PhiReads) {
    VarInfo *VI = varOf(P.Token);
    ssa::Value V = B.useVar(VI->Id, Blocks[P.Pred]);
    for (Subst &S : Values[P.Block][P.Item].Substs)
      if (S.Token == P.Token)
        S.V = V;
  }
  B.sealAllBlocks();
  B.finish();
  if (!Opts.AllowUndef) {
    for (unsigned I = 0; I < F.Blocks.size(); ++I)
      Accesses[I].insert(Accesses[I].end(), EndAccesses[I].begin(),
                         EndAccesses[I].end());
    if (Error E = checkAssigned(Tree, F, Accesses, Reachable,
                                unsigned(VarNames.size()), SM, BufferID))
      return E;
  }
  if (Opts.Mem2Reg)
    for (const std::string &Name : VarNames)
      if (Vars.find(Name)->second.Type.empty())
        return error(Body, "cannot tell the type of '%" + Name +
                               "' for its stack slot; assign it with a type "
                               "first ('%" + Name + " = <type> <value>')");
  for (ssa::Value P : B.phis()) {
    StringRef Name = VarNames[B.variableOf(P).Id];
    const VarInfo &VI = Vars.find(Name)->second;
    if (VI.Type.empty()) {
      const Node *At = F.Blocks[B.blockOf(P).Id].Origin;
      return error(At ? At : Body,
                   "cannot tell the type of '%" + Name +
                       "' for the phi it needs here; assign it with a type "
                       "first ('%" + Name + " = <type> <value>')");
    }
  }
  print(Body);
  return Error::success();
}

Error llq::restoreSSA(const SyntaxTree &Tree, const Node *Define,
                      const Node *Body, const FlatFunction &F,
                      StringSet<> &UsedNames, const LowerOptions &Opts,
                      LoweredTextBuilder &Out, const SourceMgr &SM,
                      unsigned BufferID) {
  return Restorer(Tree, F, UsedNames, Opts, Out, SM, BufferID)
      .run(Define, Body);
}
