//===- Verify.h - LLVM verifier with located errors -------------*- C++ -*-===//
//
// verifyLocated: requires a module assembled from plain lowering of Tree;
// produces nothing, or the verifier's first complaint located at the
// definition (and, where it can be found, the instruction) it is about.
// Breaks: debug info of another version, or malformed, is stripped with a
// warning through the context's diagnostic handler, as llvm-as does.
// Given \p Only, just those functions are verified: the text's in a module
// that is otherwise not the text's (one a template is instantiated into).
// Instructions are located through their origins (Origins.h).
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_VERIFY_H
#define LLQUOTE_LIB_VERIFY_H

#include "Origins.h"
#include "Syntax.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include <vector>

namespace llq {

llvm::Error verifyLocated(llvm::Module &M, const SyntaxTree &Tree,
                          const llvm::SourceMgr &SM, unsigned BufferID,
                          OriginSource Origins = {},
                          const std::vector<llvm::Function *> *Only = nullptr);

} // namespace llq

#endif // LLQUOTE_LIB_VERIFY_H
