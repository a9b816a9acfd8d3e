//===- LoweredText.cpp - Lowered text, its source map, its builder -------===//
//
// The contract is in LoweredText.h.
//
//===----------------------------------------------------------------------===//

#include "LoweredText.h"
#include <algorithm>
#include <iterator>

using namespace llq;
using namespace llvm;

void SourceMap::addVerbatim(uint32_t Out, uint32_t Src, uint32_t Len) {
  Segments.push_back({Out, Src, Len, true});
}

void SourceMap::addGenerated(uint32_t Out, uint32_t Src, uint32_t Len) {
  Segments.push_back({Out, Src, Len, false});
}

uint32_t SourceMap::toSource(uint32_t Out) const {
  auto It = std::upper_bound(
      Segments.begin(), Segments.end(), Out,
      [](uint32_t O, const Segment &S) { return O < S.Out; });
  if (It == Segments.begin())
    return 0;
  const Segment &S = *std::prev(It);
  if (!S.Verbatim)
    return S.Src;
  return S.Src + std::min(Out - S.Out, S.Len);
}

void LoweredTextBuilder::copy(uint32_t Begin, uint32_t End) {
  if (Begin >= End)
    return;
  Result.Map.addVerbatim(static_cast<uint32_t>(Result.Storage.size()), Begin,
                         End - Begin);
  Result.Storage.append(Source.data() + Begin, End - Begin);
}

void LoweredTextBuilder::emit(StringRef Text, uint32_t Origin) {
  if (Text.empty())
    return;
  Result.Map.addGenerated(static_cast<uint32_t>(Result.Storage.size()), Origin,
                          static_cast<uint32_t>(Text.size()));
  Result.Storage.append(Text.data(), Text.size());
}

LoweredText LoweredTextBuilder::take() {
  return std::move(Result);
}
