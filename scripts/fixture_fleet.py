#!/usr/bin/env python3
"""Assembles a measured fleet from the shared real captures (../shared/fixtures) for `gputwin validate` demos.

Usage: python3 scripts/fixture_fleet.py DIR      (DIR must not exist; files are copied, the repo keeps none)

Each "node" is one origin of the captures (a machine someone captured), so the fleet mixes GPU models: it shows
what every reader and check does on real outputs, not a healthy homogeneous cluster.
"""
import pathlib
import shutil
import sys

FIXTURES = pathlib.Path(__file__).resolve().parent.parent.parent / "shared" / "fixtures"

NODES = {
    "a100-mig": ["nvidia-smi-xml/telegraf/a100-sxm4-v12.xml"],
    "a10g": ["nvidia-smi-xml/telegraf/a10g.xml"],
    "dgx-a100-superbench": ["nccl-tests/superbenchmark/nccl_allreduce.log",
                            "nccl-tests/superbenchmark/nccl_allgather.log",
                            "nccl-tests/superbenchmark/nccl_alltoall.log"],
    "dual-a5000": ["nvidia-smi-xml/telegraf/dual_a5000-v13.xml"],
    "h100": ["nvidia-smi-captures/nvidia_gpu_exporter/linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt",
             "nccl-tests/awsome-distributed-training/p5-H100-EFA-awsbatch_all_reduce__aws-batch_README.md_L28-64.txt"],
    "h100-mig": ["nvidia-smi-captures/nvidia_gpu_exporter/linux-x86_64__nvidia-h100-mig__590.48.01.txt"],
    "h200-mig": ["nvidia-smi-captures/nvidia_gpu_exporter/linux-x86_64__nvidia-h200-mig__590.48.01.txt"],
    "l4": ["dcgm/k8s-ai-conformance/dcgm-exporter-metrics_L4_kops__output.md_L51-121.txt"],
    "rtx-3080": ["nvidia-smi-xml/telegraf/rtx-3080-v13.xml"],
    "t4-pair": ["nccl-tests/gpu-systems-lab/allreduce-nccl-tests.json",
                "dcgm/k8s-ai-conformance/dcgm-exporter-metrics_T4_ericsson-ccd__accelerator_metrics.md_L14-35.txt"],
    "virtualclient": ["dcgm/VirtualClient/DCGMIDiag_r3_results.json", "dcgm/dcgm-exporter/default-counters.csv"],
}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    target = pathlib.Path(sys.argv[1])
    if not FIXTURES.is_dir():
        sys.exit(f"fixture_fleet: shared fixtures absent: {FIXTURES}")
    target.mkdir(parents=True)
    for node, files in NODES.items():
        (target / node).mkdir()
        for relative in files:
            shutil.copyfile(FIXTURES / relative, target / node / pathlib.Path(relative).name)


if __name__ == "__main__":
    main()
