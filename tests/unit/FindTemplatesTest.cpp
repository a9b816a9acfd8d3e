//===- FindTemplatesTest.cpp - Unit tests of findTemplates ----------------===//
//
// Each test is a small C++ source and the exact templates (offsets, lines,
// columns, texts) or the exact located error findTemplates must give for it.
// The offsets are counted by hand in the comment above each expectation, so
// an off-by-one in the scanner cannot also hide in the test.
//
//===----------------------------------------------------------------------===//

#include "FindTemplates.h"
#include <algorithm>
#include <doctest/doctest.h>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace llq;
using namespace llvm;

namespace {
// The template text of `LLQ_SKELETON(R"(` starts 16 bytes after the name.

/// The templates of \p Source, which must be found without error.
std::vector<TemplateSite> sitesOf(StringRef Source) {
  Expected<std::vector<TemplateSite>> Sites = findTemplates(Source);
  if (!Sites) {
    FAIL_CHECK("unexpected error: " << toString(Sites.takeError()));
    return {};
  }
  return std::move(*Sites);
}

/// The message of the error findTemplates must give for \p Source, after
/// checking that the error also carries \p Offset.
std::string errorOf(StringRef Source, size_t Offset) {
  Expected<std::vector<TemplateSite>> Sites = findTemplates(Source);
  if (Sites) {
    FAIL_CHECK("expected an error, found " << Sites->size() << " templates");
    return "";
  }
  std::string Message;
  handleAllErrors(Sites.takeError(), [&](const TemplateSiteError &E) {
    CHECK(E.getOffset() == Offset);
    Message = std::to_string(E.getLine()) + ":" + std::to_string(E.getColumn()) +
              ": " + E.getMessage();
  });
  return Message;
}

void checkSite(const TemplateSite &Site, StringRef Source, size_t MacroOffset,
               size_t TextOffset, StringRef Text, unsigned Line,
               unsigned Column) {
  CHECK(Site.MacroOffset == MacroOffset);
  CHECK(Site.TextOffset == TextOffset);
  CHECK(Site.Text == Text);
  // The text points into the source, so positions inside it can be mapped
  // back by pointer difference.
  CHECK(Site.Text.data() == Source.data() + TextOffset);
  CHECK(Site.Line == Line);
  CHECK(Site.Column == Column);
}
} // namespace

TEST_CASE("simple_template") {
  //               0         1         2
  //               0123456789012345678901234
  StringRef Src = "auto S = LLQ_SKELETON(R\"(ret void)\");\n";
  auto Sites = sitesOf(Src);
  REQUIRE(Sites.size() == 1);
  checkSite(Sites[0], Src, 9, 25, "ret void", 1, 26);
}

TEST_CASE("prelude_is_a_definitions_template") {
  //               0         1         2
  //               01234567890123456789012345
  StringRef Src = "auto P = LLQ_PRELUDE(R\"(%T = type i32)\");\n";
  auto Sites = sitesOf(Src);
  REQUIRE(Sites.size() == 1);
  checkSite(Sites[0], Src, 9, 24, "%T = type i32", 1, 25);
  CHECK(Sites[0].Kind == Granularity::Definitions);
  CHECK(Sites[0].SelfContained);
  CHECK_FALSE(sitesOf("auto D = LLQ_DEFINITIONS(R\"(%T = type i32)\");")[0].SelfContained);
}

TEST_CASE("function_bodies_written_as_raw_strings_are_instruction_sites") {
  //               0         1         2         3         4
  //               01234567890123456789012345678901234567890123456789
  StringRef Src = "auto F = LLQ_FN(\"i32 (i32 %x)\", R\"(%r = i32 %x)\");\n"
                  "auto G = LLQ_FN(Vec(), \"%V (%V %a)\",\n  R\"(%r = %V %a)\");\n"
                  "auto H = LLQ_FN(\"i32 (i32 %x)\", \"%r = i32 %x\");\n"
                  "auto I = LLQ_FN(\"i32 (i32 %x)\", R\"(a)\" R\"(b)\");\n"
                  "auto J = LLQ_FN(sig(1, (2)), body(R\"(x)\"));\n";
  auto Sites = sitesOf(Src);
  REQUIRE(Sites.size() == 2);
  checkSite(Sites[0], Src, 9, 35, "%r = i32 %x", 1, 36);
  CHECK(Sites[0].Kind == Granularity::Instructions);
  CHECK(Sites[1].Text == "%r = %V %a");
  CHECK(Sites[1].Line == 3);
  CHECK(Sites[1].Column == 6);
  CHECK(errorOf("auto F = LLQ_FN(\"s\", R\"(x)\"", 15) ==
        "1:16: the call of LLQ_FN is not closed");
}

