//===- Splice.cpp - Antiquotes replaced by their bindings -----------------===//
//
// Each antiquote kind renders the bindings it accepts as LLVM assembly text:
// types as LLVM prints them, numbers exactly (floating point in hexadecimal,
// so nothing is rounded), names quoted when they need it, fragments as they
// are. The text then goes through the normal front end, so a value that does
// not fit its position (a double where a float is wanted, an i64 constant
// where a ptr is) is reported by LLVM, at the antiquote.
//
//===----------------------------------------------------------------------===//

#include "Splice.h"
#include "Hygiene.h"
#include "Tokens.h"
#include "Parse.h"
#include "PrintedType.h"
#include "llquote/Diagnostics.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/Support/raw_ostream.h"

using namespace llq;
using namespace llvm;

const char *llq::describe(Granularity G) {
  switch (G) {
  case Granularity::Module: return "a module";
  case Granularity::Definitions: return "definitions";
  case Granularity::Global: return "a global";
  case Granularity::Blocks: return "blocks";
  case Granularity::Instructions: return "instructions";
  case Granularity::Terminator: return "a terminator";
  case Granularity::Type: return "a type";
  case Granularity::Operand: return "an operand";
  case Granularity::Text: return "text";
  }
  llvm_unreachable("unknown granularity");
}

const char *Binding::describe() const {
  switch (K) {
  case Kind::Type: return "a type";
  case Kind::Constant: return "a constant";
  case Kind::Integer: return "an integer";
  case Kind::Float: return "a floating-point number";
  case Kind::Bool: return "a bool";
  case Kind::Name: return "a string";
  case Kind::DataLayout: return "a data layout";
  case Kind::Triple: return "a target triple";
  case Kind::Fragment:
    switch (Gran) {
    case Granularity::Module: return "a module fragment";
    case Granularity::Definitions: return "a definitions fragment";
    case Granularity::Global: return "a global fragment";
    case Granularity::Blocks: return "a blocks fragment";
    case Granularity::Instructions: return "an instructions fragment";
    case Granularity::Terminator: return "a terminator fragment";
    case Granularity::Type: return "a type fragment";
    case Granularity::Operand: return "an operand fragment";
    case Granularity::Text: return "a fragment";
    }
    return "a fragment";
  case Kind::Value: return "an llvm::Value of a function";
  case Kind::Invalid: return "an invalid value";
  case Kind::Param: return "a parameter";
  case Kind::List: return "a list";
  case Kind::Source: return "dialect text";
  }
  llvm_unreachable("unknown binding kind");
}

/// The local names a fragment defines (`%name =`), as written without '%'.
/// A label it defines twice with the template is LLVM's redefinition error.
static std::vector<std::string> definedNames(StringRef Text) {
  std::vector<std::string> Names;
  std::vector<Token> Tokens = lexTokens(Text);
  for (size_t I = 0; I + 1 < Tokens.size(); ++I)
    if (Tokens[I].Class == Token::LocalName &&
        Tokens[I + 1].Class == Token::Equal)
      Names.push_back(Text.slice(Tokens[I].Range.Begin + 1, Tokens[I].Range.End)
                          .str());
  return Names;
}

namespace {
std::string quoted(StringRef Text) {
  std::string S = asmName(Text);
  return S.front() == '"' ? S : "\"" + S + "\"";
}

/// A floating-point number in LLVM's exact hexadecimal form.
std::optional<std::string> floatText(APFloat V) {
  const fltSemantics &Sem = V.getSemantics();
  SmallString<40> S;
  auto Hex = [&](const char *Prefix, const APInt &Bits) {
    S = Prefix;
    SmallString<40> Digits;
    Bits.toStringUnsigned(Digits, 16);
    S.append(Bits.getBitWidth() / 4 - Digits.size(), '0');
    S += Digits;
    return std::string(S);
  };
  if (&Sem == &APFloat::IEEEhalf())
    return Hex("0xH", V.bitcastToAPInt());
  if (&Sem == &APFloat::BFloat())
    return Hex("0xR", V.bitcastToAPInt());
  if (&Sem == &APFloat::IEEEsingle() || &Sem == &APFloat::IEEEdouble()) {
    bool Lost;
    V.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &Lost);
    return Hex("0x", V.bitcastToAPInt());
  }
  return std::nullopt;
}

