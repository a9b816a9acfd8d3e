#!/usr/bin/env bash
# Runs one libFuzzer target for CTest.
#
#   run-fuzzer.sh PREFIX FUZZER [ARGS...]
#
# The fuzzer's progress lines go to PREFIXrun.log, not to CTest: a run of two
# minutes writes hundreds of kilobytes of them, and a log cut to a size limit
# would lose the one part that matters. On success this prints the run's
# final statistics. On a finding (a crash, a sanitizer report, a leak, a
# timeout, running out of memory) it prints the report, from its first line
# to the end of the log, and every input the fuzzer saved (its artifacts,
# PREFIX<kind>-<hash>), escaped, so that the finding can be reproduced from
# the CTest output alone:
#
#   printf '<the escaped bytes>' > input && FUZZER input
#
# The exit status is the fuzzer's.
set -u
if [ $# -lt 2 ]; then
  echo "usage: run-fuzzer.sh PREFIX FUZZER [ARGS...]" >&2
  exit 2
fi
prefix=$1
shift
log=${prefix}run.log
# This run saves its inputs in a directory of its own, so that they are told
# apart from those of earlier runs; they are moved to PREFIX afterwards.
saved=$(mktemp -d "${prefix}run.XXXXXX") || exit 2

"$@" -artifact_prefix="$saved/" >"$log" 2>&1
status=$?

artifacts=()
for input in "$saved"/*; do
  [ -f "$input" ] || continue
  artifact=$prefix$(basename "$input")
  mv -f "$input" "$artifact"
  artifacts+=("$artifact")
done
rmdir "$saved"

if [ "$status" -eq 0 ]; then
  grep -E '^(Done|stat::)' "$log"
  exit 0
fi

echo "fuzzer exited with status $status; whole log: $log"
# The report starts at the first line a sanitizer or libFuzzer writes for a
# finding; without one, the end of the log is the best there is.
first=$(grep -n -m1 -E '^==[0-9]+==|^[A-Za-z]*Sanitizer:DEADLYSIGNAL|ERROR: libFuzzer|^ALARM:|runtime error:|^MS: ' "$log" |
  cut -d: -f1)
if [ -n "$first" ]; then
  start=$((first > 20 ? first - 20 : 1))
  sed -n "${start},\$p" "$log" | head -n 400
else
  tail -n 100 "$log"
fi

for artifact in "${artifacts[@]}"; do
  echo "artifact $artifact ($(wc -c <"$artifact") bytes), as printf text:"
  python3 - "$artifact" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read()
out = []
for b in data[:16384]:
    c = chr(b)
    if c == "\\" or c == "'" or c == "%":
        out.append({"\\": "\\\\", "'": "\\047", "%": "%%"}[c])
    elif c == "\n":
        out.append("\\n")
    elif 32 <= b < 127:
        out.append(c)
    else:
        out.append("\\%03o" % b)
text = "".join(out)
print("'" + text + "'")
if len(data) > 16384:
    print("(the first 16384 bytes of %d)" % len(data))
EOF
done
[ "${#artifacts[@]}" -gt 0 ] || echo "no artifact was saved"
exit "$status"
