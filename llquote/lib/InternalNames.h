//===- InternalNames.h - The names llquote makes for itself -----*- C++ -*-===//
//
// Every global, function and label name the front end and templates make
// for their own use, in one place. Each is a base: what uses it makes it
// unique in the module first (a counter per base, UniqueNames.h), and
// removes it before the module is handed back. None may reach a diagnostic:
// messages name what the user wrote (Assemble.cpp maps generated local
// names back; these never stand where the user's names do).
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_INTERNALNAMES_H
#define LLQUOTE_LIB_INTERNALNAMES_H

#include "llvm/ADT/StringRef.h"

namespace llq::names {

/// The placeholder functions of lowering: a read is `call T @llq.read()`,
/// an assignment `call void @llq.assign(T V)` (PrintFlat.h, LoweredText.h;
/// RestoreSSA.h replaces both).
inline constexpr llvm::StringLiteral ReadFn = "llq.read";
inline constexpr llvm::StringLiteral AssignFn = "llq.assign";

/// A declaration of the target module set aside while text that defines it
/// is read (Frontend.cpp).
inline constexpr llvm::StringLiteral DeclaredPrefix = "llq.declared.";

/// The local name an llvm::Value bound to an antiquote takes in spliced
/// text: `llq.bound.NAME`.
inline constexpr llvm::StringLiteral BoundPrefix = "llq.bound.";

/// Template.cpp's wrappers: the function a fragment is read in, the
/// globals that keep its values alive and carry them out, and the labels
/// of the wrapper's entry, parameters and exit.
inline constexpr llvm::StringLiteral QuoteFn = "llq.quote";
inline constexpr llvm::StringLiteral UseGlobal = "llq.use";
inline constexpr llvm::StringLiteral LiveGlobal = "llq.live";
inline constexpr llvm::StringLiteral TypeModule = "llq.type";
inline constexpr llvm::StringLiteral EntryLabel = "llq.entry";
inline constexpr llvm::StringLiteral FirstLabel = "llq.first";
inline constexpr llvm::StringLiteral ParamsLabel = "llq.params";
inline constexpr llvm::StringLiteral ExitLabel = "llq.exit";

} // namespace llq::names

#endif // LLQUOTE_LIB_INTERNALNAMES_H
