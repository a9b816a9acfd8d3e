// A skeleton file with one line of IR built as a string added, for
// ir-strings.test; the quoted text around it is what the library writes.
#include "llquote/skeletons/Skeleton.h"
#include <fmt/format.h>

const llq::Template Copy = LLQ_HYGIENIC_INSTRS(R"(
  %v = load $type:t, ptr $opr:src
  store $type:t %v, ptr $opr:dst
)");

auto Twice = LLQ_FN("float (float %x)", "%r = fadd float %x, %x");

std::string added(const std::string &V, const std::string &T,
                  const std::string &P) {
  std::string Code;
  Code += fmt::format("  {} = load {}, ptr {}\n", V, T, P);
  Code += "  %w = fmul float " + V + ", 2.0\n";
  return Code;
}
