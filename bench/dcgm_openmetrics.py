#!/usr/bin/env python3
"""Writes a history of dcgm-exporter series as OpenMetrics text, for `promtool tsdb create-blocks-from openmetrics`.

    python3 bench/dcgm_openmetrics.py --capture SCRAPE --counters CSV --hosts HOSTS.txt --gpus 8 \
        --end UNIX_S --hours 24 --step 300 --out FILE

Every host of HOSTS.txt (one name a line) gets `gpus` GPUs whose series are those of the recorded real scrape
(tests/prometheus/fake_dcgm_exporter.py reads it the same way), one sample every `step` seconds over `hours`
ending at `end`. Readings that move on a real GPU (utilisation, power, temperatures, clocks, PCIe rates) follow
a deterministic walk around the recorded value, so the TSDB compresses them as real data rather than constants;
counts and flags stay as recorded. dcgm-exporter's counters have no `_total` suffix, which OpenMetrics requires of
a counter, so every family is written with its TYPE gauge or unknown (the TSDB keeps no type).
"""
import argparse
import os
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "prometheus"))
import fake_dcgm_exporter  # noqa: E402 (the capture reader shared with the fake exporter)

MOVING = {
    "DCGM_FI_DEV_GPU_UTIL": (0, 100),
    "DCGM_FI_DEV_MEM_COPY_UTIL": (0, 100),
    "DCGM_FI_DEV_POWER_USAGE": (10, 75),
    "DCGM_FI_DEV_GPU_TEMP": (25, 80),
    "DCGM_FI_DEV_SM_CLOCK": (210, 2040),
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE": (0, 1),
    "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE": (0, 1),
    "DCGM_FI_PROF_DRAM_ACTIVE": (0, 1),
    "DCGM_FI_PROF_PCIE_TX_BYTES": (0, 2e9),
    "DCGM_FI_PROF_PCIE_RX_BYTES": (0, 2e9),
}


def walk(seed, count, low, high, start):
    """`count` values from `start`, each a step of up to 5 % of the range from the last, kept in [low, high]."""
    state = seed or 1
    value = min(max(start, low), high)
    values = []
    span = high - low
    for _ in range(count):
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        value += ((state >> 33) / float(1 << 31) - 1.0) * 0.05 * span
        value = min(max(value, low), high)
        values.append(value)
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--capture", required=True)
    parser.add_argument("--counters", required=True)
    parser.add_argument("--hosts", required=True)
    parser.add_argument("--gpus", type=int, default=8)
    parser.add_argument("--end", type=int, required=True, help="last sample's time, Unix seconds")
    parser.add_argument("--hours", type=float, default=24)
    parser.add_argument("--step", type=int, default=300)
    parser.add_argument("--first-index", type=int, default=0, help="the first host's index in the whole fleet (UUIDs)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    capture = fake_dcgm_exporter.read_capture(args.capture)
    counters = fake_dcgm_exporter.read_counters(args.counters)
    fleet = fake_dcgm_exporter.Fleet({"nodes": [], "gpus_per_node": args.gpus}, capture, counters)
    hosts = [line.strip() for line in open(args.hosts, encoding="utf-8") if line.strip()]
    count = int(args.hours * 3600 // args.step) + 1
    times = [f"{args.end - (count - 1 - i) * args.step}" for i in range(count)]

    with open(args.out, "w", encoding="utf-8") as out:
        for name, (help_text, kind, labels, recorded) in fleet.metrics.items():
            out.write(f"# HELP {name} {help_text or name}\n")
            out.write(f"# TYPE {name} {'gauge' if kind == 'gauge' else 'unknown'}\n")
            for host_index, host in enumerate(hosts):
                for gpu in range(args.gpus):
                    text = ",".join(f'{key}="{value}"' for key, value in
                                    fake_dcgm_exporter.gpu_labels(labels, host, args.first_index + host_index, gpu))
                    prefix = f"{name}{{{text}}} "
                    if name in MOVING:
                        low, high = MOVING[name]
                        seed = zlib.crc32(f"{name}/{host}/{gpu}".encode())
                        values = (f"{v:.6g}" for v in walk(seed, count, low, high, float(recorded)))
                        out.write("".join(f"{prefix}{v} {t}\n" for v, t in zip(values, times)))
                    else:
                        out.write("".join(f"{prefix}{recorded} {t}\n" for t in times))
        out.write("# EOF\n")


if __name__ == "__main__":
    main()