/// Whether a fragment of granularity \p G may stand where antiquote kind
/// \p K does (text fragments may stand anywhere).
bool fits(AntiquoteKind K, Granularity G) {
  switch (G) {
  case Granularity::Text:
    return true;
  case Granularity::Definitions:
  case Granularity::Global:
    return K == AntiquoteKind::Def || K == AntiquoteKind::Defs;
  case Granularity::Blocks:
    return K == AntiquoteKind::BB || K == AntiquoteKind::BBs;
  case Granularity::Instructions:
  case Granularity::Terminator:
    return K == AntiquoteKind::Instr || K == AntiquoteKind::Instrs;
  case Granularity::Type:
    return K == AntiquoteKind::Type;
  case Granularity::Operand: // Untyped for $opr, as written for $args.
    return K == AntiquoteKind::Opr || K == AntiquoteKind::Args;
  case Granularity::Module:
    return false;
  }
  llvm_unreachable("unknown granularity");
}

class Splicer {
public:
  Splicer(const SourceMgr &SM, unsigned BufferID,
          std::vector<std::string> *Inherited)
      : SM(SM), BufferID(BufferID), Inherited(Inherited) {}
  Expected<std::string> render(const AntiquoteSite &Site, const Binding &B);

private:
  Error wrongKind(const AntiquoteSite &Site, const Binding &B,
                  const char *Wanted) {
    return makeError(SM, locAt(SM, BufferID, Site.Range.Begin),
                     "antiquote '$" + antiquoteKindName(Site.Kind) + ":" +
                         Site.Name + "' takes " + Wanted + ", but '" +
                         Site.Name + "' is bound to " + B.describe());
  }
  Expected<std::string> value(const AntiquoteSite &Site, const Binding &B,
                              bool AllowNames);
  Expected<std::string> text(const AntiquoteSite &Site, const Binding &B,
                             StringRef Separator, const char *Wanted);
  Expected<std::string> args(const AntiquoteSite &Site, const Binding &B,
                             int Index = -1);
  /// A fragment's text as this splice places it: a hygienic fragment's
  /// own names renamed apart, its exports kept.
  std::string fragmentText(const Binding &B) {
    if (!B.hygienic())
      return B.text();
    if (Inherited)
      Inherited->insert(Inherited->end(), B.exports().begin(),
                        B.exports().end());
    return reidPlaceholders(B.text(), B.exports());
  }

  const SourceMgr &SM;
  unsigned BufferID;
  std::vector<std::string> *Inherited;
};
} // namespace

