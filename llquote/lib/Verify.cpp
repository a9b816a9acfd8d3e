//===- Verify.cpp - LLVM verifier with located errors ---------------------===//
//
// The verifier reports a message and prints the offending values, without a
// source position. To locate it, each defined function is verified on its
// own; the first broken one is matched by name to its `define`, and its
// instructions (which correspond one to one to the Inst nodes of plain IR)
// are matched against the values the verifier printed.
//
// Debug info is treated as llvm-as treats it: debug info of another version
// than this LLVM's is dropped with a warning, and so is debug info that is
// itself malformed; the rest of the module must verify.
//
//===----------------------------------------------------------------------===//

#include "Verify.h"
#include "Origins.h"
#include "Parse.h"
#include "llquote/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

using namespace llq;
using namespace llvm;

static const Node *findDefine(const SyntaxTree &Tree, StringRef Name) {
  for (const Node *Top = Tree.Root->First; Top; Top = Top->Next) {
    if (!Top->is(NodeKind::Define))
      continue;
    for (const Node *C = Top->First; C; C = C->Next)
      if (C->is(NodeKind::GlobalRef)) {
        if (nameOfToken(Tree.text(C)) == Name)
          return Top;
        break;
      }
  }
  return nullptr;
}

/// The source offset of the instruction of \p F the verifier printed, when
/// lowering recorded it.
static std::optional<uint32_t> findOrigin(const Function &F,
                                          StringRef VerifierOutput,
                                          OriginSource Source) {
  if (!Source.Lowered)
    return std::nullopt;
  InstructionOrigins Origins;
  recordOrigins(F, *Source.Lowered, Source.Inserted, Origins);
  for (const Instruction &I : instructions(F)) {
    auto It = Origins.find(&I);
    if (It == Origins.end())
      continue;
    std::string Printed;
    raw_string_ostream OS(Printed);
    I.print(OS);
    if (VerifierOutput.contains(StringRef(Printed).trim()))
      return It->second;
  }
  return std::nullopt;
}

/// The Inst node of \p Define whose instruction the verifier printed.
static const Node *findInstruction(const Function &F, const Node *Define,
                                   StringRef VerifierOutput) {
  const Node *Body = Define->Last;
  if (!Body || !Body->is(NodeKind::Body))
    return nullptr;
  std::vector<const Node *> Insts;
  for (const Node *C = Body->First; C; C = C->Next)
    if (C->is(NodeKind::Inst))
      Insts.push_back(C);
  if (Insts.size() != F.getInstructionCount())
    return nullptr;
  size_t Index = 0;
  for (const Instruction &I : instructions(F)) {
    std::string Printed;
    raw_string_ostream OS(Printed);
    I.print(OS);
    if (VerifierOutput.contains(StringRef(Printed).trim()))
      return Insts[Index];
    ++Index;
  }
  return nullptr;
}

/// Drops debug info of another version, warning through the context as
/// LLVM's own reader does.
static void dropOtherVersionDebugInfo(Module &M) {
  unsigned Version = getDebugMetadataVersionFromModule(M);
  if (Version != DEBUG_METADATA_VERSION && StripDebugInfo(M))
    M.getContext().diagnose(DiagnosticInfoDebugMetadataVersion(M, Version));
}

/// The verifier's first complaint about \p F, at its instruction or its
/// `define`; success if \p F verifies.
static Error verifyOne(const Function &F, const SyntaxTree &Tree,
                       const SourceMgr &SM, unsigned BufferID,
                       OriginSource Origins) {
  std::string FReport;
  raw_string_ostream FOS(FReport);
  if (!verifyFunction(F, &FOS))
    return Error::success();
  StringRef Message = StringRef(FReport).split('\n').first;
  const Node *Define = findDefine(Tree, F.getName());
  if (!Define)
    return make_error<DiagnosticError>(SMDiagnostic(
        SM.getMemoryBuffer(BufferID)->getBufferIdentifier(),
        SourceMgr::DK_Error, Message));
  if (std::optional<uint32_t> Origin = findOrigin(F, FReport, Origins))
    return makeError(SM, locAt(SM, BufferID, *Origin), Message);
  const Node *At = findInstruction(F, Define, FReport);
  return makeError(SM, locAt(SM, BufferID, (At ? At : Define)->Range.Begin),
                   Message);
}

