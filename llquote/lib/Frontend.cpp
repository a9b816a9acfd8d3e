//===- Frontend.cpp - Dialect text in, verified module out ----------------===//
//
// The whole pipeline, top to bottom:
//   parseSyntax   text -> concrete syntax tree        (Parse.cpp)
//   lowerSyntax   tree -> LLVM assembly + source map  (Lower.cpp)
//   assembleModule  assembly -> llvm::Module          (Assemble.cpp)
//   verifyLocated   the LLVM verifier, located        (Verify.cpp)
//
//===----------------------------------------------------------------------===//

#include "llquote/Frontend.h"
#include "Assemble.h"
#include "Lower.h"
#include "Parse.h"
#include "Verify.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llq;
using namespace llvm;

Expected<std::unique_ptr<Module>>
llq::parseModule(SourceMgr &SM, unsigned BufferID, LLVMContext &Ctx,
                 const FrontendOptions &Opts) {
  SyntaxTree Tree(SM.getMemoryBuffer(BufferID)->getBuffer());
  if (Error E = parseSyntax(Tree, SM, BufferID))
    return std::move(E);
  Expected<LoweredText> Lowered = lowerSyntax(Tree, SM, BufferID);
  if (!Lowered)
    return Lowered.takeError();
  Expected<std::unique_ptr<Module>> M =
      assembleModule(*Lowered, SM, BufferID, Ctx);
  if (!M)
    return M.takeError();
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
