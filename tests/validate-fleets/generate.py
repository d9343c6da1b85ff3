#!/usr/bin/env python3
"""Writes the small measured fleets of the `gputwin validate` golden tests (hand-made, not copied captures).

Usage: python3 tests/validate-fleets/generate.py   (from the repository root; rewrites the fleets below)

Each node is a DGX H100 (8 GPUs) as `nvidia-smi -q -x` reports it under load (schema v12 elements gputwin reads),
with an 8-rank all_reduce_perf log. Values vary a little from node to node, as a real fleet's do.
  clean/       6 healthy nodes: no finding at the default 10 % busbw margin, no outlier
  faulty/      8 nodes with planted faults, one kind per node (listed in FAULTS below)
  bad-input/   2 nodes, one with a value nvidia-smi never prints (an input error with file and line)
  scraped/     2 nodes seen only through dcgm-exporter scrapes saved as .txt by `curl -v` (curl's trailing
               "* Connection #0 ... left intact" kept): node01 healthy, node02 sick (XID 79, 12 DBE, a failed row
               remapping, 97 C), which the checks must fail as they fail the same facts in nvidia-smi output
  no-capture/  2 nodes: node01 healthy, node02 holding only an operator's note (nothing to validate)
  mixed/       against dgx-h100-6-nodes.yaml: node01 and node03 as designed, node02 with H200s, node04 with 4
               GPUs, node05 with 40 GB GPUs under an H100 name, node06 absent, node07 not in the design, node08 a
               T4 pair seen only through its nccl-tests log (far below an H100's busbw)
"""
import pathlib
import shutil

ROOT = pathlib.Path(__file__).resolve().parent
# predicted-busbw.txt holds what `gputwin perf collective --cluster examples/dgx-h100-single-node.yaml --op
# all_reduce --gpus 8 --min 4G --max 4G` predicts (4 GiB: the largest size the logs measure); healthy nodes
# measure 4-6 % below it.

HEALTHY = {
    "driver": "550.90.07", "cuda": "12.4", "vbios": "96.00.89.00.01", "pstate": "P0", "persistence": "Enabled",
    "power_limit": 700.0, "default_limit": 700.0, "link_gen": 5, "link_width": 16,
    "dbe": 0, "remap_pending": "No", "remap_failure": "No", "throttle": [],
}

# node -> (per-node overrides, {gpu: per-GPU overrides}, nccl overrides, extra files)
FAULTS = {
    "node01": ({}, {}, {}, {}),
    "node02": ({}, {3: {"dbe": 2}}, {}, {"dcgmi-diag.json": "diag_fail"}),
    "node03": ({}, {5: {"remap_pending": "Yes", "remap_failure": "Yes"}}, {}, {}),
    "node04": ({}, {1: {"link_gen": 3, "link_width": 8}, 6: {"throttle": ["hw_thermal_slowdown"], "temp": 93}}, {}, {}),
    "node05": ({"driver": "535.183.01", "cuda": "12.2"}, {0: {"power_limit": 500.0}, 2: {"persistence": "Disabled"}}, {}, {}),
    "node06": ({}, {}, {"wrong_at": 1073741824}, {}),
    "node07": ({}, {}, {"busbw_scale": 0.55}, {}),
    "node08": ({}, {}, {}, {"notes.txt": "notes", "metrics.prom": "metrics"}),
}