TEST_CASE("two_templates") {
  // Line 1 is 25 bytes and its newline, so line 2 starts at 26.
  StringRef Src = "A = LLQ_SKELETON(R\"(a)\");\n"
                  "B = LLQ_SKELETON(R\"(bb)\");\n";
  auto Sites = sitesOf(Src);
  REQUIRE(Sites.size() == 2);
  checkSite(Sites[0], Src, 4, 20, "a", 1, 21);
  checkSite(Sites[1], Src, 30, 46, "bb", 2, 21);
}

TEST_CASE("custom_delimiter") {
  // The name is bytes 0-11, then ( R " l l q ( at 12-18.
  StringRef Src = "LLQ_SKELETON(R\"llq(ret void)llq\")";
  auto Sites = sitesOf(Src);
  REQUIRE(Sites.size() == 1);
  checkSite(Sites[0], Src, 0, 19, "ret void", 1, 20);
}

TEST_CASE("custom_delimiter_text_contains_paren_quote_and_quote") {
  // Only `)x"` closes; `)"`, `))"` and a lone `"` are template text.
  StringRef Src = "LLQ_SKELETON(R\"x(call @f(\")\" ))\" )x\")";
  auto Sites = sitesOf(Src);
  REQUIRE(Sites.size() == 1);
  checkSite(Sites[0], Src, 0, 17, "call @f(\")\" ))\" ", 1, 18);
}

TEST_CASE("skeleton_in_line_comment_is_not_a_template") {
  StringRef Src = "// LLQ_SKELETON(R\"(no)\")\n"
                  "LLQ_SKELETON(R\"(yes)\")";
  auto Sites = sitesOf(Src);
  REQUIRE(Sites.size() == 1);
  // Line 1 is 24 bytes and its newline.
  checkSite(Sites[0], Src, 25, 41, "yes", 2, 17);
}

TEST_CASE("skeleton_in_block_comment_is_not_a_template") {
  StringRef Src = "/* LLQ_SKELETON(R\"(no)\")\n"
                  "   LLQ_SKELETON( */ int x;";
  CHECK(sitesOf(Src).empty());
}

TEST_CASE("skeleton_in_string_literal_is_not_a_template") {
  CHECK(sitesOf("f(\"LLQ_SKELETON(R\\\"(x)\\\")\");").empty());
  CHECK(sitesOf("f(\"\\\\\", \"LLQ_SKELETON(\");").empty());
  CHECK(sitesOf("f(u8\"LLQ_SKELETON(\", u\"LLQ_SKELETON(\");").empty());
  CHECK(sitesOf("f(U\"LLQ_SKELETON(\", L\"LLQ_SKELETON(\");").empty());
}

TEST_CASE("skeleton_in_char_literal_is_not_a_template") {
  CHECK(sitesOf("int c = 'LLQ_SKELETON(';").empty());
  CHECK(sitesOf("int c = L'\\'', d = u8'LLQ_SKELETON(';").empty());
}

TEST_CASE("skeleton_in_another_raw_string_is_not_a_template") {
  CHECK(sitesOf("f(R\"a(LLQ_SKELETON(R\"(x)\"))a\");").empty());
  CHECK(sitesOf("f(LR\"(LLQ_SKELETON()\", u8R\"(LLQ_SKELETON()\");").empty());
}

TEST_CASE("whitespace_and_newlines_between_macro_paren_and_literal") {
  // The name is at 4-15; the text starts at 26 on line 3, which starts at 22
  // (just after the newline at 21).
  StringRef Src = "x = LLQ_SKELETON \n  (\n\tR\"(t)\"\n ) ;";
  auto Sites = sitesOf(Src);
  REQUIRE(Sites.size() == 1);
  checkSite(Sites[0], Src, 4, 26, "t", 3, 5);
}

