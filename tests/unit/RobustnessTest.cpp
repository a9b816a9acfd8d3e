//===- RobustnessTest.cpp - Bad input never crashes the front end ---------===//
//
// Truncated files, random bytes, mutated modules, deep nesting, huge
// literals, invalid UTF-8 and a 100 MB file: each either parses or yields a
// located DiagnosticError. Run under ASan/UBSan in the sanitizer build.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include <doctest/doctest.h>
#include <random>

using namespace llq::test;

namespace {
const char *SampleModule = R"(source_filename = "sample.c"
target triple = "x86_64-unknown-linux-gnu"
%struct.node = type { i32, ptr }
@.str = private unnamed_addr constant [4 x i8] c"%d\0A\00", align 1
@head = global ptr null, align 8

declare i32 @printf(ptr noundef, ...) #1

define dso_local i32 @sum(ptr noundef %n) #0 {
entry:
  %cmp = icmp eq ptr %n, null
  br i1 %cmp, label %done, label %loop
loop:
  %p = phi ptr [ %n, %entry ], [ %next, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %add, %loop ]
  %v = load i32, ptr %p, align 8
  %add = add nsw i32 %acc, %v
  %np = getelementptr inbounds %struct.node, ptr %p, i32 0, i32 1
  %next = load ptr, ptr %np, align 8
  %end = icmp eq ptr %next, null
  br i1 %end, label %done, label %loop, !llvm.loop !0
done:
  %r = phi i32 [ 0, %entry ], [ %add, %loop ]
  %call = call i32 (ptr, ...) @printf(ptr noundef @.str, i32 noundef %r)
  switch i32 %r, label %out [
    i32 0, label %out
  ]
out:
  ret i32 %r
}

attributes #0 = { noinline nounwind "frame-pointer"="all" }
attributes #1 = { "no-trapping-math"="true" }
!0 = distinct !{!0, !1}
!1 = !{!"llvm.loop.mustprogress"}
)";

/// Either a module, or an error that names a line of the input.
void checkHandled(const Outcome &O, const std::string &What) {
  INFO(What);
  if (!O.ok()) {
    CHECK(O.Located);
    CHECK(O.Line >= 1);
    CHECK_FALSE(O.Message.empty());
  }
}
} // namespace

TEST_CASE("sample_module_parses") { CHECK(run(SampleModule).ok()); }

TEST_CASE("every_truncation_is_handled") {
  std::string Src = SampleModule;
  size_t Failures = 0;
  for (size_t Len = 0; Len < Src.size(); ++Len) {
    Outcome O = run(Src.substr(0, Len));
    checkHandled(O, "truncated to " + std::to_string(Len) + " bytes");
    Failures += !O.ok();
  }
  // Most prefixes cut a construct in half; they must be rejected.
  CHECK(Failures > Src.size() / 2);
}

TEST_CASE("random_bytes_are_rejected_with_a_location") {
  std::mt19937 Rng(20261121);
  for (int I = 0; I < 500; ++I) {
    std::string Bytes(Rng() % 2048 + 1, '\0');
    for (char &C : Bytes)
      C = static_cast<char>(Rng());
    Outcome O = run(Bytes);
    CHECK_FALSE(O.ok());
    checkHandled(O, "random input #" + std::to_string(I));
  }
}

TEST_CASE("mutated_modules_are_handled") {
  std::mt19937 Rng(7);
  const std::string Src = SampleModule;
  const char Alphabet[] = "%@!#$^{}[]()<>,=*:;\"0123456789-xiptrlabel \n\xff\x80";
  for (int I = 0; I < 1500; ++I) {
    std::string M = Src;
    for (int K = 0, E = 1 + Rng() % 4; K < E; ++K) {
      size_t Pos = Rng() % M.size();
      switch (Rng() % 3) {
      case 0:
        M[Pos] = Alphabet[Rng() % (sizeof(Alphabet) - 1)];
        break;
      case 1:
        M.erase(Pos, 1 + Rng() % 8);
        break;
      default:
        M.insert(Pos, M.substr(Rng() % M.size(), 1 + Rng() % 16));
        break;
      }
    }
    checkHandled(run(M), "mutation #" + std::to_string(I));
  }
}

