// Preludes of the skeleton library: definitions that need nothing from
// elsewhere, so --check reads them whole and LLVM checks their types.
#define LLQ_PRELUDE(Text) Text

const char *Good = LLQ_PRELUDE(R"(
  %V2 = type { float, float }
  define internal float @sum(%V2 %a) {
    %x = extractvalue %V2 %a, 0
    %y = extractvalue %V2 %a, 1
    %r = fadd float %x, %y
    ret float %r
  }
)");

const char *Bad = LLQ_PRELUDE(R"(
  %V2 = type { float, float }
  define internal float @third(%V2 %a) {
    %x = extractvalue %V2 %a, 2
    ret float %x
  }
)");

const char *Open = LLQ_PRELUDE(R"(
  define internal float @twice(float %a) {
    %r = call float @elsewhere(float %a)
    ret float %r
  }
)");
