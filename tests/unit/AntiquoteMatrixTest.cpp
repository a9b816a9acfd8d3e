//===- AntiquoteMatrixTest.cpp - Every antiquote kind in every position ---===//
//
// Each kind of antiquote, bound to text of its kind, stands in turn in each
// class of position a template has (a type, an operand, a constant, a local
// name, an attribute argument, metadata, an instruction list, a block list,
// a definition list, a parameter list, an argument list, a label operand,
// a global name, the data layout and the triple). Where the kind belongs
// the module is built and holds the bound text; anywhere else the error is
// at the antiquote, or at the token right after it when only that token
// shows the antiquote out of place (`$bb:x = add ...`: a block may stand
// there, but cannot be assigned). Nothing is ignored: a module built from
// any pair holds the bound text.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "llquote/Binding.h"
#include <algorithm>
#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace llq;
using namespace llq::test;

namespace {

struct Kind {
  const char *Name;   ///< As written after '$'.
  const char *Text;   ///< The bound text.
  const char *Marker; ///< What the built module shows of it.
};

const std::vector<Kind> &kinds() {
  static const std::vector<Kind> K = {
      {"dl", "e-m:e-p:64:64-i64:64-n8:16:32:64-S128", "n8:16:32:64-S128"},
      {"tt", "x86_64-unknown-linux-gnu", "x86_64-unknown-linux-gnu"},
      {"def", "define void @deff() {\n  ret void\n}", "@deff"},
      {"defs", "define void @defs2() {\n  ret void\n}", "@defs2"},
      {"bb", "blk:\n  ret void", "blk:"},
      {"bbs", "blk:\n  ret void", "blk:"},
      {"instr", "%ins = add i32 5, 6", "%ins"},
      {"instrs", "%ins = add i32 5, 6", "%ins"},
      {"type", "i17", "i17"},
      {"opr", "77", "77"},
      {"const", "78", "78"},
      {"id", "zed", "%zed"},
      {"gid", "gee", "@gee"},
      {"param", "i8 %pp", "%pp"},
      {"params", "i8 %pq", "%pq"},
      {"label", "blk", "%blk"},
      {"args", "i32 55", "55"},
  };
  return K;
}

struct Position {
  const char *Name;
  const char *Text;          ///< HOLE marks the antiquote.
  std::vector<const char *> Legal; ///< The kinds that must build here.
};

const std::vector<Position> &positions() {
  static const std::vector<Position> P = {
      {"type", "define void @f() {\n  %p = alloca HOLE\n  ret void\n}\n",
       {"type"}},
      {"operand",
       "define i32 @f(i32 %a) {\n  %zed = add i32 %a, 1\n"
       "  %r = add i32 %zed, HOLE\n  ret i32 %r\n}\n",
       {"opr", "const", "id"}},
      {"constant", "@g = global i32 HOLE\n", {"opr", "const"}},
      {"local name", "define i32 @f(i32 %a) {\n  HOLE = add i32 %a, 1\n"
                     "  ret i32 %a\n}\n",
       {"id"}},
      {"attribute argument",
       "define void @f(ptr dereferenceable(HOLE) %p) {\n  ret void\n}\n",
       {"opr", "const"}},
      {"type attribute argument",
       "define void @f(ptr sret(HOLE) %p) {\n  ret void\n}\n", {"type"}},
      {"metadata", "!named = !{!0}\n!0 = !{i32 HOLE}\n", {"opr", "const"}},
      {"instruction list", "define void @f() {\nentry:\n  HOLE\n  ret void\n}\n",
       {"instr", "instrs"}},
      {"block list",
       "define void @f() {\nentry:\n  br label %blk\nHOLE\n}\n", {"bb", "bbs"}},
      {"definition list", "HOLE\ndefine void @f() {\n  ret void\n}\n",
       {"def", "defs"}},
      {"parameter list", "define void @f(HOLE) {\n  ret void\n}\n",
       {"param", "params"}},
      {"argument list",
       "declare void @h(i32)\ndefine void @f() {\n  call void @h(HOLE)\n"
       "  ret void\n}\n",
       {"args"}},
      {"label operand",
       "define void @f() {\nentry:\n  br label HOLE\nblk:\n  ret void\n}\n",
       {"label"}},
      {"global name",
       "@gee = global i32 0\ndefine ptr @f() {\n  ret ptr HOLE\n}\n", {"gid"}},
      {"data layout", "target datalayout = HOLE\n", {"dl"}},
      {"triple", "target triple = HOLE\n", {"tt"}},
  };
  return P;
}

} // namespace

TEST_CASE("every_antiquote_kind_in_every_position_is_spliced_or_refused_"
          "at_itself") {
  unsigned Built = 0, Refused = 0;
  for (const Position &P : positions()) {
    std::string Template = P.Text;
    size_t Hole = Template.find("HOLE");
    REQUIRE(Hole != std::string::npos);
    // Line (1-based) and column (0-based) of an offset, as SMDiagnostic.
    auto Where = [](const std::string &S, size_t At) {
      size_t LineStart = S.rfind('\n', At ? At - 1 : 0);
      LineStart = LineStart == std::string::npos || At == 0 ? 0 : LineStart + 1;
      return std::make_pair(1 + int(std::count(S.begin(), S.begin() + long(At), '\n')),
                            int(At - LineStart));
    };
    for (const Kind &K : kinds()) {
      std::string Text = Template;
      std::string Antiquote = std::string("$") + K.Name + ":x";
      Text.replace(Hole, 4, Antiquote);
      auto At = Where(Text, Hole);
      size_t After = Text.find_first_not_of(" \n", Hole + Antiquote.size());
      auto Next = Where(Text, After == std::string::npos ? Text.size() : After);
      Bindings B;
      B.insert_or_assign("x", Binding::source(K.Text, ""));
      FrontendOptions Opts;
      Opts.Bound = &B;
      Outcome O = run(Text, "matrix.ll", Opts);
      bool Legal = std::find_if(P.Legal.begin(), P.Legal.end(), [&](const char *L) {
                     return std::string(L) == K.Name;
                   }) != P.Legal.end();
      std::string Info = std::string("$") + K.Name + ": in the " + P.Name +
                         " position:\n" + Text + "\n" + O.Printed;
      INFO(Info);
      if (Legal)
        CHECK(O.ok());
      if (O.ok()) {
        ++Built;
        CHECK(printModule(*O.M).find(K.Marker) != std::string::npos);
        continue;
      }
      ++Refused;
      CHECK(O.Located);
      std::pair<int, int> Got{O.Line, O.Column};
      CHECK((Got == At || Got == Next));
      CHECK(O.Message.find("unbound") == std::string::npos);
    }
  }
  // Every position admits some kind, and refuses most.
  CHECK(Built >= positions().size());
  CHECK(Refused > Built);
}