TEST_CASE("comments_between_macro_paren_and_literal") {
  // Line 2 starts at 26 (after the comment's newline at 25).
  StringRef Src = "LLQ_SKELETON /*a*/ ( // b\n R\"(t)\" /* c */ )";
  auto Sites = sitesOf(Src);
  REQUIRE(Sites.size() == 1);
  checkSite(Sites[0], Src, 0, 30, "t", 2, 5);
}

TEST_CASE("crlf_line_endings") {
  // Lines start at 0, 4, 28 and 34. A '\r' is the last byte of its line, so
  // columns count it on the line it ends and lines count only '\n'.
  StringRef Src = "a;\r\n"
                  "b = LLQ_SKELETON(R\"(x\r\n"
                  "y)\");\r\n"
                  "  LLQ_SKELETON(R\"(z)\")\r\n";
  auto Sites = sitesOf(Src);
  REQUIRE(Sites.size() == 2);
  checkSite(Sites[0], Src, 8, 24, "x\r\ny", 2, 21);
  checkSite(Sites[1], Src, 36, 52, "z", 4, 19);
}

TEST_CASE("non_raw_string_argument_is_an_error") {
  // The argument starts at 17, line 1 column 18.
  CHECK(errorOf("x = LLQ_SKELETON(\"ret void\");", 17) ==
        "1:18: the argument of LLQ_SKELETON must be one raw string literal, "
        "R\"(...)\", so that its text can be checked");
  // On line 2 (which starts at 3), the argument `Text` starts at 17.
  CHECK(errorOf("a;\nLLQ_SKELETON( Text)", 17) ==
        "2:15: the argument of LLQ_SKELETON must be one raw string literal, "
        "R\"(...)\", so that its text can be checked");
  CHECK(errorOf("LLQ_SKELETON(", 13) ==
        "1:14: the argument of LLQ_SKELETON must be one raw string literal, "
        "R\"(...)\", so that its text can be checked");
}

TEST_CASE("adjacent_literals_are_an_error") {
  // The second literal starts at 20.
  CHECK(errorOf("LLQ_SKELETON(R\"(a)\" R\"(b)\")", 20) ==
        "1:21: adjacent string literals are not supported in LLQ_SKELETON: "
        "write the template as one raw string literal");
  CHECK(errorOf("LLQ_SKELETON(R\"(a)\"\n\"b\")", 20) ==
        "2:1: adjacent string literals are not supported in LLQ_SKELETON: "
        "write the template as one raw string literal");
}

TEST_CASE("argument_followed_by_more_is_an_error") {
  CHECK(errorOf("LLQ_SKELETON(R\"(a)\", 1)", 19) ==
        "1:20: expected ')' after the raw string literal of LLQ_SKELETON");
  CHECK(errorOf("LLQ_SKELETON(R\"(a)\"", 19) ==
        "1:20: expected ')' after the raw string literal of LLQ_SKELETON");
}

TEST_CASE("unterminated_raw_string_is_an_error") {
  // The literal starts at 14, line 2 column 14; `)"` does not close `x(`.
  CHECK(errorOf("\nLLQ_SKELETON(R\"x(abc)\")", 14) ==
        "2:14: unterminated raw string literal: no closing ')x\"'");
  CHECK(errorOf("auto s = u8R\"(abc", 9) ==
        "1:10: unterminated raw string literal: no closing ')\"'");
}

TEST_CASE("invalid_raw_string_delimiter_is_an_error") {
  // A delimiter may not hold a space and is at most 16 characters long.
  CHECK(errorOf("R\"a b(x)a b\"", 3) ==
        "1:4: invalid raw string delimiter: expected at most 16 characters, "
        "then '('");
  CHECK(errorOf("R\"12345678901234567(x)12345678901234567\"", 19) ==
        "1:20: invalid raw string delimiter: expected at most 16 characters, "
        "then '('");
  StringRef Longest = "LLQ_SKELETON(R\"1234567890123456(x)1234567890123456\")";
  auto Sites = sitesOf(Longest);
  REQUIRE(Sites.size() == 1);
  checkSite(Sites[0], Longest, 0, 32, "x", 1, 33);
}