def gpu_xml(node_index, gpu, values):
    reasons = ["gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown", "hw_thermal_slowdown",
               "hw_power_brake_slowdown", "sync_boost", "sw_thermal_slowdown", "display_clocks_setting"]
    reason_lines = "".join(
        f"\t\t\t<clocks_event_reason_{r}>{'Active' if r in values['throttle'] else 'Not Active'}</clocks_event_reason_{r}>\n"
        for r in reasons)
    temp = values.get("temp", 62 + (node_index * 3 + gpu * 5) % 7)
    draw = 655.0 + (node_index * 7 + gpu * 11) % 23
    draw_text = values["draw"] if "draw" in values else f"{draw:.2f}"
    sm_clock = 1980 - (node_index + gpu) % 3 * 15
    return f"""\t<gpu id="00000000:{0x18 + gpu * 0x10:02X}:00.0">
\t\t<product_name>{values.get('model', 'NVIDIA H100 80GB HBM3')}</product_name>
\t\t<persistence_mode>{values['persistence']}</persistence_mode>
\t\t<mig_mode>
\t\t\t<current_mig>Disabled</current_mig>
\t\t\t<pending_mig>Disabled</pending_mig>
\t\t</mig_mode>
\t\t<serial>16523220{node_index:02d}{gpu:03d}</serial>
\t\t<uuid>GPU-{node_index:08x}-0000-4000-8000-{gpu:012x}</uuid>
\t\t<vbios_version>{values['vbios']}</vbios_version>
\t\t<pci>
\t\t\t<pci_gpu_link_info>
\t\t\t\t<pcie_gen>
\t\t\t\t\t<max_link_gen>5</max_link_gen>
\t\t\t\t\t<current_link_gen>{values['link_gen']}</current_link_gen>
\t\t\t\t</pcie_gen>
\t\t\t\t<link_widths>
\t\t\t\t\t<max_link_width>16x</max_link_width>
\t\t\t\t\t<current_link_width>{values['link_width']}x</current_link_width>
\t\t\t\t</link_widths>
\t\t\t</pci_gpu_link_info>
\t\t</pci>
\t\t<performance_state>{values['pstate']}</performance_state>
\t\t<clocks_event_reasons>
{reason_lines}\t\t</clocks_event_reasons>
\t\t<fb_memory_usage>
\t\t\t<total>{values.get('memory_mib', 81559)} MiB</total>
\t\t\t<used>70312 MiB</used>
\t\t</fb_memory_usage>
\t\t<ecc_mode>
\t\t\t<current_ecc>Enabled</current_ecc>
\t\t</ecc_mode>
\t\t<ecc_errors>
\t\t\t<volatile>
\t\t\t\t<sram_correctable>0</sram_correctable>
\t\t\t\t<sram_uncorrectable>0</sram_uncorrectable>
\t\t\t\t<dram_correctable>0</dram_correctable>
\t\t\t\t<dram_uncorrectable>{values['dbe']}</dram_uncorrectable>
\t\t\t</volatile>
\t\t\t<aggregate>
\t\t\t\t<sram_correctable>0</sram_correctable>
\t\t\t\t<sram_uncorrectable>0</sram_uncorrectable>
\t\t\t\t<dram_correctable>3</dram_correctable>
\t\t\t\t<dram_uncorrectable>{values['dbe']}</dram_uncorrectable>
\t\t\t</aggregate>
\t\t</ecc_errors>
\t\t<retired_pages>
\t\t\t<multiple_single_bit_retirement>
\t\t\t\t<retired_count>N/A</retired_count>
\t\t\t</multiple_single_bit_retirement>
\t\t\t<double_bit_retirement>
\t\t\t\t<retired_count>N/A</retired_count>
\t\t\t</double_bit_retirement>
\t\t\t<pending_blacklist>N/A</pending_blacklist>
\t\t\t<pending_retirement>N/A</pending_retirement>
\t\t</retired_pages>
\t\t<remapped_rows>
\t\t\t<remapped_row_corr>0</remapped_row_corr>
\t\t\t<remapped_row_unc>{1 if values['remap_pending'] == 'Yes' else 0}</remapped_row_unc>
\t\t\t<remapped_row_pending>{values['remap_pending']}</remapped_row_pending>
\t\t\t<remapped_row_failure>{values['remap_failure']}</remapped_row_failure>
\t\t</remapped_rows>
\t\t<temperature>
\t\t\t<gpu_temp>{temp} C</gpu_temp>
\t\t</temperature>
\t\t<gpu_power_readings>
\t\t\t<power_state>{values['pstate']}</power_state>
\t\t\t<instant_power_draw>{draw_text} W</instant_power_draw>
\t\t\t<current_power_limit>{values['power_limit']:.2f} W</current_power_limit>
\t\t\t<requested_power_limit>{values['power_limit']:.2f} W</requested_power_limit>
\t\t\t<default_power_limit>{values['default_limit']:.2f} W</default_power_limit>
\t\t\t<min_power_limit>200.00 W</min_power_limit>
\t\t\t<max_power_limit>700.00 W</max_power_limit>
\t\t</gpu_power_readings>
\t\t<clocks>
\t\t\t<graphics_clock>{sm_clock} MHz</graphics_clock>
\t\t\t<sm_clock>{sm_clock} MHz</sm_clock>
\t\t\t<mem_clock>2619 MHz</mem_clock>
\t\t</clocks>
\t\t<max_clocks>
\t\t\t<graphics_clock>1980 MHz</graphics_clock>
\t\t\t<sm_clock>1980 MHz</sm_clock>
\t\t\t<mem_clock>2619 MHz</mem_clock>
\t\t</max_clocks>
\t</gpu>
"""


