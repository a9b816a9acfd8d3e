"""expect-exit.py N CMD...: run CMD; succeed only if it exits with status N.

Its output is passed through, so FileCheck can read it after a pipe."""
import subprocess
import sys

want = int(sys.argv[1])
proc = subprocess.run(sys.argv[2:])
if proc.returncode != want:
    sys.stderr.write("expect-exit: wanted status %d, got %d\n" % (want, proc.returncode))
    sys.exit(1)
