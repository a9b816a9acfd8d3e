#!/usr/bin/env python3
"""Turns llquote_bench_arrays' raw figures into a ratio table and plots.

  report.py DIR      reads DIR/samples.csv, DIR/checks.csv, DIR/machine.json;
                     writes DIR/results.md and, if gnuplot is installed,
                     DIR/plots/<op>.svg (throughput against size, one line
                     per peer, STREAM triad dashed).

A ratio is llquote's speed over a peer's (time of the peer / time of
llquote), taken per interleaved repetition: the median over repetitions,
with the smallest and largest in brackets. Above 1, llquote is faster.
"""
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict

PEER_ORDER = ["seq", "omp", "tbb", "halide", "llquote", "llquote-run", "unfused",
              "omp-empty"]
BANDWIDTH_OPS = {"map", "saxpy", "sum", "dot", "scan", "reverse", "transpose",
                 "segsum", "blur3", "blur5", "canny", "histogram",
                 "blackscholes"}
# Operations the issue holds to >= 90% (bandwidth) or >= 80% (scans) of STREAM.
STREAM_TARGET = {"map": 0.9, "saxpy": 0.9, "sum": 0.9, "dot": 0.9,
                 "reverse": 0.9, "scan": 0.8}


def med(xs):
    return statistics.median(xs)


def fmt_ratio(rs):
    if not rs:
        return "–"
    return f"{med(rs):.2f} ({min(rs):.2f}–{max(rs):.2f})"


def human(n):
    n = int(n)
    for k in range(40, -1, -1):
        if n == 1 << k and k >= 10:
            return f"2^{k}"
    return str(n)


