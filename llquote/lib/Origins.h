//===- Origins.h - The source of each instruction lowering printed -*- C++ -*-===//
//
// recordOrigins: requires \p M freshly assembled from \p L; produces, for
// each instruction of a function that lowering rewrote, the source offset
// it stands for, which the verifier (Verify.h) uses to locate an
// instruction. Whatever deletes instructions afterwards (RestoreSSA.h)
// takes them out, so that no instruction made later is found under a
// deleted one's address.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_ORIGINS_H
#define LLQUOTE_LIB_ORIGINS_H

#include "LoweredText.h"
#include "llvm/IR/Module.h"

namespace llq {

void recordOrigins(const llvm::Module &M, const LoweredText &L,
                   InstructionOrigins &Origins);

/// Where the verifier finds instruction origins: recorded already (when
/// something ran between assembly and verification that deletes
/// instructions), or recorded from the lowered text only when an error
/// needs them, since the module is still as it was assembled.
struct OriginSource {
  const InstructionOrigins *Recorded = nullptr;
  const LoweredText *Lowered = nullptr;
};

} // namespace llq

#endif // LLQUOTE_LIB_ORIGINS_H
