//===- Aot.cpp - The ahead-of-time compiler of array programs -------------===//
//
// Pipeline::compile records the plan of the pipeline's expression with a
// Runtime whose backend compiles nothing for the JIT: AotBackend keeps each
// kernel's module, its entry points renamed to C symbols of the pipeline
// and everything else made internal. Each module is then compiled for the
// target (rt::compileObject) into an object of a static library, and the
// plan (every step's tree, kernel slots and array sources) is written as
// C++ that builds an llq::aot::Program, behind a function that the header
// declares.
//
//===----------------------------------------------------------------------===//

#include "llquote/Aot.h"
#include "Aot.h"
#include "llquote/runtime/Engine.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cctype>
#include <fmt/format.h>
#include <functional>
#include <map>

using namespace llq;
using namespace llq::aot;
using namespace llq::detail;

namespace {

/// A kernel the backend kept: its module and the symbols of its phases.
struct KeptKernel {
  std::unique_ptr<llvm::LLVMContext> Ctx;
  std::unique_ptr<llvm::Module> M;
  std::vector<std::string> Symbols;
};

struct KernelStore {
  std::string Prefix;
  /// By Kernel::Name.
  std::map<std::string, KeptKernel> Kernels;
};

bool isIdentifier(const std::string &S) {
  if (S.empty() || std::isdigit(static_cast<unsigned char>(S[0])))
    return false;
  for (char C : S)
    if (!std::isalnum(static_cast<unsigned char>(C)) && C != '_')
      return false;
  return true;
}

std::string identifierOf(const std::string &S) {
  std::string Out;
  for (char C : S)
    Out += std::isalnum(static_cast<unsigned char>(C)) ? C : '_';
  return Out;
}

/// Compiles nothing to run: keeps each kernel's module for the target, its
/// phases renamed PREFIX_kN_PHASE, and answers as the CPU backend does for
/// the code it generates (atomics, tiled walks, no non-temporal variants,
/// which depend on sizes the generator does not know).
class AotBackend final : public Backend {
public:
  explicit AotBackend(std::shared_ptr<KernelStore> Store)
      : Store(std::move(Store)) {}
  BackendKind kind() const override { return BackendKind::CPU; }
  unsigned parallelism() const override { return 2; }
  bool atomics() const override { return true; }
  bool readsHostArrays() const override { return true; }
  rt::Status launch(const Kernel &, unsigned, int64_t, int64_t, void *,
                    int64_t) override {
    return rt::Status::error("the ahead-of-time compiler runs no kernel");
  }
  llvm::Error lower(llvm::Module &, const KernelGen &, bool) override {
    return llvm::Error::success();
  }
  llvm::Error compile(std::unique_ptr<llvm::Module> M,
                      std::unique_ptr<llvm::LLVMContext> Ctx,
                      const KernelGen &G, Kernel &K,
                      std::string &How) override {
    KeptKernel Kept;
    std::string Base =
        fmt::format("{}_k{}", Store->Prefix, Store->Kernels.size());
    std::vector<llvm::Function *> Entries;
    for (const std::string &P : G.phases()) {
      llvm::Function *F = M->getFunction(K.Name + "." + P);
      if (!F)
        return failure(fmt::format("{}: the kernel has no phase {}", K.Name,
                                   P));
      std::string Symbol = Base + "_" + identifierOf(P);
      F->setName(Symbol);
      Kept.Symbols.push_back(Symbol);
      Entries.push_back(F);
      K.Phases.push_back(nullptr);
    }
    // Only the entry points are seen from outside the object: two
    // kernels' scalar functions (f0, ...) would clash otherwise.
    for (llvm::Function &F : *M)
      if (!F.isDeclaration() &&
          std::find(Entries.begin(), Entries.end(), &F) == Entries.end())
        F.setLinkage(llvm::GlobalValue::InternalLinkage);
    for (llvm::GlobalVariable &V : M->globals())
      if (!V.isDeclaration())
        V.setLinkage(llvm::GlobalValue::InternalLinkage);
    Kept.Ctx = std::move(Ctx);
    Kept.M = std::move(M);
    Store->Kernels.emplace(K.Name, std::move(Kept));
    How = "kept for ahead-of-time compilation";
    return llvm::Error::success();
  }

private:
  std::shared_ptr<KernelStore> Store;
};

struct Input {
  std::string Name;
  ElemType Type;
  unsigned Rank;
  NodeRef Placeholder;
};

const char *scalarName(ScalarKind K) {
  static const char *const Names[] = {"I8",  "I16", "I32", "I64",
                                      "U8",  "U16", "U32", "U64",
                                      "F32", "F64", "Bool", "F16"};
  return Names[size_t(K)];
}

const char *cxxScalar(ScalarKind K) {
  static const char *const Names[] = {
      "int8_t",   "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
      "uint32_t", "uint64_t", "float",  "double",  "bool",    "llq::rt::half"};
  return Names[size_t(K)];
}

const char *opName(Op K) {
  static const char *const Names[] = {
      "Use",     "Generate",  "Map",       "ZipWith",  "IZipWith", "Transform",
      "Backpermute", "Reshape", "Reverse", "Transpose", "Slice",   "Replicate",
      "Cut",     "Reindex",   "Zip",       "Field",    "Concat",   "Fill",
      "EnumFromN", "Consumer", "Select",   "Cond",     "While"};
  return Names[size_t(K)];
}

std::string elemTypeCode(const ElemType &T) {
  std::vector<std::string> Fields;
  for (ScalarKind K : T.fields())
    Fields.push_back(fmt::format("llq::ScalarKind::{}", scalarName(K)));
  if (!T.isTuple())
    return fmt::format("llq::ElemType::scalar({})", Fields[0]);
  return fmt::format("llq::ElemType::tuple({{{}}})", fmt::join(Fields, ", "));
}

std::string cxxType(const ElemType &T) {
  if (!T.isTuple())
    return cxxScalar(T.field(0));
  std::vector<std::string> Fields;
  for (ScalarKind K : T.fields())
    Fields.push_back(cxxScalar(K));
  return fmt::format("std::tuple<{}>", fmt::join(Fields, ", "));
}

std::string extentsCode(const Shape &Sh) {
  return fmt::format("{{{}}}", fmt::join(extentsOf(Sh), ", "));
}

std::string sourceCode(const aot::Source &S) {
  return fmt::format("{{{}, {}u, {}u, {}}}", S.Param, S.Step, S.Output,
                     S.Loop);
}

/// The C++ NodeSpec list of the tree under Root, in preorder.
std::string nodesCode(const Node &Root) {
  std::vector<std::string> Specs;
  std::vector<std::pair<const Node *, int>> Work{{&Root, -1}};
  while (!Work.empty()) {
    auto [N, Parent] = Work.back();
    Work.pop_back();
    int Ix = int(Specs.size());
    std::vector<std::string> Consts, OutTypes, OutShapes;
    for (const Scalar &C : N->Consts) {
      std::vector<std::string> Bits;
      for (uint64_t B : C.allBits())
        Bits.push_back(fmt::format("{}u", B));
      Consts.push_back(fmt::format("llq::Scalar({}, {{{}}})",
                                   elemTypeCode(C.type()),
                                   fmt::join(Bits, ", ")));
    }
    for (const ElemType &T : N->OutTypes)
      OutTypes.push_back(elemTypeCode(T));
    for (const Shape &Sh : N->OutShapes)
      OutShapes.push_back(extentsCode(Sh));
    Specs.push_back(fmt::format(
        "      {{{}, llq::aot::Op::{}, \"{}\", {}, {}, {{{}}}, {{{}}}, {{{}}}, "
        "{}u, {}u, {{{}}}, {{{}}}, {}}}",
        Parent, opName(N->K), N->Name, elemTypeCode(N->Type),
        extentsCode(N->Sh), fmt::join(N->Code, ", "), fmt::join(N->Vals, ", "),
        fmt::join(Consts, ", "), N->NumInputs, N->ManifestKids,
        fmt::join(OutTypes, ", "), fmt::join(OutShapes, ", "),
        N->Skel ? fmt::format("\"{}\"", N->Skel->name()) : "nullptr"));
    for (auto It = N->Kids.rbegin(); It != N->Kids.rend(); ++It)
      Work.push_back({It->get(), Ix});
  }
  return fmt::format("{}", fmt::join(Specs, ",\n"));
}

const char *slotKindName(SlotSpec::Kind K) {
  static const char *const Names[] = {"Buffer", "Extent", "ConstField", "Val",
                                      "Out",    "Host",   "Fault"};
  return Names[size_t(K)];
}

llvm::Error writeFile(const std::string &Path, llvm::StringRef Text) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  if (EC)
    return failure(fmt::format("cannot write {}: {}", Path, EC.message()));
  OS << Text;
  return llvm::Error::success();
}

} // namespace

