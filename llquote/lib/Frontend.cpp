//===- Frontend.cpp - Dialect text in, verified module out ----------------===//
//
// The whole pipeline, top to bottom:
//   parseSyntax   text -> concrete syntax tree        (Parse.cpp)
//   spliceAntiquotes  bindings into the text, which is parsed again
//                     (Splice.cpp; only with antiquotes and bindings)
//   lowerSyntax   tree -> LLVM assembly + source map  (Lower.cpp)
//   assembleModule  assembly -> llvm::Module          (Assemble.cpp)
//   promoteSlots    reference mode only: mem2reg      (Promote.cpp)
//   verifyLocated   the LLVM verifier, located        (Verify.cpp)
//
//===----------------------------------------------------------------------===//

#include "llquote/Frontend.h"
#include "Assemble.h"
#include "Lower.h"
#include "Parse.h"
#include "Promote.h"
#include "Splice.h"
#include "Verify.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llq;
using namespace llvm;

/// Where \p E points in the source, or null; \p E is left as it was.
static const char *errorPosition(Error &E) {
  const char *Where = nullptr;
  E = handleErrors(std::move(E),
                   [&](std::unique_ptr<DiagnosticError> D) -> Error {
                     Where = D->error().getLoc().getPointer();
                     return Error(std::move(D));
                   });
  return Where;
}

/// Our grammar stops at the first syntax error, while LLVM's assembler also
/// checks meaning as it reads. In text that is plain IR up to the syntax
/// error, LLVM may find an earlier error; the earliest one is the one to show.
/// LLVM reads only the text before our error, which the lexer has already
/// checked for nesting depth and literal length.
static Error firstErrorInSourceOrder(Error SyntaxError, const SyntaxTree &Tree,
                                     const SourceMgr &SM, unsigned BufferID) {
  if (Tree.sawDialect() || Tree.LexicalError)
    return SyntaxError;
  LoweredText Prefix;
  Prefix.Storage = Tree.Source.substr(0, Tree.ErrorOffset).str();
  Prefix.Map.addVerbatim(0, 0, Tree.ErrorOffset);
  LLVMContext Scratch;
  Expected<std::unique_ptr<Module>> M =
      assembleModule(Prefix, SM, BufferID, Scratch);
  if (M)
    return SyntaxError;
  Error LLVMError = M.takeError();
  const char *Ours = errorPosition(SyntaxError);
  const char *Theirs = errorPosition(LLVMError);
  if (Ours && Theirs && Theirs < Ours) {
    consumeError(std::move(SyntaxError));
    return LLVMError;
  }
  consumeError(std::move(LLVMError));
  return SyntaxError;
}

/// Moves every diagnostic of \p E that points into buffer \p From to buffer
/// \p To through \p Map.
static Error remapDiagnostics(Error E, const SourceMap &Map, const SourceMgr &SM,
                              unsigned From, unsigned To) {
  const MemoryBuffer *FromBuf = SM.getMemoryBuffer(From);
  auto Move = [&](const SMDiagnostic &D) {
    const char *P = D.getLoc().getPointer();
    if (!P || P < FromBuf->getBufferStart() || P > FromBuf->getBufferEnd())
      return D;
    uint32_t Src = Map.toSource(static_cast<uint32_t>(P - FromBuf->getBufferStart()));
    return SM.GetMessage(locAt(SM, To, Src), D.getKind(), D.getMessage());
  };
  return mapDiagnostics(std::move(E), Move);
}

/// Adds to an error at an antiquote a note where its binding was written,
/// when the binding knows (fragments made with LLQ_FRAGMENT).
static Error noteBindingOrigin(Error E, const std::vector<AntiquoteSite> &Sites,
                               const Bindings &Bound, const SourceMgr &SM,
                               unsigned BufferID) {
  const char *Start = SM.getMemoryBuffer(BufferID)->getBufferStart();
  return handleErrors(std::move(E), [&](std::unique_ptr<DiagnosticError> D) {
    const char *At = D->error().getLoc().getPointer();
    for (const AntiquoteSite &Site : Sites) {
      if (At != Start + Site.Range.Begin)
        continue;
      auto It = Bound.find(Site.Name);
      if (It != Bound.end() && !It->second.origin().empty())
        D->addNote(SMDiagnostic(It->second.origin(), SourceMgr::DK_Note,
                                "the text bound to '" + Site.Name +
                                    "' is written here"));
      break;
    }
    return Error(std::move(D));
  });
}

/// Replaces the antiquotes by their bindings and reads the result; its
/// diagnostics are moved back to the template.
static Expected<std::unique_ptr<Module>>
parseSpliced(const SyntaxTree &Tree, SourceMgr &SM, unsigned BufferID,
             LLVMContext &Ctx, const FrontendOptions &Opts) {
  std::vector<AntiquoteSite> Sites = collectAntiquotes(Tree);
  Expected<LoweredText> Spliced = spliceAntiquotes(
      Tree.Source, Sites, *Opts.Bound, collectLocalNamesOf(Tree), SM, BufferID);
  if (!Spliced)
    return Spliced.takeError();
  StringRef Name = SM.getMemoryBuffer(BufferID)->getBufferIdentifier();
  unsigned SplicedID = SM.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(Spliced->text(), Name), SMLoc());
  FrontendOptions Inner = Opts;
  Inner.Bound = nullptr; // Bound text is not searched for antiquotes again.
  Inner.Spliced = true;
  Expected<std::unique_ptr<Module>> M = parseModule(SM, SplicedID, Ctx, Inner);
  if (M)
    return M;
  return noteBindingOrigin(
      remapDiagnostics(M.takeError(), Spliced->Map, SM, SplicedID, BufferID),
      Sites, *Opts.Bound, SM, BufferID);
}

Expected<std::unique_ptr<Module>>
llq::parseModule(SourceMgr &SM, unsigned BufferID, LLVMContext &Ctx,
                 const FrontendOptions &Opts) {
  SyntaxTree Tree(SM.getMemoryBuffer(BufferID)->getBuffer());
  if (Error E = parseSyntax(Tree, SM, BufferID))
    return firstErrorInSourceOrder(std::move(E), Tree, SM, BufferID);
  if (Tree.NumAntiquotes && Opts.Bound)
    return parseSpliced(Tree, SM, BufferID, Ctx, Opts);
  LowerOptions LowerOpts;
  LowerOpts.AllowUndef = Opts.AllowUndef;
  LowerOpts.Mem2Reg = Opts.SSA == SSAMode::Mem2Reg;
  LowerOpts.Spliced = Opts.Spliced;
  Expected<LoweredText> Lowered = lowerSyntax(Tree, SM, BufferID, LowerOpts);
  if (!Lowered)
    return Lowered.takeError();
  Expected<std::unique_ptr<Module>> M =
      assembleModule(*Lowered, SM, BufferID, Ctx);
  if (!M)
    return M.takeError();
  if (LowerOpts.Mem2Reg)
    promoteSlots(**M);
  if (Opts.Verify)
    if (Error E = verifyLocated(**M, Tree, SM, BufferID))
      return std::move(E);
  return M;
}

Expected<std::unique_ptr<Module>>
llq::parseModuleString(StringRef Source, StringRef BufferName,
                       LLVMContext &Ctx, const FrontendOptions &Opts) {
  SourceMgr SM;
  unsigned ID = SM.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(Source, BufferName), SMLoc());
  return parseModule(SM, ID, Ctx, Opts);
}
