//===- Binding.h - C++ values for antiquotes --------------------*- C++ -*-===//
//
// A Binding is the C++ value that fills a `$kind:name` antiquote: a type, a
// constant, a number, a name, a data layout, a triple, a fragment of dialect
// text, or a list of these for the plural kinds ($defs, $bbs, $instrs,
// $params, $args). Bindings convert implicitly from those C++ types, so a
// binding map reads naturally:
//
//   llq::Bindings B{{"elt", Builder.getFloatTy()}, {"n", 1024}, {"f", "kernel"}};
//
// Each antiquote kind accepts some of these; a binding of another kind is
// reported at the antiquote, saying what was expected and what was given.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_BINDING_H
#define LLQUOTE_BINDING_H

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Constant.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Type.h"
#include "llvm/IR/Value.h"
#include "llvm/TargetParser/Triple.h"
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace llq {

/// What a template's or a fragment's text is, as in the original quoters:
/// where it may be spliced, and what instantiating it gives.
enum class Granularity : uint8_t {
  Module,       ///< A whole module.
  Definitions,  ///< Top-level entities added to an existing module.
  Global,       ///< One global variable, alias, ifunc or function.
  Blocks,       ///< Basic blocks of a function.
  Instructions, ///< Instructions; control structures included.
  Terminator,   ///< One terminator instruction.
  Type,         ///< A type.
  Operand,      ///< A typed operand: `i32 %x`, `ptr @g`, `float 1.0`.
  Text,         ///< Dialect text that the antiquote it is bound to takes.
};

/// The granularity's name, for diagnostics ("an instruction template").
const char *describe(Granularity G);

class Binding;

/// A piece of dialect text to splice: instructions, blocks or definitions.
/// It may use control structures and reassign variables: SSA form is built
/// after splicing. It reads the template's variables by name. It may assign
/// only the template variables listed in Outputs: defining any other name
/// that the template also uses is an error, so a fragment never captures a
/// template variable by accident (see docs/Antiquotes.md).
///
/// A hygienic fragment (of an LLQ_HYGIENIC_INSTRS or LLQ_HYGIENIC_BLOCKS
/// template) reads nothing by name: what it reads comes through its
/// antiquotes. Its own names are renamed apart at each splice, so it may be
/// spliced any number of times into one function, and the values it
/// exports are reached through value(), never through a name.
struct Fragment {
  std::string Text;
  std::vector<std::string> Outputs; ///< Template variables it assigns.
  std::string Origin; ///< Where it was written, for notes ("file.cpp:12").
  /// Text fits any antiquote; a fragment made by Template::fragment() has
  /// its template's granularity and fits only the antiquotes that take it.
  Granularity Kind = Granularity::Text;
  /// For an operand fragment: the operand without its type, for $opr.
  std::string Untyped;
  /// Whether its names are its own (see above).
  bool Hygienic = false;
  /// A hygienic fragment's exports: each name as its template writes it,
  /// and the name it has in Text. Exports of the hygienic fragments
  /// spliced into it follow, with the first empty: a splice renames every
  /// name of the fragment apart except these.
  std::vector<std::pair<std::string, std::string>> Exports;

  /// The value the fragment exports as \p Name (written without '%'), for
  /// an `$opr:` antiquote of the code that follows its splice. A name the
  /// fragment does not export gives a binding that is an error where it
  /// is spliced.
  Binding value(llvm::StringRef Name) const;

  explicit Fragment(std::string Text, std::vector<std::string> Outputs = {},
                    std::string Origin = "",
                    Granularity Kind = Granularity::Text)
      : Text(std::move(Text)), Outputs(std::move(Outputs)),
        Origin(std::move(Origin)), Kind(Kind) {}
};

class Binding {
public:
  enum class Kind { Type, Constant, Integer, Float, Bool, Name, DataLayout,
                    Triple, Fragment, List, Source, Value, Invalid, Param };

  Binding(llvm::Type *T) : K(Kind::Type), Ty(T) {}
  Binding(llvm::Constant *C) : K(Kind::Constant), C(C) {}
  /// A value of the function being built (an argument, an instruction, a
  /// block): only Template::emit() splices these. Constants are constants.
  Binding(llvm::Value *V)
      : K(llvm::isa<llvm::Constant>(V) ? Kind::Constant : Kind::Value),
        C(llvm::dyn_cast<llvm::Constant>(V)), V(V) {}
  Binding(bool B) : K(Kind::Bool), Int(64, B) {}
  Binding(int V) : K(Kind::Integer), Int(64, V, /*isSigned=*/true), Signed(true) {}
  Binding(long V) : K(Kind::Integer), Int(64, V, /*isSigned=*/true), Signed(true) {}
  Binding(long long V)
      : K(Kind::Integer), Int(64, V, /*isSigned=*/true), Signed(true) {}
  Binding(unsigned V) : K(Kind::Integer), Int(64, V) {}
  Binding(unsigned long V) : K(Kind::Integer), Int(64, V) {}
  Binding(unsigned long long V) : K(Kind::Integer), Int(64, V) {}
  Binding(const llvm::APInt &V) : K(Kind::Integer), Int(V) {}
  Binding(double V) : K(Kind::Float), FP(V) {}
  Binding(float V) : K(Kind::Float), FP(V) {}
  Binding(const llvm::APFloat &V) : K(Kind::Float), FP(V) {}
  Binding(const char *S) : K(Kind::Name), Text(S) {}
  Binding(std::string S) : K(Kind::Name), Text(std::move(S)) {}
  Binding(llvm::StringRef S) : K(Kind::Name), Text(S.str()) {}
  Binding(const llvm::DataLayout &DL)
      : K(Kind::DataLayout), Text(DL.getStringRepresentation()) {}
  Binding(const llvm::Triple &T) : K(Kind::Triple), Text(T.str()) {}
  Binding(Fragment F) : K(Kind::Fragment), Text(std::move(F.Text)),
                        Origin(std::move(F.Origin)), Outputs(std::move(F.Outputs)),
                        Gran(F.Kind), Untyped(std::move(F.Untyped)),
                        Hygienic(F.Hygienic) {
    for (auto &E : F.Exports)
      Exports.push_back(std::move(E.second));
  }
  Binding(std::vector<Binding> L) : K(Kind::List), List(std::move(L)) {}
  template <typename T>
  Binding(const std::vector<T> &L) : K(Kind::List) {
    for (const T &E : L)
      List.emplace_back(E);
  }

  /// Dialect text for any kind of antiquote, as `llquote-fmt -D` gives it:
  /// a name for $id/$gid/$label (a leading sigil is optional), the string of
  /// a $dl/$tt, and for every other kind text spliced as it is.
  /// \p Origin names the file the text was read from, if any: an error
  /// inside the text is then reported there.
  static Binding source(std::string Text, std::string Origin = "") {
    Binding B{Fragment(std::move(Text), {}, std::move(Origin))};
    B.K = Kind::Source;
    return B;
  }

  /// A parameter for `$param:` and `$params:`: its type, its name (without
  /// '%'), and attributes written before the name (`noalias`, `nocapture`).
  static Binding param(llvm::Type *T, std::string Name,
                       std::vector<std::string> Attributes = {}) {
    Binding B{T};
    B.K = Kind::Param;
    B.Text = std::move(Name);
    B.Attributes = std::move(Attributes);
    return B;
  }

  /// A binding that is an error wherever it is spliced: \p Message says
  /// why (Fragment::value of a name the fragment does not export).
  static Binding invalid(std::string Message) {
    Binding B{std::string()};
    B.K = Kind::Invalid;
    B.Text = std::move(Message);
    return B;
  }

  Kind kind() const { return K; }
  /// What the binding holds, in words, for diagnostics ("an integer").
  const char *describe() const;

  llvm::Type *type() const { return Ty; }
  llvm::Constant *constant() const { return C; }
  llvm::Value *value() const { return V; }
  /// A fragment's granularity.
  Granularity granularity() const { return Gran; }
  /// An operand fragment's operand without its type.
  const std::string &untyped() const { return Untyped; }
  const llvm::APInt &integer() const { return Int; }
  bool isSigned() const { return Signed; }
  const llvm::APFloat &floating() const { return FP; }
  const std::string &text() const { return Text; }
  const std::string &origin() const { return Origin; }
  const std::vector<std::string> &outputs() const { return Outputs; }
  /// A parameter's attributes.
  const std::vector<std::string> &attributes() const { return Attributes; }
  /// Whether a fragment is hygienic, and the names in its text that a
  /// splice keeps (its exports and those of its hygienic parts).
  bool hygienic() const { return Hygienic; }
  const std::vector<std::string> &exports() const { return Exports; }
  const std::vector<Binding> &list() const { return List; }

private:
  Kind K;
  llvm::Type *Ty = nullptr;
  llvm::Constant *C = nullptr;
  llvm::Value *V = nullptr;
  Granularity Gran = Granularity::Text;
  std::string Untyped;
  llvm::APInt Int;
  bool Signed = false;
  llvm::APFloat FP{0.0};
  std::string Text, Origin;
  std::vector<std::string> Outputs, Attributes;
  bool Hygienic = false;
  std::vector<std::string> Exports;
  std::vector<Binding> List;
};

inline Binding Fragment::value(llvm::StringRef Name) const {
  Name.consume_front("%");
  for (const auto &[Written, Spliced] : Exports)
    if (!Written.empty() && Written == Name)
      return Binding(Spliced);
  std::string Known;
  for (const auto &[Written, Spliced] : Exports)
    if (!Written.empty())
      Known += (Known.empty() ? "'%" : ", '%") + Written + "'";
  return Binding::invalid(
      "the fragment" + (Origin.empty() ? std::string() : " of " + Origin) +
      " exports no '%" + Name.str() + "' (" +
      (Known.empty() ? std::string("it exports nothing")
                     : "it exports " + Known) +
      "); list it among the names fragment() exports");
}

/// A Fragment that remembers the C++ file and line it is written on, for the
/// note that goes with an error in it:
///   auto Step = LLQ_FRAGMENT("%acc = fadd float %acc, %x", "acc");
#define LLQ_FRAGMENT(Text, ...)                                                \
  ::llq::Fragment((Text), {__VA_ARGS__},                                       \
                  std::string(__FILE__) + ":" + std::to_string(__LINE__))

/// Antiquote names to their values.
using Bindings = llvm::StringMap<Binding>;

} // namespace llq

#endif // LLQUOTE_BINDING_H