def node_xml(node, node_index, node_values, gpu_values):
    gpus = "".join(gpu_xml(node_index, g, {**HEALTHY, **node_values, **gpu_values.get(g, {})})
                   for g in range(node_values.get("gpus", 8)))
    values = {**HEALTHY, **node_values}
    return f"""<?xml version="1.0" ?>
<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
<nvidia_smi_log>
\t<timestamp>Mon Nov 23 10:00:00 2026</timestamp>
\t<driver_version>{values['driver']}</driver_version>
\t<cuda_version>{values['cuda']}</cuda_version>
\t<attached_gpus>{values.get('gpus', 8)}</attached_gpus>
{gpus}</nvidia_smi_log>
"""


def nccl_log(node, node_index, predicted, nccl):
    lines = [f"# nThread 1 nGpus 8 minBytes 1048576 maxBytes 4294967296 step: 4(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
             "#", "# Using devices"]
    device = nccl.get("device", "NVIDIA H100 80GB HBM3")
    lines += [f"#  Rank  {r} Group  0 Pid  4242 on     {node} device  {r} [0x{0x18 + r * 0x10:02x}] {device}"
              for r in range(8)]
    lines += ["#",
              "#                                                              out-of-place                       in-place          ",
              "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
              "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       "]
    scale = nccl.get("busbw_scale", 0.95 + (node_index % 3) * 0.01)
    size = 1048576
    total = 0.0
    rows = 0
    while size <= 4294967296:
        # A ramp toward the plateau: small messages are latency bound.
        busbw = predicted * scale * size / (size + 64 * 1048576)
        algbw = busbw / (2 * 7 / 8)
        time_us = size / (algbw * 1e3)
        wrong = 3 if nccl.get("wrong_at") == size else 0
        lines.append(f"{size:>12}  {size // 4:>12}     float     sum      -1  {time_us:7.1f}  {algbw:6.2f}  {busbw:6.2f}  {wrong:>5}"
                     f"  {time_us:7.1f}  {algbw:6.2f}  {busbw:6.2f}  {0:>5}")
        total += 2 * busbw
        rows += 2
        size *= 4
    bounds = "0 OK"
    lines += [f"# Out of bounds values : {bounds}", f"# Avg bus bandwidth    : {total / rows:.4f} ", "#", ""]
    return "\n".join(lines)


# Nodes of the mixed/ fleet (same shape as FAULTS).
MIXED = {
    "node01": ({}, {}, {}, {}),
    "node02": ({"model": "NVIDIA H200", "memory_mib": 143771}, {}, {}, {}),
    "node03": ({}, {}, {}, {}),
    "node04": ({"gpus": 4}, {}, {}, {}),
    "node05": ({"memory_mib": 40960}, {}, {}, {}),
    "node07": ({}, {}, {}, {}),
}

DIAG_FAIL = """{
  "DCGM GPU Diagnostic" : {
    "test_categories" : [
      { "category" : "Deployment", "tests" : [ { "name" : "Denylist", "results" : [ { "status" : "Pass" } ] } ] },
      { "category" : "Hardware", "tests" : [
        { "name" : "GPU Memory", "results" : [
          { "gpu_ids" : "3", "status" : "Fail", "warnings" : [ { "warning" : "Memory test found 2 uncorrectable errors on GPU 3" } ] } ] },
        { "name" : "Diagnostic", "results" : [
          { "gpu_ids" : "0,1,2,4,5,6,7", "status" : "Pass" },
          { "gpu_ids" : "3", "status" : "Warn", "warnings" : [ { "warning" : "GPU 3 reported 2 DBEs during the test" } ] } ] } ] }
    ]
  }
}
"""

METRICS = """# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).
# TYPE DCGM_FI_DEV_GPU_TEMP gauge
DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-00000008-0000-4000-8000-000000000000",modelName="NVIDIA H100 80GB HBM3",Hostname="node08"} 63
# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-00000008-0000-4000-8000-000000000000",modelName="NVIDIA H100 80GB HBM3",Hostname="node08"} 661.5
"""

NOTES = "rack B07, cabled 2026-11-20; re-seated OSFP on port 3\n"


