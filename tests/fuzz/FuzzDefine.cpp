//===- FuzzDefine.cpp - libFuzzer target for -D binding text --------------===//
//
// `llquote-fmt -DNAME=TEXT` binds an antiquote to TEXT, which is read
// according to the antiquote's kind (Binding::source): a name for $id, $gid
// and $label, the string of $dl and $tt, and text spliced as it is for every
// other kind. The input is `NAME=TEXT`, as after -D (the seeds are the -D
// values of the lit tests); TEXT is bound to antiquote NAME of a host module
// that has an antiquote of every kind, the others to text that builds, and
// the module is built. An input that names no antiquote of the host binds
// TEXT to all of them.
//
// Every outcome must be a module or a DiagnosticError; a crash, a sanitizer
// report, a hang or another kind of error is a finding.
//
//===----------------------------------------------------------------------===//

#include "llquote/Frontend.h"
#include <cstdlib>

using namespace llvm;

namespace {

/// One antiquote of every kind, each where its kind may stand, so that any
/// of them can be bound alone (the others are bound to well-formed text).
const char *const Host = R"(target datalayout = $dl:dl
target triple = $tt:tt
$def:decl
$defs:more

define $type:elt $gid:fn(i64 $id:n, $params:ps, $param:p) {
$label:top
  %acc = $type:elt $const:zero
  $bbs:body
  $instrs:extra
  $instr:one
  %r = call i64 $gid:g($args:args)
  br label $label:exit
$bb:side
$label:exit
  ret i64 $opr:v
}
)";

struct Default {
  const char *Name;
  const char *Text;
};
/// Text every antiquote is bound to unless the input names it: the host
/// then builds (tests/lit/antiquotes/define-every-kind.ll binds the same).
const Default Defaults[] = {
    {"dl", "e-m:e-i64:64-n8:16:32:64"},
    {"tt", "x86_64-unknown-linux-gnu"},
    {"decl", "declare i64 @ext(i64)"},
    {"more", "declare void @unused()"},
    {"elt", "i64"},
    {"fn", "total"},
    {"n", "n"},
    {"ps", "i64 %k, ptr %p"},
    {"p", "i64 %z"},
    {"zero", "0"},
    {"body", "for i64 %i in 0 to %n {\n  %acc = add i64 %acc, %i\n}"},
    {"extra", "%e = call i64 @ext(i64 %acc)"},
    {"one", "%f = add i64 %e, 1"},
    {"args", "i64 %e"},
    {"g", "ext"},
    {"exit", "done"},
    {"top", "start"},
    {"side", "unused:\n  br label %done"},
    {"v", "%acc"}};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Input(reinterpret_cast<const char *>(Data), Size);
  auto [Name, Text] = Input.split('=');
  bool Known = false;
  for (const Default &D : Defaults)
    Known |= Name == D.Name;
  llq::Bindings Bound;
  for (const Default &D : Defaults)
    Bound.insert_or_assign(
        D.Name, llq::Binding::source(!Known || Name == D.Name ? Text.str()
                                                               : D.Text));
  LLVMContext Ctx;
  llq::FrontendOptions Opts;
  Opts.Bound = &Bound;
  auto M = llq::parseModuleString(Host, "fuzz-host.ll", Ctx, Opts);
  if (M)
    return 0;
  handleAllErrors(
      M.takeError(), [](const llq::DiagnosticError &) {},
      [](const ErrorInfoBase &) { std::abort(); });
  return 0;
}
