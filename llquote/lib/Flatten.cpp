//===- Flatten.cpp - Structured function bodies to basic blocks -----------===//
//
// Walks a function body in source order, keeping a "current block" that
// instructions are appended to. A label starts a new block (the current one
// falls through to it); a terminator closes the current block; control
// structures open and close blocks as documented in Flatten.h. Recursion
// follows the nesting of control structures, which the lexer bounds.
//
//===----------------------------------------------------------------------===//

#include "Flatten.h"
#include "Parse.h"
#include "UniqueNames.h"
#include "llquote/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

using namespace llq;
using namespace llvm;

std::vector<uint8_t> FlatFunction::reachable() const {
  std::vector<uint8_t> Seen(Blocks.size(), 0);
  std::vector<unsigned> Stack{Order.front()};
  Seen[Order.front()] = true;
  while (!Stack.empty()) {
    unsigned B = Stack.back();
    Stack.pop_back();
    for (unsigned S : Blocks[B].Succs)
      if (!Seen[S]) {
        Seen[S] = true;
        Stack.push_back(S);
      }
  }
  return Seen;
}

namespace {
class Flattener {
public:
  Flattener(const SyntaxTree &Tree, StringSet<> &Used, const SourceMgr &SM,
            unsigned BufferID)
      : Tree(Tree), Names(Used), SM(SM), BufferID(BufferID) {}

  Expected<FlatFunction> run(const Node *Body);

private:
  static constexpr unsigned NoBlock = ~0u;
  struct Loop {
    unsigned ContinueTo, BreakTo;
  };

  Error error(const Node *At, const Twine &Msg) {
    return makeError(SM, locAt(SM, BufferID, At->Range.Begin), Msg);
  }
  std::string uniqueName(StringRef Hint);
  unsigned newBlock(StringRef Hint, const Node *Origin);
  void place(unsigned B) {
    F.Order.push_back(B);
    Cur = B;
  }
  void ensureBlock(const Node *Origin);
  unsigned newTemp(StringRef Hint) {
    F.TempNames.push_back(uniqueName(Hint));
    return F.NumTemps++;
  }
  void append(FlatItem I);
  void branch(unsigned Target, const Node *Origin);
  void condBranch(GenOperand Cond, unsigned T, unsigned E, const Node *Origin);
  /// A temporary naming the value of \p Value, read here (no instruction).
  unsigned bind(GenOperand Value, const Node *Type, const Node *Origin,
               StringRef Hint);
  /// A temporary holding `Op Type L, R` (a compare or arithmetic).
  unsigned compute(FlatItem::Kind K, const char *Op, const Node *Type,
                   GenOperand L, GenOperand R, const Node *Origin,
                   StringRef Hint);

  Error items(const Node *Body);
  Error item(const Node *N);
  Error sourceInst(const Node *N);
  Error forLoop(const Node *N);
  Error whileLoop(const Node *N);
  Error ifElse(const Node *N);
  Error jump(const Node *N);

  const SyntaxTree &Tree;
  UniqueNamer Names;
  const SourceMgr &SM;
  unsigned BufferID;
  FlatFunction F;
  StringMap<unsigned> LabelBlocks;
  std::vector<Loop> Loops;
  unsigned Cur = NoBlock;
};
} // namespace

std::string Flattener::uniqueName(StringRef Hint) {
  return Names.make(Hint, ".");
}

unsigned Flattener::newBlock(StringRef Hint, const Node *Origin) {
  F.Blocks.push_back(FlatBlock{uniqueName(Hint), Origin, {}, {}});
  return static_cast<unsigned>(F.Blocks.size() - 1);
}

void Flattener::ensureBlock(const Node *Origin) {
  if (Cur == NoBlock)
    place(newBlock(F.Order.empty() ? "entry" : "bb", Origin));
}

void Flattener::append(FlatItem I) {
  ensureBlock(I.N);
  F.Blocks[Cur].Items.push_back(I);
}

void Flattener::branch(unsigned Target, const Node *Origin) {
  FlatItem I{FlatItem::Br};
  I.N = Origin;
  I.Targets[0] = Target;
  append(I);
  F.Blocks[Cur].Succs.push_back(Target);
  Cur = NoBlock;
}

void Flattener::condBranch(GenOperand Cond, unsigned T, unsigned E,
                           const Node *Origin) {
  FlatItem I{FlatItem::CondBr};
  I.N = Origin;
  I.Lhs = Cond;
  I.Targets[0] = T;
  I.Targets[1] = E;
  append(I);
  F.Blocks[Cur].Succs.push_back(T);
  F.Blocks[Cur].Succs.push_back(E);
  Cur = NoBlock;
}

unsigned Flattener::bind(GenOperand Value, const Node *Type,
                         const Node *Origin, StringRef Hint) {
  FlatItem I{FlatItem::Bind};
  I.N = Origin;
  I.Type = Type;
  I.Temp = newTemp(Hint);
  I.Lhs = Value;
  append(I);
  return I.Temp;
}