/// Whether a DIGlobalVariableExpression of \p M holds, as its variable or
/// its expression, a node of another kind (`var: !{null}`): LLVM 19's
/// verifier casts both without a check and reads past the node (found by
/// the template fuzzer). Looked for in the metadata the verifier visits:
/// named metadata, the attachments of globals and functions, and those of
/// instructions other than their location.
static bool hasMistypedGlobalVariableExpression(const Module &M) {
  SmallPtrSet<const MDNode *, 32> Seen;
  SmallVector<const MDNode *, 32> Work;
  auto Add = [&](const Metadata *MD) {
    if (auto *N = dyn_cast_or_null<MDNode>(MD))
      if (Seen.insert(N).second)
        Work.push_back(N);
  };
  SmallVector<std::pair<unsigned, MDNode *>, 4> Attached;
  for (const NamedMDNode &Named : M.named_metadata())
    for (const MDNode *N : Named.operands())
      Add(N);
  for (const GlobalObject &GO : M.global_objects()) {
    Attached.clear();
    GO.getAllMetadata(Attached);
    for (const auto &KN : Attached)
      Add(KN.second);
    if (auto *F = dyn_cast<Function>(&GO))
      for (const Instruction &I : instructions(*F))
        if (I.hasMetadataOtherThanDebugLoc()) {
          Attached.clear();
          I.getAllMetadataOtherThanDebugLoc(Attached);
          for (const auto &KN : Attached)
            Add(KN.second);
        }
  }
  while (!Work.empty()) {
    const MDNode *N = Work.pop_back_val();
    if (auto *GVE = dyn_cast<DIGlobalVariableExpression>(N)) {
      const Metadata *Var = GVE->getRawVariable();
      const Metadata *Expr = GVE->getRawExpression();
      if ((Var && !isa<DIGlobalVariable>(Var)) ||
          (Expr && !isa<DIExpression>(Expr)))
        return true;
    }
    for (const MDOperand &Op : N->operands())
      Add(Op.get());
  }
  return false;
}

/// Whether \p M verifies, debug info included, found without a report, and
/// in \p BrokenDebugInfo whether its debug info is broken: LLVM 19's
/// verifier crashes while it prints some broken debug records (a `metadata
/// !{}` variable, a record without a location), so this runs before any
/// verification that prints.
static bool verifiesSilently(const Module &M, bool &BrokenDebugInfo) {
  BrokenDebugInfo = hasMistypedGlobalVariableExpression(M);
  if (BrokenDebugInfo)
    return false;
  return !verifyModule(M, /*OS=*/nullptr, &BrokenDebugInfo) &&
         !BrokenDebugInfo;
}

/// Whether \p M's debug info is broken (verifiesSilently).
static bool debugInfoIsBroken(const Module &M) {
  bool BrokenDebugInfo;
  verifiesSilently(M, BrokenDebugInfo);
  return BrokenDebugInfo;
}

/// Drops the debug info of \p Fs if the module's is broken, warning as
/// verifyLocated does.
static void dropBrokenDebugInfo(ArrayRef<Function *> Fs) {
  if (Fs.empty())
    return;
  Module &M = *Fs.front()->getParent();
  if (!debugInfoIsBroken(M))
    return;
  bool Stripped = false;
  for (Function *F : Fs)
    Stripped |= stripDebugInfo(*F);
  if (Stripped)
    M.getContext().diagnose(DiagnosticInfoIgnoringInvalidDebugMetadata(M));
}

/// The functions \p Fs of a module that is otherwise not the text's.
static Error verifyFunctions(ArrayRef<Function *> Fs, const SyntaxTree &Tree,
                             const SourceMgr &SM, unsigned BufferID,
                             OriginSource Origins) {
  dropBrokenDebugInfo(Fs);
  for (Function *F : Fs)
    if (!F->isDeclaration())
      if (Error E = verifyOne(*F, Tree, SM, BufferID, Origins))
        return E;
  return Error::success();
}

Error llq::verifyLocated(Module &M, const SyntaxTree &Tree,
                         const SourceMgr &SM, unsigned BufferID,
                         OriginSource Origins,
                         const std::vector<Function *> *Only) {
  if (Only)
    return verifyFunctions(*Only, Tree, SM, BufferID, Origins);
  dropOtherVersionDebugInfo(M);
  // The common case, one silent verification: a module that passes it,
  // debug info included, is done.
  bool BrokenDebugInfo;
  if (verifiesSilently(M, BrokenDebugInfo))
    return Error::success();
  // Broken debug info is dropped with a warning, as LLVM's reader does.
  if (BrokenDebugInfo) {
    M.getContext().diagnose(DiagnosticInfoIgnoringInvalidDebugMetadata(M));
    StripDebugInfo(M);
  }
  // Stripping leaves named metadata outside llvm.dbg.*, and the verifier
  // would still cast what it reaches unchecked: refuse the module instead.
  if (hasMistypedGlobalVariableExpression(M)) {
    const MemoryBuffer *Buf = SM.getMemoryBuffer(BufferID);
    StringRef Text = Buf->getBuffer();
    size_t At = Text.find("!DIGlobalVariableExpression(");
    SMLoc Loc = SMLoc::getFromPointer(
        Text.data() + (At == StringRef::npos ? 0 : At));
    return make_error<DiagnosticError>(SM.GetMessage(
        Loc, SourceMgr::DK_Error,
        "invalid debug info: a !DIGlobalVariableExpression's 'var:' must be "
        "a !DIGlobalVariable and its 'expr:' a !DIExpression, and this one "
        "is reached from named metadata that is not debug info"));
  }
  std::string Report;
  raw_string_ostream OS(Report);
  if (!verifyModule(M, &OS))
    return Error::success();
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    if (Error E = verifyOne(F, Tree, SM, BufferID, Origins))
      return E;
  }
  StringRef Name = SM.getMemoryBuffer(BufferID)->getBufferIdentifier();
  return make_error<DiagnosticError>(
      SMDiagnostic(Name, SourceMgr::DK_Error,
                   StringRef(Report).split('\n').first));
}