def gnuplot(pd, name, title, logscale, ylabel, plot):
    """Draws pd/name.svg from the lines of plot, which read pd/name.dat
    (removed afterwards), against elements on a log2 axis."""
    script = f"""set terminal svg size 720,440 dynamic font 'sans,11'
set output '{name}.svg'
set title '{title}'
set logscale {logscale} 2
set format x '2^{{%L}}'
set xlabel 'elements'
set ylabel '{ylabel}'
set key outside right
set grid
plot {', '.join(plot)}
"""
    subprocess.run(["gnuplot"], input=script, text=True, cwd=pd, check=True)
    os.remove(os.path.join(pd, f"{name}.dat"))


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "bench-results"
    samples = defaultdict(dict)  # (kind, op, n) -> peer -> {rep: seconds}
    nbytes = {}
    with open(os.path.join(d, "samples.csv")) as f:
        for r in csv.DictReader(f):
            key = (r["kind"], r["op"], int(r["n"]))
            samples[key].setdefault(r["peer"], {})[int(r["rep"])] = float(r["seconds"])
            nbytes[key] = float(r["bytes"])
    checks = []
    if os.path.exists(os.path.join(d, "checks.csv")):
        with open(os.path.join(d, "checks.csv")) as f:
            checks = list(csv.DictReader(f))
    machine = {}
    if os.path.exists(os.path.join(d, "machine.json")):
        with open(os.path.join(d, "machine.json")) as f:
            machine = json.load(f)

    out = []
    w = out.append
    w("# llquote array benchmarks\n")
    if machine:
        w(f"Machine: {machine.get('cpu')}, {machine.get('cores')} cores, "
          f"{machine.get('threads')} threads per peer; LLVM {machine.get('llvm')}; "
          f"compiler {machine.get('compiler')}; {machine.get('date')}; "
          f"mode {machine.get('mode')}, {machine.get('reps')} interleaved repetitions; "
          f"peers: {', '.join(machine.get('peers', []))}.\n")
        if machine.get('llvm_cpu'):
            w(f"CPU as LLVM sees it: `{machine.get('llvm_cpu')}`, "
              f"{machine.get('vector_bits')}-bit vectors for the loop vectorizer "
              f"({machine.get('vector_features')}); L1d {machine.get('l1d')}, "
              f"L2 {machine.get('l2')}, L3 {machine.get('l3')}; STREAM triad "
              f"{machine.get('stream_triad_gbs')} GB/s, copy "
              f"{machine.get('stream_copy_gbs')} GB/s.\n")

    # STREAM.
    stream = {}
    for (kind, op, n), peers in samples.items():
        if kind == "stream":
            ts = list(peers["omp"].values())
            stream[op] = [nbytes[(kind, op, n)] / t / 1e9 for t in ts]
    triad = med(stream["triad"]) if "triad" in stream else None
    if stream:
        w("## STREAM (all cores, 2^24 floats per array)\n")
        w("| kernel | GB/s median | min–max |")
        w("|---|---|---|")
        for k in ["copy", "scale", "add", "triad"]:
            if k in stream:
                w(f"| {k} | {med(stream[k]):.1f} | {min(stream[k]):.1f}–{max(stream[k]):.1f} |")
        w("")

    ops = sorted({op for (kind, op, n) in samples if kind == "op" and op != "overhead"},
                 key=lambda o: list(samples).index(next(k for k in samples if k[1] == o)))

    def ratio_row(key):
        peers = samples[key]
        llq = peers.get("llquote")
        row = {}
        if not llq:
            return row
        for p, reps in peers.items():
            if p == "llquote":
                continue
            row[p] = [reps[r] / llq[r] for r in reps if r in llq]
        # Best peer: per repetition, the fastest of the others.
        # llquote-run is llquote called another way, not a peer.
        others = [p for p in peers
                  if p not in ("llquote", "llquote-run", "omp-empty", "unfused")]
        best = []
        for r in llq:
            ts = [peers[p][r] for p in others if r in peers[p]]
            if ts:
                best.append(min(ts) / llq[r])
        row["best"] = best
        return row

    cols = [p for p in PEER_ORDER if p not in ("llquote", "omp-empty", "unfused")
            and any(p in samples[k] for k in samples if k[0] == "op")]

    def table(keys, title):
        w(title + "\n")
        w("Ratios are llquote's speed over the peer's: median over repetitions "
          "(min–max). Above 1.00 llquote is faster.\n")
        head = "| operation | n | llquote GB/s | % of triad | " + " | ".join(
            f"vs {c}" for c in cols) + " | vs best peer |"
        w(head)
        w("|" + "---|" * (head.count("|") - 1))
        for key in keys:
            _, op, n = key
            peers = samples[key]
            if "llquote" not in peers:
                continue
            ts = list(peers["llquote"].values())
            gbs = nbytes[key] / med(ts) / 1e9
            row = ratio_row(key)
            pct = f"{100 * gbs / triad:.0f}%" if triad and op in BANDWIDTH_OPS else "–"
            if op in STREAM_TARGET and triad:
                pct += " ✓" if gbs / triad >= STREAM_TARGET[op] else " ✗"
            cells = [fmt_ratio(row.get(c, [])) for c in cols]
            w(f"| {op} | {human(n)} | {gbs:.2f} | {pct} | " + " | ".join(cells) +
              f" | {fmt_ratio(row.get('best', []))} |")
        w("")

    opkeys = [k for k in samples if k[0] == "op" and k[1] != "overhead"]
    largest = {}
    for k in opkeys:
        if k[1] not in largest or k[2] > largest[k[1]][2]:
            largest[k[1]] = k
    table([largest[o] for o in ops if o in largest],
          "## At the largest size of each operation")
    table(sorted(opkeys, key=lambda k: (ops.index(k[1]), k[2])), "## Every size")

    # What fusion buys: llquote with RuntimeOptions::Fusion off.
    fkeys = [k for k in sorted(opkeys, key=lambda k: (ops.index(k[1]), k[2]))
             if "unfused" in samples[k] and "llquote" in samples[k]]
    if fkeys:
        w("## What fusion buys\n")
        w("llquote as it runs, and with `RuntimeOptions::Fusion` off (`unfused`: "
          "every producer a kernel of its own that writes its result to memory), "
          "for the operations whose expression has a producer under a consumer: "
          "dot is `fold (+) 0 (zipWith (*) x y)`, SAXPY `zipWith (+) (map (a *) x) "
          "y`. Speed-up: unfused time over fused, median over repetitions "
          "(min–max).\n")
        w("| operation | n | fused µs | unfused µs | speed-up from fusion |")
        w("|---|---|---|---|---|")
        for key in fkeys:
            _, op, n = key
            fused, unfused = samples[key]["llquote"], samples[key]["unfused"]
            ups = [unfused[r] / fused[r] for r in fused if r in unfused]
            w(f"| {op} | {human(n)} | {med(list(fused.values())) * 1e6:.1f} | "
              f"{med(list(unfused.values())) * 1e6:.1f} | {fmt_ratio(ups)} |")
        w("")

    # Throughput of every peer, for reference.
    w("## Throughput of every peer (GB/s, median)\n")
    head = "| operation | n | " + " | ".join(p for p in PEER_ORDER if p != "omp-empty") + " |"
    w(head)
    w("|" + "---|" * (head.count("|") - 1))
    for key in sorted(opkeys, key=lambda k: (ops.index(k[1]), k[2])):
        cells = []
        for p in PEER_ORDER:
            if p == "omp-empty":
                continue
            reps = samples[key].get(p)
            cells.append(f"{nbytes[key] / med(list(reps.values())) / 1e9:.2f}" if reps else "–")
        w(f"| {key[1]} | {human(key[2])} | " + " | ".join(cells) + " |")
    w("")

    # Time per call of map at small sizes, where the calling thread and the
    # peers' launches cross over.
    small = sorted([k for k in opkeys if k[1] == "map" and k[2] <= 1 << 16],
                   key=lambda k: k[2])
    small_peers = [p for p in PEER_ORDER if p != "omp-empty"
                   and any(p in samples[k] for k in small)]
    if small:
        w("## map at small sizes (µs per call, median)\n")
        w("The best time of each size is in bold.\n")
        w("| n | " + " | ".join(small_peers) + " |")
        w("|---|" + "---|" * len(small_peers))
        for k in small:
            ts = {p: med(list(samples[k][p].values())) * 1e6
                  for p in small_peers if p in samples[k]}
            best = min(ts.values())
            cells = [(f"**{ts[p]:.3f}**" if ts[p] == best else f"{ts[p]:.3f}")
                     if p in ts else "–" for p in small_peers]
            w(f"| {human(k[2])} | " + " | ".join(cells) + " |")
        w("")

    ov = [k for k in samples if k[0] == "op" and k[1] == "overhead"]
    if ov:
        w("## Warm call overhead (a one-element map, µs per call)\n")
        w("| peer | median µs | min–max |")
        w("|---|---|---|")
        for p in PEER_ORDER:
            reps = samples[ov[0]].get(p)
            if reps:
                ts = [t * 1e6 for t in reps.values()]
                w(f"| {p} | {med(ts):.2f} | {min(ts):.2f}–{max(ts):.2f} |")
        w("")
    comp = [k for k in samples if k[0] == "compile"]
    if comp:
        w("## llquote kernel compile latency (1024 elements)\n")
        w("cold: first run on a fresh runtime with an empty disk cache (instantiate, "
          "optimise, compile, run); disk: first run on a fresh runtime whose disk cache "
          "holds the object; warm: a second run, found by structure.\n")
        w("| operation | cold ms | disk hit ms | warm µs |")
        w("|---|---|---|---|")
        for k in comp:
            p = samples[k]
            def m(name, scale):
                return f"{med(list(p[name].values())) * scale:.2f}" if name in p else "–"
            w(f"| {k[1]} | {m('cold', 1e3)} | {m('disk', 1e3)} | {m('warm', 1e6)} |")
        w("")
    bad = [c for c in checks if c["status"] != "ok"]
    w("## Checks\n")
    w(f"{len(checks)} results checked against the sequential loop before timing; "
      f"{len(bad)} failed.\n")
    for c in bad:
        w(f"- {c['op']} n={c['n']} {c['peer']}: {c['status']}")
    if bad:
        w("")

    with open(os.path.join(d, "results.md"), "w") as f:
        f.write("\n".join(out))
    print(f"wrote {os.path.join(d, 'results.md')}")

    if not shutil.which("gnuplot"):
        print("gnuplot not found: no plots")
        return
    pd = os.path.join(d, "plots")
    os.makedirs(pd, exist_ok=True)
    for op in ops:
        keys = sorted([k for k in opkeys if k[1] == op], key=lambda k: k[2])
        if not keys:
            continue
        peers = [p for p in PEER_ORDER if any(p in samples[k] for k in keys)]
        dat = os.path.join(pd, f"{op}.dat")
        with open(dat, "w") as f:
            f.write("# n " + " ".join(peers) + "\n")
            for k in keys:
                vals = []
                for p in peers:
                    reps = samples[k].get(p)
                    vals.append(f"{nbytes[k] / med(list(reps.values())) / 1e9:.4f}" if reps else "NaN")
                f.write(f"{k[2]} " + " ".join(vals) + "\n")
        plot = []
        for i, p in enumerate(peers):
            lw = 3 if p == "llquote" else 1.5
            plot.append(f"'{op}.dat' using 1:{i + 2} with linespoints lw {lw} title '{p}'")
        if triad:
            plot.append(f"{triad:.3f} with lines dt 2 lc rgb 'black' title 'STREAM triad'")
        gnuplot(pd, op, f"{op}: throughput against size (higher is better)",
                "x", "GB/s (bytes read + written per second)", plot)
    if small:
        with open(os.path.join(pd, "map-calls.dat"), "w") as f:
            f.write("# n " + " ".join(small_peers) + "\n")
            for k in small:
                vals = [f"{med(list(samples[k][p].values())) * 1e6:.4f}"
                        if p in samples[k] else "NaN" for p in small_peers]
                f.write(f"{k[2]} " + " ".join(vals) + "\n")
        plot = [f"'map-calls.dat' using 1:{i + 2} with linespoints "
                f"lw {3 if p == 'llquote' else 1.5} title '{p}'"
                for i, p in enumerate(small_peers)]
        gnuplot(pd, "map-calls", "map at small sizes: time per call (lower is better)",
                "xy", "microseconds per call", plot)
    print(f"wrote {pd}/*.svg")


if __name__ == "__main__":
    main()