unsigned Flattener::compute(FlatItem::Kind K, const char *Op, const Node *Type,
                            GenOperand L, GenOperand R, const Node *Origin,
                            StringRef Hint) {
  FlatItem I{K};
  I.N = Origin;
  I.Type = Type;
  I.Op = Op;
  I.Lhs = L;
  I.Rhs = R;
  I.Temp = newTemp(Hint);
  append(I);
  return I.Temp;
}

Expected<FlatFunction> Flattener::run(const Node *Body) {
  // Labels may be branched to before they appear: give each its block now.
  forEachNode(Body, [&](const Node *N) {
    if (N->is(NodeKind::Label)) {
      StringRef Name = localName(Tree, N);
      if (!LabelBlocks.count(Name)) {
        F.Blocks.push_back(FlatBlock{Name.str(), N, {}, {}});
        LabelBlocks[Name] = static_cast<unsigned>(F.Blocks.size() - 1);
      }
    }
  });
  if (Error E = items(Body))
    return std::move(E);
  if (Cur != NoBlock) {
    // An empty block nobody reaches (after an if whose arms all return) is
    // dropped; anything else would fall off the end of the function.
    bool Reached = false;
    for (const FlatBlock &B : F.Blocks)
      for (unsigned S : B.Succs)
        Reached |= S == Cur;
    if (!F.Blocks[Cur].Items.empty() || Reached) {
      const Node *At = F.Blocks[Cur].Items.empty()
                           ? F.Blocks[Cur].Origin
                           : F.Blocks[Cur].Items.back().N;
      return error(At, "control reaches the end of the function without a "
                       "terminator (ret, br, unreachable, ...)");
    }
    F.Order.pop_back();
  }
  if (F.Order.empty())
    return error(Body, "function body has no instructions");
  return std::move(F);
}

Error Flattener::items(const Node *Body) {
  for (const Node *C = Body->First; C; C = C->Next)
    if (Error E = item(C))
      return E;
  return Error::success();
}

Error Flattener::item(const Node *N) {
  switch (N->Kind) {
  case NodeKind::Label: {
    unsigned B = LabelBlocks.lookup(localName(Tree, N));
    if (std::find(F.Order.begin(), F.Order.end(), B) != F.Order.end())
      return error(N, "redefinition of label '" + localName(Tree, N) + "'");
    if (Cur != NoBlock)
      branch(B, N); // Fall through into the labelled block.
    place(B);
    return Error::success();
  }
  case NodeKind::Inst:
    return sourceInst(N);
  case NodeKind::Assign: {
    FlatItem I{FlatItem::Assign};
    I.N = N;
    append(I);
    return Error::success();
  }
  case NodeKind::For:
    return forLoop(N);
  case NodeKind::While:
    return whileLoop(N);
  case NodeKind::If:
    return ifElse(N);
  case NodeKind::Break:
  case NodeKind::Continue:
    return jump(N);
  default: { // Debug records and uselistorder directives.
    FlatItem I{FlatItem::Source};
    I.N = N;
    append(I);
    return Error::success();
  }
  }
}

Error Flattener::sourceInst(const Node *N) {
  FlatItem I{FlatItem::Source};
  I.N = N;
  append(I);
  if (!isTerminator(N))
    return Error::success();
  forEachNode(N, [&](const Node *C) {
    if (C->is(NodeKind::LabelRef)) {
      auto It = LabelBlocks.find(localName(Tree, C));
      if (It != LabelBlocks.end())
        F.Blocks[Cur].Succs.push_back(It->second);
    }
  });
  Cur = NoBlock;
  return Error::success();
}

/// The children of \p N, in order.
static SmallVector<const Node *, 8> children(const Node *N) {
  SmallVector<const Node *, 8> C;
  for (const Node *K = N->First; K; K = K->Next)
    C.push_back(K);
  return C;
}