TEST_CASE("deep_nesting_is_refused_before_it_can_overflow") {
  auto Nested = [](int Depth) {
    std::string T = "i32";
    for (int I = 0; I < Depth; ++I)
      T = "{ " + T + " }";
    return "%t = type " + T + "\n@g = global %t zeroinitializer\n";
  };
  CHECK(run(Nested(200)).ok());
  Outcome Deep = run(Nested(100000));
  REQUIRE_FALSE(Deep.ok());
  CHECK(Deep.Line == 1);
  CHECK(Deep.Message == "brackets nested more than 256 levels deep");
  // Nesting through constant expressions and metadata is refused the same way.
  std::string Md = "!0 = !{";
  for (int I = 0; I < 5000; ++I)
    Md += "!{";
  checkHandled(run(Md), "nested metadata");
}

TEST_CASE("huge_literals_are_refused_or_read") {
  Outcome Big = run("@g = global i64 " + std::string(200000, '9') + "\n");
  REQUIRE_FALSE(Big.ok());
  CHECK(Big.Line == 1);
  CHECK(Big.Column == 16);
  CHECK(Big.Message.find("numeric literal longer than") == 0);
  checkHandled(run("@g = global double 1.0e999999999999\n"), "huge exponent");
  checkHandled(run("@g = global i8 " + std::string(1000, '7') + "\n"),
               "long literal");
  checkHandled(run("@g = global i9999999 0\n"), "huge integer type");
  checkHandled(run("@g = global [18446744073709551616 x i8] zeroinitializer\n"),
               "huge array");
  std::string LongName = "@" + std::string(1 << 20, 'n') + " = global i8 0\n";
  CHECK(run(LongName).ok());
}

TEST_CASE("invalid_utf8_is_an_error_outside_strings_only") {
  CHECK(run("@s = constant [2 x i8] c\"\xff\xfe\" ; \xc3\x28 in a comment\n").ok());
  Outcome O = run("@s = global i8 0 \xc3\x28\n");
  REQUIRE_FALSE(O.ok());
  CHECK(O.Line == 1);
  CHECK(O.Column == 17);
  CHECK(O.Message.find("invalid byte 0xc3") == 0);
  checkHandled(run(std::string("@s = global i8 0\n\0\0\0", 20)), "NUL bytes");
}

TEST_CASE("nul_in_an_asm_constraint_is_refused_before_llvm_reads_it") {
  // LLVM parses inline asm constraints as C strings and reads past a NUL.
  std::string Src = "define void @f(i32 %x) {\n  call void asm \"\", \"r";
  Src += std::string(2, '\0');
  Src += "s\"(i32 %x)\n  ret void\n}\n";
  Outcome O = run(Src);
  REQUIRE_FALSE(O.ok());
  CHECK(O.Line == 2);
  CHECK(O.Column == 20); // The string that holds the NUL.
  CHECK(O.Message.find("NUL byte in a string") == 0);
}

TEST_CASE("hundred_megabyte_file_gets_a_located_error_at_its_end") {
  std::string Fn = "define i32 @fN(i32 %a) {\n  %b = add i32 %a, 1\n  ret i32 %b\n}\n";
  std::string Big;
  Big.reserve(100u << 20);
  unsigned Count = 0, Lines = 0;
  while (Big.size() < (100u << 20)) {
    std::string F = Fn;
    F.replace(F.find("fN"), 2, "f" + std::to_string(Count++));
    Big += F;
    Lines += 4;
  }
  Big += "define i32 @broken(i32 %a) {\n  ret i32 %a 7\n}\n";
  Outcome O = run(Big);
  REQUIRE_FALSE(O.ok());
  CHECK(O.Line == static_cast<int>(Lines + 2));
  CHECK(O.Column == 13);
}
