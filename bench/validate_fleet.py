#!/usr/bin/env python3
"""Speed benchmark of `gputwin validate` on a generated 1,000-node fleet (issue 5, item 6; not run by CI).

Usage: python3 bench/validate_fleet.py [--gputwin build/src/gputwin/gputwin] [--nodes 1000] [--gpus-per-node 8]
                                       [--runs 3] [--keep DIR]

Builds the fleet in a temporary directory from the shared real captures (../shared/fixtures, read in place):
each node gets the `nvidia-smi -q -x` output of telegraf's dual RTX A5000 capture (schema v13), its GPU records
repeated to --gpus-per-node with the node's own serials, UUIDs, bus ids, temperatures, power draws and clocks, and
superbenchmark's 8-rank all_reduce_perf log with the node's host name and its busbw scaled by a small per-node
factor. A few faults are planted (listed in PLANTED); the script runs `gputwin validate --json` on the fleet with
the 4-node DGX A100 design of examples/dgx-a100-4-nodes.yaml for the busbw comparison, prints the wall time of
each run against the 5 s target and whether every planted fault was found.
"""
import argparse
import json
import pathlib
import random
import re
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT.parent / "shared" / "fixtures"
XML = FIXTURES / "nvidia-smi-xml/telegraf/dual_a5000-v13.xml"
NCCL = FIXTURES / "nccl-tests/superbenchmark/nccl_allreduce.log"
NCCL_WITH_WRONG_COLUMN = FIXTURES / "nccl-tests/awsome-distributed-training/2x-p4de-A100-EFA_all_reduce__README.md_L157-187.txt"
TARGET_SECONDS = 5.0

# (node number, what is planted, the finding or outlier that must name it)
PLANTED = [
    (137, "GPU 1: 2 volatile DBEs", ("finding", "ecc-uncorrectable")),
    (421, "driver 535.54.03 (fleet: 590.44.01)", ("finding", "version-mismatch")),
    (666, "nccl-tests #wrong 5 at 1 GiB", ("finding", "nccl-wrong-results")),
    (777, "busbw at half the fleet's", ("outlier", "busbw")),
    (777, "busbw at half the design's", ("finding", "nccl-busbw-below-prediction")),
    (888, "GPU 0 at 95 C", ("outlier", "temperature")),
]


def node_name(number):
    return f"gpu-node-{number:04d}"


def split_gpus(xml):
    first = xml.index("\t<gpu ")
    last = xml.rindex("\t</gpu>\n") + len("\t</gpu>\n")
    blocks = re.findall(r"\t<gpu .*?\t</gpu>\n", xml[first:last], flags=re.S)
    return xml[:first], blocks, xml[last:]


def replace_first(pattern, replacement, text):
    return re.sub(pattern, replacement, text, count=1, flags=re.S)


def gpu_record(template, number, gpu, rng, faults):
    block = replace_first(r'<gpu id="[^"]*">', f'<gpu id="00000000:{0x18 + gpu * 0x10:02X}:00.0">', template)
    block = replace_first(r"<serial>[^<]*</serial>", f"<serial>1654{number:05d}{gpu:03d}</serial>", block)
    block = replace_first(r"<uuid>[^<]*</uuid>", f"<uuid>GPU-{number:08x}-{gpu:04x}-4000-8000-{rng.getrandbits(48):012x}</uuid>", block)
    temperature = 95 if faults.get("hot_gpu") == gpu else rng.randint(58, 66)
    block = replace_first(r"<gpu_temp>[^<]*</gpu_temp>", f"<gpu_temp>{temperature} C</gpu_temp>", block)
    block = replace_first(r"<instant_power_draw>[^<]*</instant_power_draw>",
                          f"<instant_power_draw>{rng.uniform(205, 215):.2f} W</instant_power_draw>", block)
    block = replace_first(r"(<clocks>.*?<sm_clock>)[^<]*(</sm_clock>)", rf"\g<1>{rng.choice([1995, 2010, 2025])} MHz\g<2>", block)
    if faults.get("dbe_gpu") == gpu:
        block = replace_first(r"(<volatile>.*?<dram_uncorrectable>)[^<]*(</dram_uncorrectable>)", r"\g<1>2\g<2>", block)
    return block


def node_xml(parts, number, gpus_per_node, rng, faults):
    head, blocks, tail = parts
    if "driver" in faults:
        head = replace_first(r"<driver_version>[^<]*</driver_version>", f"<driver_version>{faults['driver']}</driver_version>", head)
    head = replace_first(r"<attached_gpus>[^<]*</attached_gpus>", f"<attached_gpus>{gpus_per_node}</attached_gpus>", head)
    records = [gpu_record(blocks[g % len(blocks)], number, g, rng, faults) for g in range(gpus_per_node)]
    return head + "".join(records) + tail


