//===- TargetIntrinsics.cpp - Refuse intrinsics of another target ---------===//
//
// checkTargetIntrinsics: requires a module built from buffer BufferID of SM;
// produces nothing, or an error at the first call (in source order of the
// module's functions) of an intrinsic that belongs to another target than
// the triple's. Breaks nothing.
//
// Code generation cannot lower such a call: LLVM's instruction selector
// stops the process with "LLVM ERROR: Cannot select". The check works on
// the IR; only when it finds a call does it read the text again, to locate
// the call where the user wrote it.
//
//===----------------------------------------------------------------------===//

#include "Parse.h"
#include "llquote/Frontend.h"
#include "llvm/IR/Instructions.h"

using namespace llq;
using namespace llvm;

/// The architecture whose intrinsics are named `llvm.<prefix>.`, for the
/// prefix of \p Intrinsic, or UnknownArch.
static Triple::ArchType ownerOf(const Function &Intrinsic) {
  StringRef Name = Intrinsic.getName();
  if (!Name.consume_front("llvm."))
    return Triple::UnknownArch;
  StringRef Prefix = Name.split('.').first;
  for (int A = Triple::UnknownArch + 1; A <= Triple::LastArchType; ++A) {
    auto Arch = static_cast<Triple::ArchType>(A);
    if (Triple::getArchTypePrefix(Arch) == Prefix)
      return Arch;
  }
  return Triple::UnknownArch;
}

static bool isCall(const Node *N) {
  if (!N->is(NodeKind::Inst))
    return false;
  auto Op = static_cast<Opcode>(N->Sub);
  return Op == Opcode::Call || Op == Opcode::Invoke || Op == Opcode::CallBr;
}

/// The `@Name` of a call inside a `define` of \p Tree, or null. An explicit
/// worklist: a body can nest deeply.
static const Node *findCallee(const SyntaxTree &Tree, StringRef Name) {
  for (const Node *Top = Tree.Root->First; Top; Top = Top->Next) {
    if (!Top->is(NodeKind::Define))
      continue;
    SmallVector<std::pair<const Node *, bool>, 32> Work{{Top, false}};
    while (!Work.empty()) {
      auto [N, InCall] = Work.pop_back_val();
      if (InCall && N->is(NodeKind::GlobalRef) &&
          nameOfToken(Tree.text(N)) == Name)
        return N;
      bool Below = InCall || isCall(N);
      SmallVector<const Node *, 8> Children;
      for (const Node *C = N->First; C; C = C->Next)
        Children.push_back(C);
      // Reversed, so that the first call in the text is found first.
      for (const Node *C : reverse(Children))
        Work.push_back({C, Below});
    }
  }
  return nullptr;
}

/// The first intrinsic \p M calls that the target of \p TT cannot lower.
static const Function *firstForeignIntrinsic(const Module &M,
                                             const Triple &TT) {
  for (const Function &F : M) {
    if (F.isDeclaration())
      continue;
    for (const BasicBlock &BB : F)
      for (const Instruction &I : BB) {
        const auto *Call = dyn_cast<CallBase>(&I);
        const Function *Callee = Call ? Call->getCalledFunction() : nullptr;
        if (!Callee || !Callee->isTargetIntrinsic())
          continue;
        Triple::ArchType Owner = ownerOf(*Callee);
        if (Owner != Triple::UnknownArch &&
            Triple::getArchTypePrefix(Owner) !=
                Triple::getArchTypePrefix(TT.getArch()))
          return Callee;
      }
  }
  return nullptr;
}

Error llq::checkTargetIntrinsics(const Module &M, const Triple &TT,
                                 const SourceMgr &SM, unsigned BufferID) {
  const Function *Foreign = firstForeignIntrinsic(M, TT);
  if (!Foreign)
    return Error::success();
  Triple::ArchType Owner = ownerOf(*Foreign);
  std::string Message =
      ("'@" + Foreign->getName() + "' is an intrinsic of the " +
       Triple::getArchTypeName(Owner) + " target; code cannot be generated "
       "for it on " + TT.str())
          .str();
  SyntaxTree Tree(SM.getMemoryBuffer(BufferID)->getBuffer());
  const Node *At = nullptr;
  if (Error E = parseSyntax(Tree, SM, BufferID))
    consumeError(std::move(E)); // Spliced text: no position in this buffer.
  else
    At = findCallee(Tree, Foreign->getName());
  if (!At)
    return make_error<DiagnosticError>(SMDiagnostic(
        SM.getMemoryBuffer(BufferID)->getBufferIdentifier(),
        SourceMgr::DK_Error, Message));
  return makeError(SM, locAt(SM, BufferID, At->Range.Begin), Message);
}
