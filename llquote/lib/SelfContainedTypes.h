//===- SelfContainedTypes.h - Struct types that contain themselves -*- C++ -*-===//
//
// checkSelfContainedTypes: requires a tree of buffer BufferID of SM, whole
// or stopped at a syntax error, and, when the text goes into an existing
// module, that module; produces nothing, or an error at the first of the
// tree's type definitions (SyntaxTree::TypeDefs), in source order, whose
// type contains a named struct type that contains itself (through struct
// and array elements, not through pointers). Breaks nothing; changes
// nothing.
//
// Such a type has no size, so LLVM refuses every use that needs one, but
// LLVM 19's parser does not survive all the others: a getelementptr with no
// index over one, or a call that passes one, recurses until the stack
// overflows. llquote refuses the definition itself, which is the one place
// every such input has in common. With vectors longer than
// MaxVectorElements (ParseState.h), it is one of the two inputs llvm-as
// reads that llquote does not; a struct may hold a pointer to itself.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_SELFCONTAINEDTYPES_H
#define LLQUOTE_LIB_SELFCONTAINEDTYPES_H

#include "Syntax.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

namespace llq {

llvm::Error checkSelfContainedTypes(const SyntaxTree &Tree,
                                    const llvm::SourceMgr &SM,
                                    unsigned BufferID,
                                    const llvm::Module *Into);

} // namespace llq

#endif // LLQUOTE_LIB_SELFCONTAINEDTYPES_H