def scrape(node, sick):
    """A dcgm-exporter scrape of 8 H100 with its default counters (plus the ECC and XID ones it can enable)."""
    values = {
        "DCGM_FI_DEV_GPU_TEMP": ("gauge", "GPU temperature (in C).", lambda g: 97 if sick and g == 3 else 60 + g),
        "DCGM_FI_DEV_MEMORY_TEMP": ("gauge", "Memory temperature (in C).", lambda g: 70),
        "DCGM_FI_DEV_POWER_USAGE": ("gauge", "Power draw (in W).", lambda g: 650.5),
        "DCGM_FI_DEV_XID_ERRORS": ("gauge", "Value of the last XID error encountered.",
                                   lambda g: 79 if sick and g == 3 else 0),
        "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL": ("counter", "Total number of double-bit volatile ECC errors.",
                                          lambda g: 12 if sick and g == 3 else 0),
        "DCGM_FI_DEV_ROW_REMAP_FAILURE": ("gauge", "Whether remapping of rows has failed",
                                          lambda g: 1 if sick and g == 3 else 0),
        "DCGM_FI_DEV_FB_FREE": ("gauge", "Framebuffer memory free (in MiB).", lambda g: 11000),
        "DCGM_FI_DEV_FB_USED": ("gauge", "Framebuffer memory used (in MiB).", lambda g: 70000),
        "DCGM_FI_DEV_FB_RESERVED": ("gauge", "Framebuffer memory reserved (in MiB).", lambda g: 559),
    }
    lines = ["*   Trying 127.0.0.1:9400...", "> GET /metrics HTTP/1.1", "< HTTP/1.1 200 OK", "<"]
    for name, (kind, help_text, value) in values.items():
        lines += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]
        for g in range(8):
            labels = (f'gpu="{g}",UUID="GPU-{node:0>8}-0000-4000-8000-{g:012x}",pci_bus_id="00000000:{0x18 + g * 0x10:02X}:00.0",'
                      f'device="nvidia{g}",modelName="NVIDIA H100 80GB HBM3",Hostname="{node}",'
                      f'DCGM_FI_DRIVER_VERSION="550.90.07"')
            lines.append(f"{name}{{{labels}}} {value(g)}")
    lines.append("* Connection #0 to host localhost left intact")
    return "\n".join(lines) + "\n"


def write_node(directory, node, node_index, predicted, spec):
    node_values, gpu_values, nccl, extra = spec
    path = directory / node
    path.mkdir(parents=True)
    (path / "nvidia-smi.xml").write_text(node_xml(node, node_index, node_values, gpu_values))
    (path / "all_reduce_perf.log").write_text(nccl_log(node, node_index, predicted, nccl))
    contents = {"diag_fail": DIAG_FAIL, "metrics": METRICS, "notes": NOTES}
    for name, kind in extra.items():
        (path / name).write_text(contents[kind])


def main():
    predicted = float((ROOT / "predicted-busbw.txt").read_text().split()[0])
    for fleet in ("clean", "faulty", "bad-input", "scraped", "no-capture", "mixed"):
        shutil.rmtree(ROOT / fleet, ignore_errors=True)
    for i in range(1, 7):
        write_node(ROOT / "clean", f"node{i:02d}", i, predicted, ({}, {}, {}, {}))
    for i, (node, spec) in enumerate(sorted(FAULTS.items()), start=1):
        write_node(ROOT / "faulty", node, i, predicted, spec)
    write_node(ROOT / "bad-input", "node01", 1, predicted, ({}, {}, {}, {}))
    write_node(ROOT / "bad-input", "node02", 2, predicted, ({}, {4: {"draw": "lots"}}, {}, {}))
    for node, sick in (("node01", False), ("node02", True)):
        (ROOT / "scraped" / node).mkdir(parents=True)
        (ROOT / "scraped" / node / "metrics.txt").write_text(scrape(node, sick))
    write_node(ROOT / "no-capture", "node01", 1, predicted, ({}, {}, {}, {}))
    for i, (node, spec) in enumerate(sorted(MIXED.items()), start=1):
        write_node(ROOT / "mixed", node, i, predicted, spec)
    t4 = ROOT / "mixed" / "node08"
    t4.mkdir(parents=True)
    (t4 / "all_reduce_perf.log").write_text(nccl_log("node08", 8, predicted, {"busbw_scale": 0.025, "device": "Tesla T4"}))
    (ROOT / "no-capture" / "node02").mkdir(parents=True)
    (ROOT / "no-capture" / "node02" / "notes.txt").write_text(NOTES)


if __name__ == "__main__":
    main()
