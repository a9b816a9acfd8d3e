//===- PrintedType.h - A type as LLVM writes it -----------------*- C++ -*-===//
//
// printed: requires a type; produces its LLVM assembly spelling (`i32`,
// `ptr`, `{ float, i1 }`, `%T`), for messages and for generated text.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_PRINTEDTYPE_H
#define LLQUOTE_LIB_PRINTEDTYPE_H

#include "llvm/IR/Type.h"
#include "llvm/Support/raw_ostream.h"
#include <string>

namespace llq {

inline std::string printed(const llvm::Type *T) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  T->print(OS);
  return S;
}

} // namespace llq

#endif // LLQUOTE_LIB_PRINTEDTYPE_H