TEST_CASE("unterminated_block_comment_is_an_error") {
  CHECK(errorOf("int a;\n  /* LLQ_SKELETON(", 9) ==
        "2:3: unterminated /* comment");
}

TEST_CASE("unterminated_string_and_char_literals_are_errors") {
  CHECK(errorOf("f(\"abc\nLLQ_SKELETON(R\"(x)\")", 2) ==
        "1:3: missing terminating \" character");
  CHECK(errorOf("int c = u8'a", 8) == "1:9: missing terminating ' character");
  CHECK(errorOf("f(\"abc\\\"", 2) == "1:3: missing terminating \" character");
}

TEST_CASE("similar_identifiers_are_not_templates") {
  CHECK(sitesOf("MY_LLQ_SKELETON(R\"(a)\")").empty());
  CHECK(sitesOf("LLQ_SKELETONX(R\"(a)\")").empty());
  CHECK(sitesOf("llq_skeleton(R\"(a)\")").empty());
  CHECK(sitesOf("\xc3\xa9LLQ_SKELETON(R\"(a)\")").empty());
  CHECK(sitesOf("x1LLQ_SKELETON(R\"(a)\")").empty());
}

TEST_CASE("name_without_paren_is_not_a_use") {
  CHECK(sitesOf("#ifdef LLQ_SKELETON\n#endif\nF(LLQ_SKELETON);").empty());
}

TEST_CASE("macro_definition_is_not_a_use") {
  StringRef Src = "#  define LLQ_SKELETON(Text) \\\n"
                  "    ::llq::skeleton(Text)\n"
                  "LLQ_SKELETON(R\"(a)\")";
  auto Sites = sitesOf(Src);
  REQUIRE(Sites.size() == 1);
  // Lines start at 0, 31 and 57.
  checkSite(Sites[0], Src, 57, 73, "a", 3, 17);
}

TEST_CASE("template_in_a_define_is_found") {
  StringRef Src = "#define T LLQ_SKELETON(R\"(a)\")";
  auto Sites = sitesOf(Src);
  REQUIRE(Sites.size() == 1);
  checkSite(Sites[0], Src, 10, 26, "a", 1, 27);
}

TEST_CASE("template_first_thing_in_file") {
  StringRef Src = "LLQ_SKELETON(R\"(x)\")";
  auto Sites = sitesOf(Src);
  REQUIRE(Sites.size() == 1);
  checkSite(Sites[0], Src, 0, 16, "x", 1, 17);
}

TEST_CASE("empty_template") {
  StringRef Src = "LLQ_SKELETON(R\"()\")";
  auto Sites = sitesOf(Src);
  REQUIRE(Sites.size() == 1);
  checkSite(Sites[0], Src, 0, 16, "", 1, 17);
}

TEST_CASE("prefixed_raw_string_template") {
  StringRef Src = "LLQ_SKELETON(u8R\"(x)\")";
  auto Sites = sitesOf(Src);
  REQUIRE(Sites.size() == 1);
  checkSite(Sites[0], Src, 0, 18, "x", 1, 19);
}

TEST_CASE("line_continuation_in_line_comment") {
  // The backslash-newline makes line 2 part of the comment; line 3 starts
  // at 43.
  StringRef Src = "// note \\\n"
                  "LLQ_SKELETON(R\"(hidden)\")\n"
                  "LLQ_SKELETON(R\"(seen)\")";
  auto Sites = sitesOf(Src);
  REQUIRE(Sites.size() == 1);
  checkSite(Sites[0], Src, 36, 52, "seen", 3, 17);

  StringRef Crlf = "// note \\\r\nLLQ_SKELETON(R\"(hidden)\")";
  CHECK(sitesOf(Crlf).empty());
}

TEST_CASE("digit_separator_is_not_a_char_literal") {
  StringRef Src = "int n = 1'000; LLQ_SKELETON(R\"(a)\") '";
  Expected<std::vector<TemplateSite>> Sites = findTemplates(Src);
  // The stray quote at the end is the only char literal, and it is unclosed;
  // had `1'000` opened one, the template would have been swallowed.
  REQUIRE(!Sites);
  CHECK(toString(Sites.takeError()) == "1:37: missing terminating ' character");
  StringRef Closed = "int n = 0x1'0p+1'0; LLQ_SKELETON(R\"(a)\")";
  auto Found = sitesOf(Closed);
  REQUIRE(Found.size() == 1);
  checkSite(Found[0], Closed, 20, 36, "a", 1, 37);
}

