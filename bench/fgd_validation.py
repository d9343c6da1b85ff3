#!/usr/bin/env python3
"""Compares `gputwin simulate packing` with the FGD paper's published results (ATC'23, hkust-adsl simulator).

For every workload and policy in fgd-expected-results/analysis_allo_discrete.csv: the mean GPU allocation ratio
over the published seeds at 100 % and 130 % arrived GPU demand, ours (mean over the same number of seeds, our RNG)
against theirs, and whether the policy ranking at 130 % is the same. Exit status 1 when a cell is off by more
than --tolerance percentage points or a ranking differs.

Usage: bench/fgd_validation.py [--gputwin build/src/gputwin/gputwin] [--shared ../shared] [--tolerance 0.5]
"""
import argparse
import csv
import json
import os
import pathlib
import subprocess
import sys
import time

POLICIES = {"01-Random": "random", "02-DotProd": "dotprod", "03-GpuClustering": "clustering",
            "04-GpuPacking": "packing", "05-BestFit": "bestfit", "06-FGD": "fgd"}


def published_means(path):
    table = {}
    with open(path) as handle:
        for row in csv.DictReader(handle):
            key = (row["workload"], row["sc_policy"])
            table.setdefault(key, []).append((int(row["seed"]), float(row["100"]), float(row["130"])))
    return {key: (sorted(s for s, _, _ in rows), sum(r[1] for r in rows) / len(rows), sum(r[2] for r in rows) / len(rows))
            for key, rows in table.items()}


def published_curves(path):
    with open(path) as handle:
        return {(row["workload"], row["sc_policy"], int(row["seed"])): [float(row[str(k)]) for k in range(131)]
                for row in csv.DictReader(handle)}


def ours(gputwin, traces, workload, policy, seeds):
    command = [gputwin, "simulate", "packing", "--nodes", str(traces / "openb_node_list_gpu_node.csv"),
               "--pods", str(traces / f"{workload}.csv"), "--policy", policy,
               "--seeds", f"{seeds[0]}-{seeds[-1]}", "--json"]
    result = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    curve = result["mean_over_seeds"]["allocation_percent_by_arrived_percent"]
    per_seed = {run["seed"]: run["allocation_percent_by_arrived_percent"] for run in result["runs"]}
    return curve[100], curve[130], per_seed


def ranking(values):
    return [name for name, _ in sorted(values.items(), key=lambda item: -item[1])]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    root = pathlib.Path(__file__).resolve().parent.parent
    parser.add_argument("--gputwin", default=str(root / "build/src/gputwin/gputwin"))
    parser.add_argument("--shared", default=str(root.parent / "shared"))
    parser.add_argument("--tolerance", type=float, default=0.5)
    args = parser.parse_args()
    shared = pathlib.Path(args.shared)
    expected = published_means(shared / "traces/fgd-expected-results/analysis_allo_discrete.csv")
    traces = shared / "traces/alibaba-gpu-v2023/csv"
    workloads = sorted({workload for workload, _ in expected})
    curves = published_curves(shared / "traces/fgd-expected-results/analysis_allo_discrete.csv")
    exact_total = [0, 0]  # runs, runs whose whole 0..130 curve equals the published one
    failures = 0
    started = time.time()
    print(f"{'workload':<26} {'policy':<17} {'ours@100':>9} {'paper@100':>9} {'diff':>6} {'ours@130':>9} {'paper@130':>9} {'diff':>6}")
    for workload in workloads:
        ours_130, theirs_130 = {}, {}
        for label, policy in POLICIES.items():
            seeds, paper_100, paper_130 = expected[(workload, label)]
            mine_100, mine_130, per_seed = ours(args.gputwin, traces, workload, policy, seeds)
            for seed in seeds:
                exact_total[0] += 1
                exact_total[1] += all(abs(a - b) < 0.005 for a, b in zip(per_seed[seed], curves[(workload, label, seed)]))
            diff_100, diff_130 = mine_100 - paper_100, mine_130 - paper_130
            flag = "" if abs(diff_100) <= args.tolerance and abs(diff_130) <= args.tolerance else "  <-- off"
            failures += bool(flag)
            ours_130[label], theirs_130[label] = mine_130, paper_130
            print(f"{workload:<26} {label:<17} {mine_100:>9.2f} {paper_100:>9.2f} {diff_100:>+6.2f} "
                  f"{mine_130:>9.2f} {paper_130:>9.2f} {diff_130:>+6.2f}{flag}")
        same = ranking(ours_130) == ranking(theirs_130)
        failures += not same
        print(f"{'':<26} ranking at 130 %: {'same' if same else 'DIFFERENT'}: ours {' > '.join(ranking(ours_130))}")
        if not same:
            print(f"{'':<26} paper: {' > '.join(ranking(theirs_130))}")
    print(f"{exact_total[1]} of {exact_total[0]} runs reproduce their published seed's whole curve exactly")
    print(f"{failures} problem(s); {len(workloads) * len(POLICIES) * 10} runs in {time.time() - started:.1f} s "
          f"(tolerance {args.tolerance} pp)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
