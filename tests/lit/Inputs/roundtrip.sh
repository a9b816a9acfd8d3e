#!/usr/bin/env bash
# roundtrip.sh FILE.ll: llquote-fmt FILE.ll must print the module llvm-as reads
# from FILE.ll. Both sides go through llvm-as | llvm-dis; comments are dropped.
set -eu
in=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
canon() { llvm-as -o - "$1" | llvm-dis -o - | grep -v '^;' | sed 's/ *; preds = .*$//'; }
llquote-fmt "$in" -o "$tmp/out.ll"
canon "$in" > "$tmp/ref.txt"
canon "$tmp/out.ll" > "$tmp/got.txt"
if ! cmp -s "$tmp/ref.txt" "$tmp/got.txt"; then
  echo "roundtrip: $in differs from LLVM's reading of it" >&2
  diff "$tmp/ref.txt" "$tmp/got.txt" | head -20 >&2
  exit 1
fi
echo "roundtrip: $(wc -l < "$tmp/ref.txt") lines identical"
