#!/usr/bin/env python3
"""Writes results.md from bench/mpi/run.sh's samples.csv: for each operation
and size, the time per call on 2 ranks x 1 thread and on 1 rank x 2 threads,
their ratio, and the communication per call, measured and modelled."""
import csv
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

out = Path(sys.argv[1])
rows = list(csv.DictReader(open(out / "samples.csv")))
by = defaultdict(list)
for r in rows:
    by[(r["op"], int(r["n"]), int(r["ranks"]), int(r["threads"]))].append(r)


def med(key, field):
    return statistics.median(float(r[field]) for r in by[key])


# The model's parameters, from the same run.
rt_small = med(("pingpong", 8, 2, 1), "seconds")
rt_big = med(("pingpong", 1048576, 2, 1), "seconds")
alpha_p2p = rt_small / 2
beta = 1048576 / (rt_big / 2 - alpha_p2p)
alpha_coll = med(("allreduce", 1, 2, 1), "seconds")


def cpu():
    try:
        txt = subprocess.run(["llc-19", "--version"], capture_output=True,
                             text=True).stdout
    except OSError:
        txt = subprocess.run(["/usr/lib/llvm-19/bin/llc", "--version"],
                             capture_output=True, text=True).stdout
    for line in txt.splitlines():
        if "Host CPU" in line:
            return line.split(":")[1].strip()
    return "unknown"


lines = [
    "# llquote over MPI ranks",
    "",
    f"LLVM host CPU `{cpu()}`; Open MPI, shared memory between the ranks of "
    "one machine. Times are medians over every repetition of every round "
    "(configurations interleaved round by round).",
    "",
    "## The communication model's parameters (measured in this run)",
    "",
    f"- point-to-point latency (half a ping-pong of 8 bytes): "
    f"{alpha_p2p * 1e6:.2f} us",
    f"- bandwidth (ping-pong of 1 MiB): {beta / 1e9:.2f} GB/s",
    f"- a small collective (MPI_Allreduce of one int, 2 ranks): "
    f"{alpha_coll * 1e6:.2f} us",
    "",
    "Model of the communication of one call: collectives x the small "
    "collective's time + bytes sent by a rank / bandwidth.",
    "",
    "## 2 ranks x 1 thread against 1 rank x 2 threads",
    "",
    "Ratio: the speed of 2 ranks x 1 thread over that of 1 rank x 2 threads "
    "(above 1.00 the two ranks are faster), median, and its range over the "
    "rounds' medians.",
    "",
    "| operation | n | 2x1 ms | 1x2 ms | ratio | bytes sent / call | "
    "collectives / call | communication measured us | model us |",
    "|---|---|---|---|---|---|---|---|---|",
]
for op in ["nbody", "jacobi", "dot"]:
    for n in sorted({k[1] for k in by if k[0] == op}):
        a, b = (op, n, 2, 1), (op, n, 1, 2)
        if not by[a] or not by[b]:
            continue
        ta, tb = med(a, "seconds"), med(b, "seconds")
        # Range of the ratio over rounds: samples come in rounds of nrep
        # repetitions, in order.
        ka = [float(r["seconds"]) for r in by[a]]
        kb = [float(r["seconds"]) for r in by[b]]
        nrep = len({r["rep"] for r in by[a]})
        ratios = []
        for i in range(0, min(len(ka), len(kb)), nrep):
            ratios.append(statistics.median(kb[i:i + nrep]) /
                          statistics.median(ka[i:i + nrep]))
        bytes_ = med(a, "bytes_sent")
        coll = med(a, "collectives")
        comm = med(a, "comm_seconds")
        model = coll * alpha_coll + bytes_ / beta
        lines.append(
            f"| {op} | {n} | {ta * 1e3:.3f} | {tb * 1e3:.3f} | {tb / ta:.2f} "
            f"({min(ratios):.2f}–{max(ratios):.2f}) | {bytes_:.0f} | "
            f"{coll:.0f} | {comm * 1e6:.1f} | {model * 1e6:.1f} |")
lines += [
    "",
    "The measured time in collectives includes waiting for the slower rank "
    "to arrive (load imbalance and noise), which the model does not; where "
    "the two differ by much more than the model, the difference is that wait.",
    "",
]
(out / "results.md").write_text("\n".join(lines))
print(f"wrote {out / 'results.md'}")
