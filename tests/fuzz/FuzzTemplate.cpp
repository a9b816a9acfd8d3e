//===- FuzzTemplate.cpp - libFuzzer target for template instantiation -----===//
//
// The input is a template's text (the seeds are the lit tests). Every
// `$kind:name` it contains gets a random binding, of the kind the antiquote
// takes or of any other: a type, a constant, an integer, a float, a bool, a
// name, a data layout, a triple, a fragment (text or another antiquote's
// input), a list, or -D source text. The template is then instantiated at a
// random granularity; instructions and blocks, half of the time, as a
// hygienic template, whose fragment is spliced twice into one function. The
// choices come from a generator seeded with a hash
// of the input, so that a run is reproducible from the input alone.
//
// Every outcome must be a module (or type, value, fragment) or a
// DiagnosticError; a crash, a sanitizer report, a hang or another kind of
// error is a finding. A module template is instantiated twice, through its
// program (Replay.h) where it has one and through the general path
// (FrontendOptions::Replay off): a different module, or a different error,
// is a finding too.
//
//===----------------------------------------------------------------------===//

#include "llquote/Template.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <random>

using namespace llvm;

namespace {

/// Names an antiquote may be bound to, well formed or not.
const char *const Names[] = {"x", "%y", "@g", "entry", "a b", "\"q\"", "",
                             "0", "llvm.x", "very.long.name.with.dots", "$t"};
/// Fragments of dialect text of several granularities, some broken.
const char *const Texts[] = {
    "i32", "float", "ptr", "<4 x i8>", "{ i32, ptr }", "[2 x double]",
    "i32 %x", "i32 1", "1", "%x", "@g", "%r = add i32 1, 2",
    "ret void", "ret i32 0", "br label %exit",
    "bb:\n  ret void", "define void @h() {\n  ret void\n}",
    "declare i32 @ext(i32)", "@g = global i32 0",
    "for i32 %i in 0 to 4 { }", "if %c { }", "$instr:x", "(", "}", "\"",
    "e-m:e-i64:64", "x86_64-unknown-linux-gnu"};

class Chooser {
public:
  explicit Chooser(StringRef Input)
      : Gen(static_cast<uint32_t>(hash_value(Input))) {}
  unsigned below(unsigned N) { return std::uniform_int_distribution<unsigned>(0, N - 1)(Gen); }
  template <typename T, size_t N> const T &pick(const T (&A)[N]) { return A[below(N)]; }

private:
  std::mt19937 Gen;
};

Type *randomType(Chooser &C, LLVMContext &Ctx) {
  switch (C.below(6)) {
  case 0: return Type::getInt1Ty(Ctx);
  case 1: return Type::getInt32Ty(Ctx);
  case 2: return Type::getInt64Ty(Ctx);
  case 3: return Type::getFloatTy(Ctx);
  case 4: return PointerType::get(Ctx, 0);
  default: return FixedVectorType::get(Type::getInt8Ty(Ctx), 4);
  }
}

llq::Binding randomBinding(Chooser &C, LLVMContext &Ctx, StringRef Input,
                           unsigned Depth) {
  switch (C.below(Depth ? 14 : 13)) {
  case 0: return randomType(C, Ctx);
  case 1: return ConstantInt::get(Type::getInt32Ty(Ctx), C.below(1000));
  case 2: return static_cast<long long>(C.below(1u << 31)) - (1ll << 30);
  case 3: return APInt::getSignedMinValue(1 + C.below(128));
  case 4: return 0.5 * C.below(100);
  case 5: return bool(C.below(2));
  case 6: return std::string(C.pick(Names));
  case 7: return DataLayout(C.below(2) ? "e-m:e-i64:64-n8:16:32:64" : "E-p:32:32");
  case 8: return Triple(C.below(2) ? "x86_64-unknown-linux-gnu" : "nvptx64-nvidia-cuda");
  case 9: return llq::Fragment(C.pick(Texts), {}, "fuzz-fragment");
  case 10: {
    // A piece of the input itself: text the mutator can shape.
    size_t Begin = C.below(Input.size() + 1);
    return llq::Binding::source(Input.substr(Begin, C.below(64)).str());
  }
  case 11: return llq::Binding::source(C.pick(Texts));
  case 12:
    return llq::Binding::param(randomType(C, Ctx), C.pick(Names),
                               C.below(2) ? std::vector<std::string>{"noalias"}
                                          : std::vector<std::string>{});
  default: {
    std::vector<llq::Binding> List;
    for (unsigned I = 0, N = C.below(4); I < N; ++I)
      List.push_back(randomBinding(C, Ctx, Input, Depth - 1));
    return llq::Binding(std::move(List));
  }
  }
}

/// Each `$kind:name` of \p Input, bound (most of the time) at random.
llq::Bindings randomBindings(Chooser &C, LLVMContext &Ctx, StringRef Input) {
  llq::Bindings Bound;
  for (size_t At = Input.find('$'); At != StringRef::npos;
       At = Input.find('$', At + 1)) {
    size_t Colon = Input.find(':', At);
    if (Colon == StringRef::npos || Colon - At > 8)
      continue;
    size_t End = Colon + 1;
    while (End < Input.size() && (isAlnum(Input[End]) || Input[End] == '_' ||
                                  Input[End] == '.'))
      ++End;
    StringRef Name = Input.slice(Colon + 1, End);
    if (!Name.empty() && !Bound.count(Name) && C.below(8) != 0)
      Bound.insert_or_assign(Name, randomBinding(C, Ctx, Input, 2));
  }
  return Bound;
}

void expectDiagnostic(Error E) {
  handleAllErrors(
      std::move(E), [](const llq::DiagnosticError &) {},
      [](const ErrorInfoBase &) { std::abort(); });
}

template <typename T> void check(Expected<T> R) {
  if (!R)
    expectDiagnostic(R.takeError());
}

/// The module printed, or the diagnostic's text. LLVM writes an unnamed
/// struct type in a message by its address (`%"type 0x5210..."`), which
/// differs between contexts: addresses are masked.
std::string outcome(Expected<std::unique_ptr<Module>> M) {
  std::string S;
  if (!M) {
    handleAllErrors(
        M.takeError(),
        [&](const llq::DiagnosticError &D) {
          raw_string_ostream OS(S);
          D.print(OS);
        },
        [](const ErrorInfoBase &) { std::abort(); });
    for (size_t At = S.find("type 0x"); At != std::string::npos;
         At = S.find("type 0x", At + 1)) {
      size_t End = At + 7;
      while (End < S.size() && isHexDigit(S[End]))
        ++End;
      S.replace(At + 7, End - (At + 7), "?");
    }
    return "error: " + S;
  }
  raw_string_ostream OS(S);
  (*M)->print(OS, nullptr);
  return S;
}

/// Instantiates \p T as its granularity asks, into a fresh function for the
/// granularities that emit. Module templates go to instantiateBothWays.
void instantiate(const llq::Template &T, llq::Granularity G, LLVMContext &Ctx,
                 const llq::Bindings &Bound, Chooser &C) {
  Module M("fuzz", Ctx);
  switch (G) {
  case llq::Granularity::Definitions:
  case llq::Granularity::Global:
    return check(T.instantiateInto(M, Bound));
  case llq::Granularity::Type:
    return check(T.instantiateType(M, Bound));
  default:
    break;
  }
  auto *FTy = FunctionType::get(Type::getVoidTy(Ctx),
                                {Type::getInt32Ty(Ctx), Type::getInt1Ty(Ctx)},
                                false);
  Function *F = Function::Create(FTy, GlobalValue::ExternalLinkage, "host", M);
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", F));
  llq::Values Env{{"x", F->getArg(0)}, {"c", F->getArg(1)}};
  if (G == llq::Granularity::Operand)
    return check(T.instantiateOperand(M, Bound, Env));
  if (T.hygienic() && C.below(2) == 0) {
    // A hygienic fragment, exporting a name or not, spliced twice into one
    // function, with a value it exports (or not) read after each splice.
    std::vector<std::string> Exports;
    if (C.below(2))
      Exports.push_back(C.pick(Names));
    Expected<llq::Fragment> F = T.fragment(Bound, Exports);
    if (!F)
      return expectDiagnostic(F.takeError());
    static const llq::Template Twice(
        "define void @twice(i32 %x, i1 %c) {\nentry:\n  $instrs:f\n"
        "  call void @use(i32 $opr:v)\n  $instrs:f\n"
        "  call void @use(i32 $opr:v)\n  ret void\n}\n"
        "declare void @use(i32)\n",
        "twice.ll");
    LLVMContext Other;
    return check(Twice.instantiate(
        Other, {{"f", *F}, {"v", F->value(C.pick(Names))}}));
  }
  if (C.below(4) == 0)
    return check(T.fragment(Bound));
  check(T.emit(B, Bound, Env));
}

/// The granularity to instantiate at, as \p C says: the first choice of
/// the input, so the same input gives the same choices after it.
llq::Granularity choose(Chooser &C) {
  static const llq::Granularity Granularities[] = {
      llq::Granularity::Module,       llq::Granularity::Definitions,
      llq::Granularity::Global,       llq::Granularity::Blocks,
      llq::Granularity::Instructions, llq::Granularity::Terminator,
      llq::Granularity::Type,         llq::Granularity::Operand};
  // Mostly a module: the lit seeds are modules.
  return C.below(2) ? llq::Granularity::Module : C.pick(Granularities);
}

/// A module template, instantiated through its program where it has one
/// and through the general path, each in a fresh context with the same
/// bindings (a context names a second `%T` type `%T.0`): the two agree.
void instantiateBothWays(const llq::Template &T, StringRef Input) {
  std::string Outcomes[2];
  for (int Way = 0; Way < 2; ++Way) {
    LLVMContext Ctx;
    Chooser C(Input);
    choose(C);
    llq::Bindings Bound = randomBindings(C, Ctx, Input);
    llq::FrontendOptions Opts;
    Opts.Replay = Way == 0;
    Outcomes[Way] = outcome(T.instantiate(Ctx, Bound, Opts));
  }
  if (Outcomes[0] != Outcomes[1]) {
    errs() << "through the program:\n" << Outcomes[0]
           << "\nthrough the general path:\n" << Outcomes[1] << "\n";
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Input(reinterpret_cast<const char *>(Data), Size);
  Chooser C(Input);
  llq::Granularity G = choose(C);
  // Instructions and blocks are hygienic templates half of the time.
  bool Hygienic = (G == llq::Granularity::Instructions ||
                   G == llq::Granularity::Blocks) &&
                  C.below(2) == 0;
  llq::Template T(Input, "fuzz.ll", 1, 1, G, Hygienic);
  if (G == llq::Granularity::Module) {
    instantiateBothWays(T, Input);
    return 0;
  }
  LLVMContext Ctx;
  llq::Bindings Bound = randomBindings(C, Ctx, Input);
  instantiate(T, G, Ctx, Bound, C);
  return 0;
}
