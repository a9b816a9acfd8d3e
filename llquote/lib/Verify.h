//===- Verify.h - LLVM verifier with located errors -------------*- C++ -*-===//
//
// verifyLocated: requires a module assembled from plain lowering of Tree;
// produces nothing, or the verifier's first complaint located at the
// definition (and, where it can be found, the instruction) it is about.
// Breaks: debug info of another version, or malformed, is stripped with a
// warning through the context's diagnostic handler, as llvm-as does.
// verifyFunctionsLocated: the same for just the functions \p Fs of a module
// that is otherwise not the text's (one a template is instantiated into).
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_VERIFY_H
#define LLQUOTE_LIB_VERIFY_H

#include "Syntax.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

namespace llq {

llvm::Error verifyLocated(llvm::Module &M, const SyntaxTree &Tree,
                          const llvm::SourceMgr &SM, unsigned BufferID);

llvm::Error verifyFunctionsLocated(llvm::ArrayRef<llvm::Function *> Fs,
                                   const SyntaxTree &Tree,
                                   const llvm::SourceMgr &SM,
                                   unsigned BufferID);

} // namespace llq

#endif // LLQUOTE_LIB_VERIFY_H