std::optional<std::string> llq::valueText(const Binding &B, AntiquoteKind K) {
  bool AllowNames = K == AntiquoteKind::Opr;
  switch (B.kind()) {
  case Binding::Kind::Constant: {
    std::string S;
    raw_string_ostream OS(S);
    B.constant()->printAsOperand(OS, /*PrintType=*/false);
    return S;
  }
  case Binding::Kind::Integer:
    return toString(B.integer(), 10, B.isSigned());
  case Binding::Kind::Bool:
    return std::string(B.integer().isZero() ? "false" : "true");
  case Binding::Kind::Float:
    return floatText(B.floating());
  case Binding::Kind::Name:
    if (AllowNames)
      return "%" + asmName(B.text());
    return std::nullopt;
  case Binding::Kind::Fragment:
    if (B.granularity() != Granularity::Text && fits(K, B.granularity()))
      return B.untyped();
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

Expected<std::string> Splicer::value(const AntiquoteSite &Site,
                                     const Binding &B, bool AllowNames) {
  const char *Wanted = AllowNames
                             ? "a constant, a number, a bool or a local name"
                             : "a constant, a number or a bool";
  if (B.kind() == Binding::Kind::Value && AllowNames)
    return "%" + asmName(boundValueName(Site.Name));
  if (std::optional<std::string> S = valueText(B, Site.Kind))
    return *S;
  if (B.kind() == Binding::Kind::Float)
    return makeError(SM, locAt(SM, BufferID, Site.Range.Begin),
                     "only half, bfloat, float and double numbers can be "
                     "spliced; bind an llvm::Constant for other formats");
  return wrongKind(Site, B, Wanted);
}

/// Text-like bindings (fragments, strings), and lists of them joined.
Expected<std::string> Splicer::text(const AntiquoteSite &Site, const Binding &B,
                                    StringRef Separator, const char *Wanted) {
  if (B.kind() == Binding::Kind::Fragment && !fits(Site.Kind, B.granularity()))
    return wrongKind(Site, B, Wanted);
  if (B.kind() == Binding::Kind::Fragment)
    return fragmentText(B);
  if (B.kind() == Binding::Kind::Name)
    return B.text();
  if (B.kind() == Binding::Kind::Param &&
      (Site.Kind == AntiquoteKind::Param || Site.Kind == AntiquoteKind::Params)) {
    std::string S = printed(B.type());
    for (const std::string &A : B.attributes())
      S += " " + A;
    return S + " %" + asmName(B.text());
  }
  if (B.kind() != Binding::Kind::List || Separator.empty())
    return wrongKind(Site, B, Wanted);
  std::string S;
  for (const Binding &E : B.list()) {
    Expected<std::string> T = text(Site, E, "", Wanted);
    if (!T)
      return T.takeError();
    S += (S.empty() ? "" : Separator.str()) + *T;
  }
  return S;
}

/// Call arguments: typed constants, or text such as "i32 %x".
Expected<std::string> Splicer::args(const AntiquoteSite &Site, const Binding &B,
                                    int Index) {
  const char *Wanted = "typed constants or argument text, or a list of them";
  if (B.kind() == Binding::Kind::Constant) {
    std::string S;
    raw_string_ostream OS(S);
    B.constant()->printAsOperand(OS, /*PrintType=*/true);
    return S;
  }
  if (B.kind() == Binding::Kind::Value) {
    return printed(B.value()->getType()) + " %" +
           asmName(boundValueName(Site.Name, Index));
  }
  if (B.kind() == Binding::Kind::Fragment && !fits(Site.Kind, B.granularity()))
    return wrongKind(Site, B, Wanted);
  if (B.kind() == Binding::Kind::Fragment)
    return fragmentText(B);
  if (B.kind() == Binding::Kind::Name)
    return B.text();
  if (B.kind() != Binding::Kind::List || Index >= 0)
    return wrongKind(Site, B, Wanted);
  std::string S;
  int I = 0;
  for (const Binding &E : B.list()) {
    Expected<std::string> T = args(Site, E, I++);
    if (!T)
      return T.takeError();
    S += (S.empty() ? "" : ", ") + *T;
  }
  return S;
}

/// Text from the command line: names get their sigil, strings their quotes,
/// and everything else is spliced as written.
static std::string renderSource(AntiquoteKind Kind, StringRef Text) {
  switch (Kind) {
  case AntiquoteKind::Id:
  case AntiquoteKind::Label:
    Text.consume_front("%");
    return "%" + asmName(Text);
  case AntiquoteKind::LabelDef:
    Text.consume_front("%");
    return asmName(Text) + ":";
  case AntiquoteKind::GId:
    Text.consume_front("@");
    return "@" + asmName(Text);
  case AntiquoteKind::DataLayout:
  case AntiquoteKind::Triple:
    return quoted(Text);
  default:
    return Text.str();
  }
}

Expected<std::string> Splicer::render(const AntiquoteSite &Site,
                                      const Binding &B) {
  if (B.kind() == Binding::Kind::Source)
    return renderSource(Site.Kind, B.text());
  if (B.kind() == Binding::Kind::Invalid)
    return makeError(SM, locAt(SM, BufferID, Site.Range.Begin), B.text());
  for (const Binding &E : B.list())
    if (E.kind() == Binding::Kind::Invalid)
      return makeError(SM, locAt(SM, BufferID, Site.Range.Begin), E.text());
  switch (Site.Kind) {
  case AntiquoteKind::DataLayout:
    if (B.kind() == Binding::Kind::DataLayout || B.kind() == Binding::Kind::Name)
      return quoted(B.text());
    return wrongKind(Site, B, "an llvm::DataLayout or its string");
  case AntiquoteKind::Triple:
    if (B.kind() == Binding::Kind::Triple || B.kind() == Binding::Kind::Name)
      return quoted(B.text());
    return wrongKind(Site, B, "an llvm::Triple or its string");
  case AntiquoteKind::Type:
    if (B.kind() == Binding::Kind::Type)
      return printed(B.type());
    if (B.kind() == Binding::Kind::Fragment &&
        B.granularity() != Granularity::Text &&
        fits(Site.Kind, B.granularity()))
      return B.text();
    return wrongKind(Site, B, "an llvm::Type* or a type fragment");
  case AntiquoteKind::Const:
    return value(Site, B, /*AllowNames=*/false);
  case AntiquoteKind::Opr:
    return value(Site, B, /*AllowNames=*/true);
  case AntiquoteKind::Id:
  case AntiquoteKind::Label:
    if (B.kind() == Binding::Kind::Name)
      return "%" + asmName(B.text());
    if (B.kind() == Binding::Kind::Value)
      return "%" + asmName(boundValueName(Site.Name));
    return wrongKind(Site, B, "a name (a string)");
  case AntiquoteKind::LabelDef:
    if (B.kind() == Binding::Kind::Name)
      return asmName(B.text()) + ":";
    return wrongKind(Site, B, "a name (a string)");
  case AntiquoteKind::GId:
    if (B.kind() == Binding::Kind::Name)
      return "@" + asmName(B.text());
    return wrongKind(Site, B, "a name (a string)");
  case AntiquoteKind::Def:
  case AntiquoteKind::BB:
  case AntiquoteKind::Instr:
    return text(Site, B, "", "a fragment or its text");
  case AntiquoteKind::Defs:
  case AntiquoteKind::BBs:
  case AntiquoteKind::Instrs:
    return text(Site, B, "\n", "fragments or their text, or a list of them");
  case AntiquoteKind::Param:
    return text(Site, B, "",
                "a Binding::param or a parameter's text, e.g. \"i32 %x\"");
  case AntiquoteKind::Params:
    return text(Site, B, ", ",
                "Binding::params or parameters' text, or a list of them");
  case AntiquoteKind::Args:
    return args(Site, B);
  }
  llvm_unreachable("unknown antiquote kind");
}

/// A fragment may define a name the template also uses only if it lists
/// the name as an output: anything else would capture a template variable.
/// Definitions ($def:, $defs:) are functions of their own: their local
/// names are never the template's.
static Error checkCapture(const AntiquoteSite &Site, const Binding &B,
                          const StringMap<uint32_t> &Names, const SourceMgr &SM,
                          unsigned BufferID) {
  if (B.kind() == Binding::Kind::List) {
    for (const Binding &E : B.list())
      if (Error Err = checkCapture(Site, E, Names, SM, BufferID))
        return Err;
    return Error::success();
  }
  if (B.kind() != Binding::Kind::Fragment)
    return Error::success();
  // Definitions have functions of their own, whose names are their own.
  if (Site.Kind == AntiquoteKind::Def || Site.Kind == AntiquoteKind::Defs)
    return Error::success();
  for (const std::string &Name : definedNames(B.text())) {
    auto It = Names.find(Name);
    if (It == Names.end() || llvm::is_contained(B.outputs(), Name))
      continue;
    auto E = std::make_unique<DiagnosticError>(SM.GetMessage(
        locAt(SM, BufferID, Site.Range.Begin), SourceMgr::DK_Error,
        "the fragment bound to '" + Site.Name + "' defines '%" + Name +
            "', which the template also uses; rename it in the fragment, or "
            "list '" + Name + "' among the fragment's outputs"));
    E->addNote(SM.GetMessage(locAt(SM, BufferID, It->second),
                             SourceMgr::DK_Note,
                             "the template's '%" + Name + "' is here"));
    return Error(std::move(E));
  }
  return Error::success();
}

Expected<LoweredText>
llq::spliceAntiquotes(StringRef Source, const std::vector<AntiquoteSite> &Sites,
                      const Bindings &Bound, const StringMap<uint32_t> &Names,
                      const SourceMgr &SM, unsigned BufferID,
                      std::vector<SplicedSource> *FromFiles,
                      FragmentSplice *AsFragment) {
  Splicer S(SM, BufferID, AsFragment ? &AsFragment->Inherited : nullptr);
  // Every binding's text first: a final splice names the placeholders in
  // them apart from every other name of the whole text.
  std::vector<std::string> Texts;
  Texts.reserve(Sites.size());
  bool AnyPlaceholder = false;
  for (const AntiquoteSite &Site : Sites) {
    auto It = Bound.find(Site.Name);
    if (It == Bound.end())
      return makeError(SM, locAt(SM, BufferID, Site.Range.Begin),
                       "unbound antiquote '$" + antiquoteKindName(Site.Kind) +
                           ":" + Site.Name + "': nothing is bound to '" +
                           Site.Name + "'");
    if (Error E = checkCapture(Site, It->second, Names, SM, BufferID))
      return std::move(E);
    Expected<std::string> Text = S.render(Site, It->second);
    if (!Text)
      return Text.takeError();
    AnyPlaceholder |= mayHoldPlaceholders(*Text);
    Texts.push_back(std::move(*Text));
  }
  // Each text's tokens, lexed once: for the names taken, then for renaming.
  std::optional<ReadableNames> Readable;
  std::vector<std::vector<Token>> Tokens;
  if (!AsFragment && AnyPlaceholder) {
    StringSet<> Taken;
    for (const auto &Name : Names)
      Taken.insert(Name.getKey());
    for (const std::string &T : Texts) {
      Tokens.push_back(lexTokens(T));
      collectTokenNames(T, Tokens.back(), Taken);
    }
    Readable.emplace(std::move(Taken));
  }
  LoweredTextBuilder Out(Source);
  // The template's own text from Pos to End, its own names renamed.
  size_t NextOwn = 0;
  auto CopyOwn = [&](uint32_t Pos, uint32_t End) {
    if (AsFragment)
      for (; NextOwn < AsFragment->Own.size() &&
             AsFragment->Own[NextOwn].first.Begin < End;
           ++NextOwn) {
        const auto &[Range, Text] = AsFragment->Own[NextOwn];
        if (Range.Begin < Pos)
          continue;
        Out.copy(Pos, Range.Begin);
        Out.emit(Text, Range.Begin);
        Pos = Range.End;
      }
    Out.copy(Pos, End);
  };
  uint32_t Pos = 0;
  for (size_t I = 0; I < Sites.size(); ++I) {
    const AntiquoteSite &Site = Sites[I];
    std::string &Text = Texts[I];
    if (Readable)
      Text = Readable->rename(Text, Tokens[I]);
    CopyOwn(Pos, Site.Range.Begin);
    // Fragments stand on lines of their own, so a block or definition in one
    // never runs into the template's next token.
    bool Multiline = Site.Kind == AntiquoteKind::Def ||
                     Site.Kind == AntiquoteKind::Defs ||
                     Site.Kind == AntiquoteKind::BB ||
                     Site.Kind == AntiquoteKind::BBs ||
                     Site.Kind == AntiquoteKind::Instr ||
                     Site.Kind == AntiquoteKind::Instrs;
    const Binding &B = Bound.find(Site.Name)->second;
    if (FromFiles && B.kind() == Binding::Kind::Source &&
        !B.origin().empty() && Text == B.text()) {
      uint32_t Begin = Out.size() + (Multiline ? 1 : 0);
      FromFiles->push_back({Begin, Begin + static_cast<uint32_t>(Text.size()),
                            static_cast<size_t>(&Site - Sites.data())});
    }
    Out.emit(Multiline ? "\n" + Text + "\n" : Text, Site.Range.Begin);
    Pos = Site.Range.End;
  }
  CopyOwn(Pos, static_cast<uint32_t>(Source.size()));
  return Out.take();
}
