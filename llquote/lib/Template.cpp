//===- Template.cpp - LLVM IR templates in C++ sources --------------------===//
//
// The template text is parsed once (std::call_once); afterwards the Impl is
// read-only, so instantiations may run concurrently. Each instantiation uses
// a SourceMgr of its own, and its diagnostics are moved from template lines
// and columns to those of the C++ file.
//
//===----------------------------------------------------------------------===//

#include "llquote/Template.h"
#include "FindTemplates.h"
#include "Parse.h"
#include "Splice.h"
#include "llvm/Support/MemoryBuffer.h"
#include <mutex>

using namespace llq;
using namespace llvm;

struct Template::Impl {
  std::string Text, File;
  unsigned Line, Column;
  std::once_flag Parsed;
  std::optional<std::vector<SMDiagnostic>> ParseError;

  /// A diagnostic of the template buffer, at the C++ file's line and column.
  SMDiagnostic toCpp(const SMDiagnostic &D) const {
    static const SourceMgr NoSM;
    if (D.getLineNo() <= 0)
      return D;
    int L = static_cast<int>(Line) + D.getLineNo() - 1;
    int Shift = D.getLineNo() == 1 ? static_cast<int>(Column) - 1 : 0;
    std::vector<std::pair<unsigned, unsigned>> Ranges;
    for (auto R : D.getRanges())
      Ranges.push_back({R.first + Shift, R.second + Shift});
    std::string Contents =
        std::string(Shift, ' ') + D.getLineContents().str();
    return SMDiagnostic(NoSM, SMLoc(), File, L, D.getColumnNo() + Shift,
                        D.getKind(), D.getMessage(), Contents, Ranges);
  }

  Error toCpp(Error E) const {
    return mapDiagnostics(std::move(E),
                          [&](const SMDiagnostic &D) { return toCpp(D); });
  }
};

Template::Template(StringRef Text, StringRef File, unsigned Line,
                   unsigned Column)
    : P(std::make_unique<Impl>()) {
  P->Text = Text.str();
  P->File = File.str();
  P->Line = Line;
  P->Column = Column;
}

Template::Template(StringRef Text, StringRef File, unsigned Line,
                   MacroLine Which)
    : Template(Text, File,
               Which == MacroLine::First
                   ? Line
                   : Line - std::min<unsigned>(Line - 1, Text.count('\n'))) {}

Template::~Template() = default;

StringRef Template::text() const { return P->Text; }

Error Template::check() const {
  std::call_once(P->Parsed, [&] {
    SourceMgr SM;
    unsigned ID = SM.AddNewSourceBuffer(
        MemoryBuffer::getMemBufferCopy(P->Text, P->File), SMLoc());
    SyntaxTree Tree(SM.getMemoryBuffer(ID)->getBuffer());
    if (Error E = parseSyntax(Tree, SM, ID))
      handleAllErrors(std::move(E), [&](const DiagnosticError &D) {
        P->ParseError = D.diagnostics();
      });
  });
  if (!P->ParseError)
    return Error::success();
  auto E = std::make_unique<DiagnosticError>(P->ParseError->front());
  for (size_t I = 1; I < P->ParseError->size(); ++I)
    E->addNote((*P->ParseError)[I]);
  return P->toCpp(Error(std::move(E)));
}

Expected<std::unique_ptr<Module>>
Template::instantiate(LLVMContext &Ctx, const Bindings &Bound,
                      FrontendOptions Opts) const {
  if (Error E = check())
    return std::move(E);
  SourceMgr SM;
  unsigned ID = SM.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(P->Text, P->File), SMLoc());
  Opts.Bound = &Bound;
  Expected<std::unique_ptr<Module>> M = parseModule(SM, ID, Ctx, Opts);
  if (M)
    return M;
  return P->toCpp(M.takeError());
}

Error llq::checkTemplatesInCpp(StringRef CppSource, StringRef FileName) {
  Expected<std::vector<TemplateSite>> Sites = findTemplates(CppSource);
  if (!Sites) {
    // The C++ around a template is malformed: say where, in the C++ file.
    SourceMgr SM;
    unsigned ID = SM.AddNewSourceBuffer(
        MemoryBuffer::getMemBufferCopy(CppSource, FileName), SMLoc());
    Error Out = Error::success();
    handleAllErrors(Sites.takeError(), [&](const TemplateSiteError &E) {
      StringRef Msg = E.getMessage();
      Msg = Msg.split(": ").second; // Drop the line:col the message starts with.
      Out = make_error<DiagnosticError>(
          SM.GetMessage(locAt(SM, ID, static_cast<uint32_t>(E.getOffset())),
                        SourceMgr::DK_Error, Msg));
    });
    return Out;
  }
  Error All = Error::success();
  for (const TemplateSite &Site : *Sites) {
    Template T(Site.Text, FileName, Site.Line, Site.Column);
    if (Error E = T.check())
      All = joinErrors(std::move(All), std::move(E));
  }
  return All;
}