struct Pipeline::Impl {
  std::string Name, File;
  unsigned Line;
  std::vector<Input> Inputs;
  Acc Output;
  std::string OutputFile;
  unsigned OutputLine = 0;
  std::string Error;

  std::string at(const std::string &F, unsigned L) const {
    return fmt::format("{}:{}: error: pipeline '{}': ", F, L, Name);
  }
  llvm::Error compile(const std::string &Dir, const Target &T) const;
};

Pipeline::Pipeline(std::string Name, const char *File, unsigned Line)
    : P(std::make_unique<Impl>()) {
  P->Name = std::move(Name);
  P->File = File;
  P->Line = Line;
  if (!isIdentifier(P->Name))
    P->Error = P->at(File, Line) +
               "a pipeline's name names a C++ function: letters, digits and "
               "'_', not starting with a digit";
}

Pipeline::~Pipeline() = default;

Acc Pipeline::input(const std::string &Name, ElemType T, unsigned Rank,
                    const char *File, unsigned Line) {
  if (P->Error.empty() && !isIdentifier(Name))
    P->Error = P->at(File, Line) +
               fmt::format("input '{}' names a C++ parameter: letters, "
                           "digits and '_'",
                           Name);
  if (P->Error.empty() && (Rank == 0 || Rank > Shape::MaxRank))
    P->Error = P->at(File, Line) +
               fmt::format("input '{}' has rank {}: expected 1 to {}", Name,
                           Rank, Shape::MaxRank);
  for (const Input &I : P->Inputs)
    if (P->Error.empty() && I.Name == Name)
      P->Error = P->at(File, Line) +
                 fmt::format("input '{}' is named twice", Name);
  // A placeholder of extent 1 in each dimension: the plan depends on the
  // structure only, and each call gives the extents.
  unsigned R = std::clamp<unsigned>(Rank, 1, Shape::MaxRank);
  rt::Expected<rt::Array> A = rt::Array::create(
      T, *Shape::make(std::vector<int64_t>(R, 1)), rt::Array::Fill::Zero);
  if (!A)
    throw ArrayError(A.message());
  Acc X = use(std::make_shared<rt::Array>(std::move(*A)));
  P->Inputs.push_back({Name, T, Rank, X.node()});
  return X;
}