def scaled_row(line, scale):
    """A result row with its algbw and busbw times `scale` (and times divided by it); other lines unchanged."""
    cells = line.split()
    # size count type redop [root] time algbw busbw error|#wrong time algbw busbw error|#wrong
    if len(cells) not in (12, 13) or not cells[0].isdigit():
        return line
    first = len(cells) - 8
    for start in (first, first + 4):
        cells[start] = f"{float(cells[start]) / scale:.2f}"
        cells[start + 1] = f"{float(cells[start + 1]) * scale:.2f}"
        cells[start + 2] = f"{float(cells[start + 2]) * scale:.2f}"
    return "  ".join(f"{cell:>10}" for cell in cells) + "\n"


def scaled_nccl(template, number, scale, host):
    return "".join(scaled_row(line.replace(" on localhost ", f" on {host} "), scale)
                   for line in template.splitlines(keepends=True))


def wrong_nccl(template):
    # Five wrong elements in the out-of-place result at 1 GiB.
    return re.sub(r"^(0:\s+1073741824\s+268435456\s+float\s+sum\s+-1\s+\S+\s+\S+\s+\S+\s+)0(\s)", r"\g<1>5\g<2>",
                  template, flags=re.M)


def build_fleet(directory, nodes, gpus_per_node):
    rng = random.Random(20261124)
    parts = split_gpus(XML.read_text())
    nccl = NCCL.read_text()
    faults_of = {137: {"dbe_gpu": 1}, 421: {"driver": "535.54.03"}, 888: {"hot_gpu": 0}}
    for number in range(1, nodes + 1):
        node = directory / node_name(number)
        node.mkdir()
        faults = faults_of.get(number, {})
        (node / "nvidia-smi-q-x.xml").write_text(node_xml(parts, number, gpus_per_node, rng, faults))
        if number == 666:
            (node / "all_reduce_perf.log").write_text(wrong_nccl(NCCL_WITH_WRONG_COLUMN.read_text()))
            continue
        scale = 0.5 if number == 777 else rng.uniform(0.98, 1.02)
        (node / "all_reduce_perf.log").write_text(scaled_nccl(nccl, number, scale, node_name(number)))


def found(report, number, kind, name):
    node = node_name(number)
    if kind == "finding":
        return any(f["node"] == node and f["rule"] == name for f in report["findings"])
    return any(o["node"] == node and o["metric"] == name for o in report["outliers"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gputwin", default=str(ROOT / "build/src/gputwin/gputwin"))
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--gpus-per-node", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", help="build the fleet in this (new) directory and keep it")
    args = parser.parse_args()
    for needed in (XML, NCCL, NCCL_WITH_WRONG_COLUMN):
        if not needed.exists():
            sys.exit(f"validate_fleet: shared fixture absent: {needed}")
    with tempfile.TemporaryDirectory(prefix="gputwin-fleet-") as scratch:
        directory = pathlib.Path(args.keep) if args.keep else pathlib.Path(scratch) / "fleet"
        directory.mkdir(parents=True)
        started = time.perf_counter()
        build_fleet(directory, args.nodes, args.gpus_per_node)
        size = sum(f.stat().st_size for f in directory.rglob("*") if f.is_file())
        print(f"fleet: {args.nodes} nodes x {args.gpus_per_node} GPUs, {size / 1e6:.0f} MB of captures, "
              f"generated in {time.perf_counter() - started:.1f} s")
        command = [args.gputwin, "validate", "--cluster", str(ROOT / "examples/dgx-a100-4-nodes.yaml"), "--measured",
                   str(directory), "--json"]
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            run = subprocess.run(command, capture_output=True, text=True)
            times.append(time.perf_counter() - started)
            if run.returncode not in (0, 1):
                sys.exit(f"validate_fleet: gputwin exited {run.returncode}:\n{run.stderr}")
        report = json.loads(run.stdout)
        best = min(times)
        print("wall time: " + ", ".join(f"{t:.2f} s" for t in times) +
              f" (best {best:.2f} s; target {TARGET_SECONDS:g} s: {'met' if best < TARGET_SECONDS else 'MISSED'})")
        summary = report["summary"]
        print(f"summary: {summary['critical']} critical, {summary['warning']} warning, {summary['info']} info, "
              f"{summary['outliers']} outliers")
        missing = 0
        for number, what, (kind, name) in PLANTED:
            ok = found(report, number, kind, name)
            missing += 0 if ok else 1
            print(f"  {'found' if ok else 'MISSED'}: {node_name(number)} {what} -> {kind} {name}")
        return 1 if missing or best >= TARGET_SECONDS else 0


if __name__ == "__main__":
    sys.exit(main())
