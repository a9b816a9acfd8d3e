//===- Assemble.h - LLVM assembly text to llvm::Module ----------*- C++ -*-===//
//
// assembleModule: requires lowered text and its SourceMap; produces the module
// LLVM's own assembler reads from it, or LLVM's diagnostic moved back to the
// user's source through the map.
// assembleInto: the same, reading into the existing module M. On error M may
// hold part of the text: the caller restores it.
// assembleType: requires lowered text that is one type; produces that type,
// named types being those of M.
//
// One pass with three entries, by what the text is read into: all three
// hand LLVM's diagnostics back through the source map and keep LLVM's
// reader away from the metadata that crashes it, which is this file's work.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_ASSEMBLE_H
#define LLQUOTE_LIB_ASSEMBLE_H

#include "LoweredText.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include <memory>

namespace llq {

llvm::Expected<std::unique_ptr<llvm::Module>>
assembleModule(const LoweredText &L, const llvm::SourceMgr &SM,
               unsigned BufferID, llvm::LLVMContext &Ctx);

llvm::Error assembleInto(const LoweredText &L, const llvm::SourceMgr &SM,
                         unsigned BufferID, llvm::Module &M);

llvm::Expected<llvm::Type *> assembleType(const LoweredText &L,
                                          const llvm::SourceMgr &SM,
                                          unsigned BufferID,
                                          const llvm::Module &M);

} // namespace llq

#endif // LLQUOTE_LIB_ASSEMBLE_H
