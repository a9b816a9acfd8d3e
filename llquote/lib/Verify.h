//===- Verify.h - LLVM verifier with located errors -------------*- C++ -*-===//
//
// verifyLocated: requires a module assembled from plain lowering of Tree;
// produces nothing, or the verifier's first complaint located at the
// definition (and, where it can be found, the instruction) it is about.
// Breaks: debug info of another version, or malformed, is stripped with a
// warning through the context's diagnostic handler, as llvm-as does.
// verifyFunctionsLocated: the same for just the functions \p Fs of a module
// that is otherwise not the text's (one a template is instantiated into).
// recordOrigins: requires \p M freshly assembled from \p L; produces, for
// each instruction of a function that lowering rewrote, the source offset
// it stands for, which both verifiers then use to locate an instruction.
// Whatever deletes instructions afterwards (RestoreSSA.h) takes them out,
// so that no instruction made later is found under a deleted one's address.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_VERIFY_H
#define LLQUOTE_LIB_VERIFY_H

#include "LoweredText.h"
#include "Syntax.h"
#include "llvm/IR/Module.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

namespace llq {

void recordOrigins(const llvm::Module &M, const LoweredText &L,
                   InstructionOrigins &Origins);

/// Where the verifiers find instruction origins: recorded already (when
/// something ran between assembly and verification that deletes
/// instructions), or recorded from the lowered text only when an error
/// needs them, since the module is still as it was assembled.
struct OriginSource {
  const InstructionOrigins *Recorded = nullptr;
  const LoweredText *Lowered = nullptr;
};

llvm::Error verifyLocated(llvm::Module &M, const SyntaxTree &Tree,
                          const llvm::SourceMgr &SM, unsigned BufferID,
                          OriginSource Origins = {});

llvm::Error verifyFunctionsLocated(llvm::ArrayRef<llvm::Function *> Fs,
                                   const SyntaxTree &Tree,
                                   const llvm::SourceMgr &SM,
                                   unsigned BufferID, OriginSource Origins = {});

} // namespace llq

#endif // LLQUOTE_LIB_VERIFY_H