void Pipeline::output(const Acc &A, const char *File, unsigned Line) {
  if (P->Error.empty() && P->Output.node())
    P->Error = P->at(File, Line) + "a pipeline has one output, given twice";
  P->Output = A;
  P->OutputFile = File;
  P->OutputLine = Line;
}

void Pipeline::compile(const std::string &Dir, const Target &T) const {
  if (!P->Error.empty())
    throw ArrayError(P->Error);
  if (!P->Output.node())
    throw ArrayError(P->at(P->File, P->Line) +
                     "no output: call output() before compile()");
  if (llvm::Error E = P->compile(Dir, T))
    throw ArrayError(P->at(P->OutputFile, P->OutputLine) +
                     llvm::toString(std::move(E)));
}

llvm::Error Pipeline::Impl::compile(const std::string &Dir,
                                    const Target &T) const {
  auto Store = std::make_shared<KernelStore>();
  Store->Prefix = "llq_aot_" + Name;
  RuntimeOptions O;
  O.Threads = 1;
  O.DiskCache = false;
  Runtime R(O, [Store](BackendContext &) {
    return std::make_unique<AotBackend>(Store);
  });
  auto Plan = exportPlan(R, Output.node());
  if (!Plan)
    return Plan.takeError();
  // The plan numbers the arrays it reads in the order it meets them; the
  // function takes the pipeline's inputs in their order.
  std::vector<int> ParamOf;
  for (const Node *U : Plan->Inputs) {
    auto It = std::find_if(Inputs.begin(), Inputs.end(), [&](const Input &I) {
      return I.Placeholder.get() == U;
    });
    if (It == Inputs.end())
      return failure("the output reads an array that is not one of the "
                     "pipeline's inputs (an array captured at build time); "
                     "make it an input");
    ParamOf.push_back(int(It - Inputs.begin()));
  }
  auto Remap = [&](aot::Source S) {
    if (S.Param >= 0)
      S.Param = ParamOf[size_t(S.Param)];
    return S;
  };
  // Every shape must follow the inputs' extents at run time: the plan's
  // operations must all have rules for it (reshapeTree).
  std::function<llvm::Error(const ExportedPlan &)> Check =
      [&](const ExportedPlan &E) -> llvm::Error {
    for (const ExportedStep &S : E.Steps) {
      if (S.Ctl) {
        for (const ExportedPlan *Sub :
             {&S.Ctl->Test, &S.Ctl->Then, &S.Ctl->Else})
          if (llvm::Error Err = Check(*Sub))
            return Err;
        continue;
      }
      if (rt::Status St = reshapeTree(*S.Root); !St.ok())
        return failure(St.message() + " (ahead-of-time pipelines do not "
                                      "take this operation yet)");
    }
    return llvm::Error::success();
  };
  if (llvm::Error E = Check(*Plan))
    return E;

  // The objects, one per kernel, in a static library.
  rt::ObjectTarget OT{T.Triple, T.CPU, T.Features, T.OptLevel};
  std::vector<llvm::NewArchiveMember> Members;
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> Objects;
  std::vector<std::string> MemberNames;
  MemberNames.reserve(Store->Kernels.size());
  for (auto &[KName, Kept] : Store->Kernels) {
    auto Obj = rt::compileObject(*Kept.M, OT);
    if (!Obj)
      return Obj.takeError();
    Objects.push_back(std::move(*Obj));
    llvm::NewArchiveMember Member(Objects.back()->getMemBufferRef());
    MemberNames.push_back(Kept.Symbols[0] + ".o");
    Member.MemberName = MemberNames.back();
    Members.push_back(std::move(Member));
  }
  if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
    return failure(fmt::format("cannot create {}: {}", Dir, EC.message()));
  std::string Base = Dir + "/" + Name;
  if (llvm::Error E = llvm::writeArchive(
          Base + ".a", Members, llvm::SymtabWritingMode::NormalSymtab,
          llvm::object::Archive::K_GNU, /*Deterministic=*/true,
          /*Thin=*/false))
    return E;

  // The header: the function.
  std::vector<std::string> Params, Args;
  for (const Input &I : Inputs) {
    Params.push_back(
        fmt::format("const llq::Array<{}> &{}", cxxType(I.Type), I.Name));
    Args.push_back(I.Name + ".shared()");
  }
  std::string ResultType = cxxType(Output.type());
  std::string ParamsComma =
      Params.empty() ? "" : fmt::format("{}, ", fmt::join(Params, ", "));
  std::vector<std::string> InputDocs;
  for (const Input &I : Inputs)
    InputDocs.push_back(
        fmt::format("{}: {} of rank {}", I.Name, I.Type.str(), I.Rank));
  std::string Guard = "LLQ_AOT_" + Name + "_H";
  for (char &C : Guard)
    C = char(std::toupper(static_cast<unsigned char>(C)));
  std::string Header = fmt::format(
      "// Generated by llquote's ahead-of-time compiler (llq::aot::Pipeline "
      "at {}:{}); do not edit.\n"
      "#ifndef {}\n#define {}\n\n"
      "#include \"llquote/aot/Program.h\"\n\n"
      "/// {}({}): {} of rank {}. Throws llq::ArrayError on arrays that do not "
      "fit.\n"
      "llq::Array<{}> {}({});\n"
      "/// The same, written into Out's storage where it has the result's "
      "element\n/// type and shape and is not an input; Out holds the result "
      "after.\n"
      "void {}({}llq::Array<{}> &Out);\n\n#endif // {}\n",
      File, Line, Guard, Guard, Name, fmt::join(InputDocs, "; "),
      Output.type().str(), Output.shape().rank(), ResultType, Name,
      fmt::join(Params, ", "), Name, ParamsComma, ResultType, Guard);

  // The source: the plan.
  std::string Decls, Steps;
  for (const auto &[KName, Kept] : Store->Kernels)
    for (const std::string &S : Kept.Symbols)
      Decls += fmt::format("void {}(int64_t, int64_t, void *);\n", S);
  // Each plan's steps on the C++ variable Var, a llq::aot::Plan.
  unsigned Controls = 0;
  std::function<void(const ExportedPlan &, const std::string &,
                     const std::string &)>
      Emit = [&](const ExportedPlan &E, const std::string &Var,
                 const std::string &Indent) {
        for (const ExportedStep &S : E.Steps) {
          if (S.Ctl) {
            std::string C = fmt::format("C{}", Controls++);
            Steps += fmt::format("{}{{\n{}  llq::aot::Control &{} = "
                                 "{}.addControl({}, {});\n",
                                 Indent, Indent, C, Var,
                                 S.Ctl->IsLoop ? "true" : "false",
                                 sourceCode(Remap(S.Ctl->First)));
            if (S.Ctl->IsLoop)
              Emit(S.Ctl->Test, C + ".Test", Indent + "  ");
            Emit(S.Ctl->Then, C + ".Then", Indent + "  ");
            if (!S.Ctl->IsLoop)
              Emit(S.Ctl->Else, C + ".Else", Indent + "  ");
            Steps += Indent + "}\n";
            continue;
          }
          const KeptKernel &Kept = Store->Kernels.at(S.K->Name);
          std::vector<std::string> Phases, Slots, Leaves;
          for (const std::string &Sym : Kept.Symbols)
            Phases.push_back("&" + Sym);
          for (const SlotSpec &Sl : S.K->Slots)
            Slots.push_back(
                fmt::format("{{llq::aot::SlotSpec::{}, {}u, {}u, {}u, \"\", true}}",
                            slotKindName(Sl.K), Sl.NodeIx, Sl.A, Sl.B));
          for (const auto &[Ix, From] : S.Leaves)
            Leaves.push_back(
                fmt::format("{{{}u, {}}}", Ix, sourceCode(Remap(From))));
          Steps += fmt::format(
              "{0}{1}.addStep(\n{0}  {{\n{2}\n{0}  }},\n{0}  {{\"{3}\", "
              "{{{4}}},\n{0}   {{{5}}},\n{0}   {6}, {7}u}},\n{0}  {{{8}}});\n",
              Indent, Var, nodesCode(*S.Root), S.K->Name,
              fmt::join(Phases, ", "), fmt::join(Slots, ", "),
              S.K->Loops ? "true" : "false", S.K->Weight,
              fmt::join(Leaves, ", "));
        }
        Steps += fmt::format("{}{}.setResult({});\n", Indent, Var,
                             sourceCode(Remap(E.Result)));
      };
  Emit(*Plan, "P.top()", "  ");
  std::vector<std::string> InputSpecs;
  for (const Input &I : Inputs)
    InputSpecs.push_back(fmt::format("{{\"{}\", {}, {}u}}", I.Name,
                                     elemTypeCode(I.Type), I.Rank));
  std::string Source = fmt::format(
      "// Generated by llquote's ahead-of-time compiler (llq::aot::Pipeline "
      "at {}:{}); do not edit.\n"
      "#include \"{}.h\"\n\n"
      "extern \"C\" {{\n{}}}\n\n"
      "namespace {{\n\n"
      "void build(llq::aot::Program &P) {{\n{}}}\n\n"
      "const llq::aot::Program &program() {{\n"
      "  static llq::aot::Program P(\"{}\", {{{}}});\n"
      "  static const bool Built = (build(P), true);\n"
      "  (void)Built;\n"
      "  return P;\n}}\n\n"
      "}} // namespace\n\n"
      "llq::Array<{}> {}({}) {{\n"
      "  return llq::aot::resultOf<{}>(program().run({{{}}}));\n}}\n\n"
      "void {}({}llq::Array<{}> &Out) {{\n"
      "  Out = llq::aot::resultOf<{}>(program().run({{{}}}, Out.shared()));\n}}\n",
      File, Line, Name, Decls, Steps, Name,
      fmt::join(InputSpecs, ", "), ResultType, Name, fmt::join(Params, ", "),
      ResultType, fmt::join(Args, ", "), Name, ParamsComma, ResultType,
      ResultType, fmt::join(Args, ", "));
  if (llvm::Error E = writeFile(Base + ".h", Header))
    return E;
  return writeFile(Base + ".cpp", Source);
}

Options llq::aot::parseOptions(int Argc, char **Argv) {
  Options O;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Value = [&](std::string &Into) {
      if (I + 1 >= Argc) {
        std::fprintf(stderr, "%s: %s needs a value\n", Argv[0], A.c_str());
        std::exit(2);
      }
      Into = Argv[++I];
    };
    if (A == "--out")
      Value(O.Dir);
    else if (A == "--triple")
      Value(O.T.Triple);
    else if (A == "--cpu")
      Value(O.T.CPU);
    else if (A == "--features")
      Value(O.T.Features);
    else {
      std::fprintf(stderr,
                   "%s: unknown argument '%s' (expected --out DIR, --triple "
                   "T, --cpu C, --features F)\n",
                   Argv[0], A.c_str());
      std::exit(2);
    }
  }
  return O;
}