Error Flattener::forLoop(const Node *N) {
  SmallVector<const Node *, 8> C = children(N);
  bool Downto = N->Sub & ForDownto, HasStep = N->Sub & ForHasStep;
  const Node *Type = C[0], *Var = C[1], *From = C[2], *To = C[3];
  const Node *Step = HasStep ? C[4] : nullptr, *Body = C.back();
  StringRef TypeText = Tree.text(Type);
  if (!Type->is(NodeKind::Antiquote) &&
      !(TypeText.size() > 1 && TypeText[0] == 'i' &&
        TypeText.drop_front().find_first_not_of("0123456789") == StringRef::npos))
    return error(Type, "the counter of a for loop must have an integer type, "
                       "not '" + TypeText + "'");
  if (!Var->is(NodeKind::LocalDef))
    return error(Var, "the counter of a for loop must be a local name");
  if (Step && Step->is(NodeKind::Constant)) {
    StringRef S = Tree.text(Step);
    if (S.starts_with("-") && S.drop_front().find_first_not_of("0") != StringRef::npos)
      return error(Step, "the step of a for loop is a distance and must be "
                         "positive; count down with 'downto'");
    if (!S.empty() && S.find_first_not_of("-0") == StringRef::npos)
      return error(Step, "the step of a for loop must not be zero");
  }

  GenOperand Counter = GenOperand::var(Var);

  // Pre-header: the counter, the bound and the step, each read once.
  FlatItem Init{FlatItem::SetVar};
  Init.N = N;
  Init.Var = Var;
  Init.Type = Type;
  Init.Lhs = GenOperand::source(From);
  append(Init);
  unsigned Bound = bind(GenOperand::source(To), Type, To, "for.bound");
  unsigned StepT = bind(Step ? GenOperand::source(Step) : GenOperand::constant("1"),
                        Type, Step ? Step : N, "for.step");

  // With a step of one the counter cannot pass the bound, so the condition
  // alone ends the loop; other steps also leave from a latch that checks the
  // distance left, so the counter never wraps.
  bool UnitStep = !Step || (Step->is(NodeKind::Constant) && Tree.text(Step) == "1");
  unsigned CondB = newBlock("for.cond", N), BodyB = newBlock("for.body", Body);
  unsigned Latch = UnitStep ? 0 : newBlock("for.latch", N);
  unsigned Inc = newBlock("for.inc", N), End = newBlock("for.end", N);
  branch(CondB, N);

  place(CondB);
  unsigned More = compute(FlatItem::Compare, Downto ? "sgt" : "slt", Type,
                          Counter, GenOperand::temp(Bound), N, "for.more");
  condBranch(GenOperand::temp(More), BodyB, End, N);

  place(BodyB);
  unsigned Continue = UnitStep ? Inc : Latch;
  Loops.push_back({Continue, End});
  if (Error E = items(Body))
    return E;
  Loops.pop_back();
  if (Cur != NoBlock)
    branch(Continue, Body);

  if (!UnitStep) {
    place(Latch);
    GenOperand B = GenOperand::temp(Bound);
    unsigned Left = compute(FlatItem::Arith, "sub", Type, Downto ? Counter : B,
                            Downto ? B : Counter, N, "for.left");
    unsigned Last = compute(FlatItem::Compare, "ule", Type, GenOperand::temp(Left),
                            GenOperand::temp(StepT), N, "for.last");
    condBranch(GenOperand::temp(Last), End, Inc, N);
  }

  place(Inc);
  FlatItem Next{FlatItem::Arith};
  Next.N = N;
  Next.Type = Type;
  Next.Op = Downto ? "sub" : "add";
  Next.Var = Var;
  Next.Lhs = Counter;
  Next.Rhs = GenOperand::temp(StepT);
  append(Next);
  branch(CondB, N);

  place(End);
  return Error::success();
}

Error Flattener::whileLoop(const Node *N) {
  const Node *Cond = N->First, *Body = N->Last;
  unsigned CondB = newBlock("while.cond", N), BodyB = newBlock("while.body", Body);
  unsigned End = newBlock("while.end", N);
  branch(CondB, N);
  place(CondB);
  condBranch(GenOperand::source(Cond), BodyB, End, Cond);
  place(BodyB);
  Loops.push_back({CondB, End});
  if (Error E = items(Body))
    return E;
  Loops.pop_back();
  if (Cur != NoBlock)
    branch(CondB, Body);
  place(End);
  return Error::success();
}

Error Flattener::ifElse(const Node *N) {
  SmallVector<const Node *, 8> C = children(N);
  const Node *Cond = C[0], *Then = C[1];
  const Node *Else = C.size() > 2 ? C[2] : nullptr;
  unsigned ThenB = newBlock("if.then", Then);
  unsigned ElseB = Else ? newBlock("if.else", Else) : 0;
  unsigned End = newBlock("if.end", N);
  condBranch(GenOperand::source(Cond), ThenB, Else ? ElseB : End, Cond);
  place(ThenB);
  if (Error E = items(Then))
    return E;
  if (Cur != NoBlock)
    branch(End, Then);
  if (Else) {
    place(ElseB);
    if (Error E = items(Else))
      return E;
    if (Cur != NoBlock)
      branch(End, Else);
  }
  place(End);
  return Error::success();
}

Error Flattener::jump(const Node *N) {
  bool IsBreak = N->is(NodeKind::Break);
  if (Loops.empty())
    return error(N, Twine("'") + (IsBreak ? "break" : "continue") +
                        "' outside of a for or while loop");
  branch(IsBreak ? Loops.back().BreakTo : Loops.back().ContinueTo, N);
  return Error::success();
}

Expected<FlatFunction> llq::flattenBody(const SyntaxTree &Tree, const Node *Body,
                                        StringSet<> &UsedNames,
                                        const SourceMgr &SM, unsigned BufferID) {
  return Flattener(Tree, UsedNames, SM, BufferID).run(Body);
}
