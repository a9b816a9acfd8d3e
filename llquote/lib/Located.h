//===- Located.h - Offsets in the user's buffers, as SMLocs -----*- C++ -*-===//
//
// The two ways every pass turns a byte offset into a place the user can read:
// locAt gives the SMLoc of an offset of a buffer; remapDiagnostics moves
// the diagnostics of an Error from one buffer to another (lowered or
// spliced text back to the source) through a map of offsets.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_LOCATED_H
#define LLQUOTE_LIB_LOCATED_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include <cstdint>

namespace llq {

/// The location of byte \p Offset of buffer \p BufferID.
inline llvm::SMLoc locAt(const llvm::SourceMgr &SM, unsigned BufferID,
                         uint32_t Offset) {
  return llvm::SMLoc::getFromPointer(
      SM.getMemoryBuffer(BufferID)->getBufferStart() + Offset);
}

/// Moves every diagnostic of \p E that points into buffer \p From to
/// buffer \p To, at the offset \p Map gives for its offset in \p From.
llvm::Error remapDiagnostics(llvm::Error E,
                             llvm::function_ref<uint32_t(uint32_t)> Map,
                             const llvm::SourceMgr &SM, unsigned From,
                             unsigned To);

} // namespace llq

#endif // LLQUOTE_LIB_LOCATED_H