TEST_CASE("random_inputs_never_crash") {
  // Inputs are built from the characters the scanner reacts to, so that
  // they reach its corners: half-closed literals, comments, continuations.
  // Every other input uses whole tokens of the same characters instead, as
  // single characters almost never close every literal they open and so
  // would hardly ever reach a complete template.
  std::vector<const char *> Characters = {
      "LLQ_SKELETON", "R", "\"", "(", ")", "/", "*", "\n", "'", "\\", " ", "x"};
  std::vector<const char *> Tokens = {"LLQ_SKELETON(R\"(",
                                      ")\")",
                                      "LLQ_SKELETON",
                                      "R\"x(",
                                      ")x\"",
                                      "/*",
                                      "*/",
                                      "//",
                                      "'x'",
                                      "\"x\"",
                                      "\\\n",
                                      "\n",
                                      " ",
                                      "x",
                                      "(",
                                      ")",
                                      "LLQ_FN(",
                                      ",",
                                      "{",
                                      "]",
                                      "1'0"};
  std::mt19937 Rng(20240519);
  std::uniform_int_distribution<size_t> LengthOf(0, 512);
  size_t Succeeded = 0, Found = 0, FnSites = 0;
  for (int Iteration = 0; Iteration < 2000; ++Iteration) {
    const std::vector<const char *> &Pieces =
        Iteration % 2 ? Tokens : Characters;
    std::uniform_int_distribution<size_t> PieceOf(0, Pieces.size() - 1);
    std::string Input;
    size_t Length = LengthOf(Rng);
    while (Input.size() < Length)
      Input += Pieces[PieceOf(Rng)];
    Input.resize(Length);
    // The copy ends exactly at the input's end, so a sanitizer sees any read
    // past it.
    std::unique_ptr<char[]> Exact(new char[Input.size() + 1]);
    std::copy(Input.begin(), Input.end(), Exact.get());
    StringRef Source(Exact.get(), Input.size());

    Expected<std::vector<TemplateSite>> Sites = findTemplates(Source);
    if (!Sites) {
      handleAllErrors(Sites.takeError(), [&](const TemplateSiteError &E) {
        REQUIRE(E.getOffset() <= Source.size());
        CHECK(!E.getMessage().empty());
        // The line and column are the offset's, 1-based.
        StringRef Before = Source.take_front(E.getOffset());
        size_t LastNewline = Before.rfind('\n');
        CHECK(E.getLine() == 1 + Before.count('\n'));
        CHECK(E.getColumn() ==
              E.getOffset() -
                  (LastNewline == StringRef::npos ? 0 : LastNewline + 1) + 1);
      });
      continue;
    }
    ++Succeeded;
    for (const TemplateSite &Site : *Sites) {
      ++Found;
      REQUIRE(Site.TextOffset + Site.Text.size() <= Source.size());
      CHECK(Site.Text.data() == Source.data() + Site.TextOffset);
      bool Fn = Source.substr(Site.MacroOffset).starts_with("LLQ_FN");
      CHECK((Fn || Source.substr(Site.MacroOffset).starts_with("LLQ_SKELETON")));
      CHECK(Site.MacroOffset < Site.TextOffset);
      CHECK(Source[Site.TextOffset + Site.Text.size()] == ')');
      FnSites += Fn;
      StringRef Before = Source.take_front(Site.TextOffset);
      CHECK(Site.Line == 1 + Before.count('\n'));
      size_t LineStart = Before.contains('\n') ? Before.rfind('\n') + 1 : 0;
      CHECK(Site.Column == Site.TextOffset - LineStart + 1);
    }
  }
  // Both outcomes, and found templates, must have been exercised, or the
  // loop tested little.
  CHECK(Succeeded > 0);
  CHECK(Succeeded < 2000);
  CHECK(Found > 0);
  MESSAGE("succeeded " << Succeeded << " of 2000, " << Found << " templates, " << FnSites
                       << " of them function bodies");
}
