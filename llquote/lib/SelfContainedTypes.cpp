//===- SelfContainedTypes.cpp - Struct types that contain themselves -----===//
//
// The contract is in SelfContainedTypes.h. Types are read from the syntax tree: a Type
// node's text says what it is (a pointer ends in `*`, an array starts with
// `[`, a struct with `{` or `<{`, a named type with `%`), and its Type
// children are its element types. Named types resolve to the tree's type
// definitions first, then to the existing module's struct types.
//
//===----------------------------------------------------------------------===//

#include "SelfContainedTypes.h"
#include "Parse.h"
#include "llquote/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/DerivedTypes.h"
#include <map>

using namespace llq;
using namespace llvm;

namespace {

class SelfContainment {
public:
  SelfContainment(const SyntaxTree &Tree, const Module *Into)
      : Tree(Tree), Into(Into) {}

  void addDefinition(const std::string &Name, const Node *Def) {
    Defs[Name] = Def;
  }

  /// The name of a named type that contains itself and that the named type
  /// \p Name contains (or is), or an empty string.
  std::string selfContained(const std::string &Name) {
    auto [It, New] = Visits.try_emplace(Name, Visit{Active, {}});
    if (!New)
      return It->second.S == Active ? Name : It->second.Found;
    std::string Found;
    if (auto Def = Defs.find(Name); Def != Defs.end()) {
      for (const Node *Body = Def->second->First; Body && Found.empty();
           Body = Body->Next)
        Found = containedIn(Body);
    } else if (Into) {
      if (StructType *ST = StructType::getTypeByName(Into->getContext(), Name))
        Found = inModule(ST);
    }
    Visits[Name] = Visit{Done, Found};
    return Found;
  }

private:
  /// The same question for the type \p Ty of the tree.
  std::string containedIn(const Node *Ty) {
    if (!Ty || !Ty->is(NodeKind::Type))
      return {};
    StringRef Text = Tree.text(Ty).trim();
    if (Text.ends_with("*"))
      return {};
    if (Text.starts_with("%"))
      return selfContained(nameOfToken(Text));
    if (!Text.starts_with("[") && !Text.starts_with("{") &&
        !Text.starts_with("<{"))
      return {};
    for (const Node *Elt = Ty->First; Elt; Elt = Elt->Next)
      if (std::string Name = containedIn(Elt); !Name.empty())
        return Name;
    return {};
  }

  enum State : uint8_t { Active, Done };
  struct Visit {
    State S;
    std::string Found;
  };

  /// The same question for a type LLVM already holds.
  std::string inModule(Type *Ty) {
    if (auto *AT = dyn_cast<ArrayType>(Ty))
      return inModule(AT->getElementType());
    auto *ST = dyn_cast<StructType>(Ty);
    if (!ST)
      return {};
    auto [It, New] = LLVMVisits.try_emplace(ST, Visit{Active, {}});
    if (!New)
      return It->second.S == Active ? ST->getName().str() : It->second.Found;
    std::string Found;
    for (Type *Elt : ST->elements())
      if (Found = inModule(Elt); !Found.empty())
        break;
    LLVMVisits[ST] = Visit{Done, Found};
    return Found;
  }

  const SyntaxTree &Tree;
  const Module *Into;
  std::map<std::string, const Node *> Defs;
  std::map<std::string, Visit> Visits;
  DenseMap<StructType *, Visit> LLVMVisits;
};

/// The name a type definition defines.
std::string definedName(const SyntaxTree &Tree, const Node *Def) {
  // The definition starts with the name's token; what follows it may be
  // blanks, a comment or '=' directly, so the token ends where the lexer's
  // name characters end.
  StringRef Text = Tree.text(Def);
  size_t End;
  if (Text.starts_with("%\""))
    End = std::min(Text.find('"', 2) + 1, Text.size());
  else
    End = std::min(Text.drop_front().find_if_not([](char C) {
                     return isAlnum(C) || C == '-' || C == '$' || C == '.' ||
                            C == '_';
                   }),
                   Text.size() - 1) +
          1;
  return nameOfToken(Text.take_front(End));
}

} // namespace

Error llq::checkSelfContainedTypes(const SyntaxTree &Tree, const SourceMgr &SM,
                                   unsigned BufferID, const Module *Into) {
  const std::vector<const Node *> &TypeDefs = Tree.TypeDefs;
  if (TypeDefs.empty())
    return Error::success();
  SelfContainment Types(Tree, Into);
  std::vector<std::string> Names;
  for (const Node *Def : TypeDefs) {
    Names.push_back(definedName(Tree, Def));
    Types.addDefinition(Names.back(), Def);
  }
  for (size_t I = 0; I < TypeDefs.size(); ++I) {
    const Node *Def = TypeDefs[I];
    const std::string &Name = Names[I];
    std::string Inner = Types.selfContained(Name);
    if (Inner.empty())
      continue;
    std::string Message = "'%" + asmName(Name) + "' ";
    if (Inner != Name)
      Message += "contains '%" + asmName(Inner) + "', which ";
    Message += "contains itself, not a pointer to itself: such a type has no "
               "size, and LLVM cannot use it";
    return makeError(SM, locAt(SM, BufferID, Def->Range.Begin), Message);
  }
  return Error::success();
}
