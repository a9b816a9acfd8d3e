//===- UniqueNames.h - Fresh local names in amortised O(1) ------*- C++ -*-===//
//
// Lowering invents names (blocks `for.cond`, temporaries, the placeholder
// reads `x.read` and versions `x.v`) that must not clash with any name of
// the function. Trying `for.cond.1`, `for.cond.2`, ... from 1 for every new
// name costs O(n) per name and O(n^2) per function, which generated code
// (unrolled or inlined kernels of tens of thousands of lines) makes visible.
// As LLVM's ValueSymbolTable does, a counter per prefix remembers where the
// last search stopped: the names below it are taken, and names are never
// given back, so each number is tried at most once and making n names costs
// O(n) in all.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_UNIQUENAMES_H
#define LLQUOTE_LIB_UNIQUENAMES_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include <string>

namespace llq {

/// Makes names unused in a set that only grows, and adds them to it.
class UniqueNamer {
public:
  explicit UniqueNamer(llvm::StringSet<> &Used) : Used(Used) {}

  /// \p Base itself if it is unused, else `Base Sep N` for the least N >= 1
  /// that is unused. The same name the search from 1 would give, because
  /// \p Used never loses a name.
  std::string make(llvm::StringRef Base, llvm::StringRef Sep) {
    if (Used.insert(Base).second)
      return Base.str();
    std::string Prefix = (Base + Sep).str();
    unsigned &Next = NextSuffix.try_emplace(Prefix, 1).first->second;
    std::string Name;
    do
      Name = Prefix + std::to_string(Next++);
    while (!Used.insert(Name).second);
    return Name;
  }

private:
  llvm::StringSet<> &Used;
  /// By `Base Sep`: the least suffix not yet known to be taken.
  llvm::StringMap<unsigned> NextSuffix;
};

} // namespace llq

#endif // LLQUOTE_LIB_UNIQUENAMES_H
