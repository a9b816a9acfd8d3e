//===- Lower.cpp - Dialect syntax tree to LLVM assembly text --------------===//
//
// Plain LLVM IR lowers to itself. A function that uses the dialect (see
// usesDialect) has its body replaced by the flattened, SSA-restored text;
// everything else is copied. Antiquotes need bindings, which only the embedding API and
// `llquote-fmt -D` provide; without them each is reported as unbound.
//
//===----------------------------------------------------------------------===//

#include "Lower.h"
#include "InternalNames.h"
#include "Flatten.h"
#include "Parse.h"
#include "PrintFlat.h"
#include "llvm/ADT/StringSet.h"
#include "llquote/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"
#include <algorithm>

using namespace llq;
using namespace llvm;

/// Whether the body uses the dialect: a control structure, a direct
/// assignment, or a block that falls through. Only then are names
/// reassignable; a function in plain LLVM IR keeps LLVM's rules, so a name
/// defined twice there is LLVM's "multiple definition" error.
static bool usesDialect(const Node *Body) {
  bool Open = false;
  for (const Node *C = Body->First; C; C = C->Next) {
    switch (C->Kind) {
    case NodeKind::For: case NodeKind::While: case NodeKind::If:
    case NodeKind::Break: case NodeKind::Continue: case NodeKind::Assign:
      return true;
    case NodeKind::Label:
      if (Open)
        return true;
      break;
    case NodeKind::Inst:
      Open = !isTerminator(C);
      break;
    default:
      Open = true;
      break;
    }
  }
  return false;
}

/// Whether a name is defined twice in the function, parameters included.
static bool redefinesAName(const SyntaxTree &Tree, const Node *Define) {
  StringSet<> Names;
  SmallVector<const Node *, 64> Stack{Define};
  while (!Stack.empty()) {
    const Node *N = Stack.pop_back_val();
    if (N->is(NodeKind::LocalDef) && !Names.insert(Tree.text(N)).second)
      return true;
    for (const Node *C = N->First; C; C = C->Next)
      Stack.push_back(C);
  }
  return false;
}

Expected<LoweredText> llq::lowerSyntax(const SyntaxTree &Tree,
                                       const SourceMgr &SM, unsigned BufferID,
                                       const LowerOptions &Opts) {
  // Every antiquote needs a binding; the first in the text is reported.
  if (const Node *N = Tree.firstAntiquote()) {
    bool Kept = Opts.KeepValueAntiquotes;
    for (const Node *A : Tree.Antiquotes) {
      auto K = static_cast<AntiquoteKind>(A->Sub);
      Kept &= K == AntiquoteKind::Type || K == AntiquoteKind::Const ||
              K == AntiquoteKind::Opr;
    }
    if (!Kept)
      return makeError(SM, locAt(SM, BufferID, N->Range.Begin),
                       "unbound antiquote '" + Tree.text(N) + "'");
  }
  LoweredTextBuilder Out(Tree.Source);
  uint32_t Pos = 0;
  // The placeholder functions' names: in neither the text nor the module.
  auto Fresh = [&](StringRef Base) {
    std::string Name = Base.str();
    for (unsigned N = 1; Tree.Source.contains(Name) ||
                         (Opts.GlobalTaken && Opts.GlobalTaken(Name));
         ++N)
      Name = (Base + "." + Twine(N)).str();
    return Name;
  };
  std::string ReadFn, AssignFn;
  for (const Node *Top = Tree.Root->First; Top; Top = Top->Next) {
    if (!Top->is(NodeKind::Define) || !Top->Last->is(NodeKind::Body))
      continue;
    const Node *Body = Top->Last;
    if (!usesDialect(Body) && !(Opts.Spliced && redefinesAName(Tree, Top)))
      continue;
    StringSet<> Used;
    collectLocalNames(Tree, Body, Used);
    for (const Node *C = Top->First; C; C = C->Next)
      if (C->is(NodeKind::Param) && C->Last && C->Last->is(NodeKind::LocalDef))
        Used.insert(Tree.text(C->Last).drop_front());
    Expected<FlatFunction> F = flattenBody(Tree, Body, Used, SM, BufferID);
    if (!F)
      return F.takeError();
    Out.copy(Pos, Body->Range.Begin);
    if (ReadFn.empty()) {
      ReadFn = Fresh(names::ReadFn);
      AssignFn = Fresh(names::AssignFn);
    }
    if (Error E = printFlat(Tree, Top, Body, *F, Used, Opts, ReadFn, AssignFn,
                            Out, SM, BufferID))
      return std::move(E);
    Pos = Body->Range.End;
  }
  if (Pos == 0)
    return LoweredText::unchanged(Tree.Source);
  auto End = static_cast<uint32_t>(Tree.Source.size());
  Out.copy(Pos, End);
  if (!Out.peek().SSA.empty()) {
    Out.setPlaceholders(ReadFn, AssignFn);
    Out.emit("\ndeclare void @" + asmName(ReadFn) + "(...)\ndeclare void @" +
                 asmName(AssignFn) + "(...)\n",
             End ? End - 1 : 0);
  }
  return Out.take();
}

