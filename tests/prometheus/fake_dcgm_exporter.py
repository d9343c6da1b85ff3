#!/usr/bin/env python3
"""Serves a recorded real dcgm-exporter scrape as the /metrics of many fake nodes, with faults injected over time.

    python3 tests/prometheus/fake_dcgm_exporter.py FLEET.json --fixtures DIR --port 19091

GET /metrics?node=NAME answers the scrape of node NAME (Prometheus sets ?node= from each target's __param_node).
Every node has `gpus_per_node` GPUs; each GPU's series are the recorded scrape's (one real GPU: its metric
names, HELP/TYPE, values and labels), with the labels that differ between GPUs and hosts rewritten as
dcgm-exporter would write them (gpu, UUID, pci_bus_id, device, Hostname). A series the default counters file
lists but the capture lacks (DCGM_FI_DEV_XID_ERRORS: the L4 capture has none) is added with value 0 and the
counters file's HELP/TYPE. FLEET.json's `added_counters` adds more such series the capture lacks, on every GPU
at 0, with dcgm-exporter's metric names, HELP and TYPE from the counters file (commented-out lines included:
the ECC and NVLink error counters are commented out in dcgm-exporter's default file, a site enables them) and
the capture's labels: they are added, not recorded. FLEET.json names the nodes, the capture and the faults, each starting `after_s`
seconds after the server started (and, with `after_scrapes`, after that many scrapes of its node, so a fault
that hides a node waits until Prometheus has seen it, however slowly it started):

    gpu-lost           the GPU's series disappear (fallen off the bus)
    xid                DCGM_FI_DEV_XID_ERRORS = value
    row-remap-failure  DCGM_FI_DEV_ROW_REMAP_FAILURE = 1, DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS = value
    power              DCGM_FI_DEV_POWER_USAGE = watts on every GPU of the node (or `gpu` only)
    pcie-replays       DCGM_FI_DEV_PCIE_REPLAY_COUNTER grows by `per_minute` replays a minute from the fault's start
    unscraped          the node's scrape answers 503 (its exporter is down: up == 0, every series goes stale)
    counter            the counter `metric` (recorded or added) = `value` (default 0) + `per_minute` a minute since
                       the fault's start (ECC and NVLink error counters climbing on one GPU)

Standard library only. Output is deterministic for a given time since start.
"""
import argparse
import http.server
import json
import re
import sys
import time
import urllib.parse

LABEL = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"')
SAMPLE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(\{[^}]*\})?\s+(\S+)(\s+\S+)?$')
# Series of dcgm-exporter's default counters file the fake adds when the capture lacks them.
ADDED_SERIES = ["DCGM_FI_DEV_XID_ERRORS"]


def read_capture(path):
    """The capture's metrics in order: name -> (help, type, labels of its one GPU, value)."""
    metrics = {}
    comments = {}
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            kind, name, text = line[2:6], *line[7:].split(" ", 1)
            comments.setdefault(name, {})[kind] = text
            continue
        match = SAMPLE.match(line)
        if not match or not match.group(1).startswith("DCGM_"):
            continue
        name, labels, value = match.group(1), match.group(2) or "{}", match.group(3)
        metrics[name] = (comments.get(name, {}).get("HELP"), comments.get(name, {}).get("TYPE"),
                         LABEL.findall(labels), value)
    if not metrics:
        sys.exit(f"fake_dcgm_exporter: no DCGM_ sample in {path}")
    return metrics


def read_counters(path):
    """dcgm-exporter's counters CSV, commented-out lines included: name -> (type, help)."""
    counters = {}
    for line in open(path, encoding="utf-8"):
        line = line.strip().lstrip("#").strip()
        parts = [part.strip() for part in line.split(",", 2)]
        if len(parts) == 3 and parts[0].startswith("DCGM_"):
            counters[parts[0]] = (parts[1], parts[2])
    return counters


def gpu_labels(labels, node, node_index, gpu):
    """The capture's labels for GPU `gpu` of `node`: identity labels rewritten, the rest kept."""
    rewritten = {
        "gpu": str(gpu),
        "UUID": f"GPU-{node_index:08x}-0000-4000-8000-{gpu:012x}",
        "pci_bus_id": f"00000000:{0x18 + 0x10 * gpu:02X}:00.0",
        "device": f"nvidia{gpu}",
        "Hostname": node,
    }
    return [(key, rewritten.get(key, value)) for key, value in labels]


class Fleet:
    def __init__(self, fleet, capture, counters):
        self.nodes = fleet["nodes"]
        self.gpus = int(fleet["gpus_per_node"])
        self.faults = fleet.get("faults", [])
        self.metrics = dict(capture)
        template = next(iter(capture.values()))[2]
        for name in ADDED_SERIES + list(fleet.get("added_counters", [])):
            if name in self.metrics:
                continue
            if name not in counters:
                sys.exit(f"fake_dcgm_exporter: added counter {name} is not in dcgm-exporter's counters file")
            kind, help_text = counters[name]
            self.metrics[name] = (help_text, kind, template, "0")
        for fault in self.faults:
            if fault["kind"] == "counter" and fault["metric"] not in self.metrics:
                sys.exit(f"fake_dcgm_exporter: fault counter {fault['metric']} is neither recorded nor added")
        self.started = time.monotonic()
        self.scrapes = {node: 0 for node in self.nodes}

    def active_faults(self, node):
        """Faults past their `after_s` seconds since start and, when given, their node's `after_scrapes` scrapes."""
        elapsed = time.monotonic() - self.started
        return [f for f in self.faults if f["node"] == node and elapsed >= float(f.get("after_s", 0))
                and self.scrapes[node] > int(f.get("after_scrapes", 0))]

    def value(self, name, gpu, faults, recorded):
        for fault in faults:
            if "gpu" in fault and int(fault["gpu"]) != gpu:
                continue
            kind = fault["kind"]
            if kind == "xid" and name == "DCGM_FI_DEV_XID_ERRORS":
                return str(fault["value"])
            if kind == "row-remap-failure" and name == "DCGM_FI_DEV_ROW_REMAP_FAILURE":
                return "1"
            if kind == "row-remap-failure" and name == "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS":
                return str(fault.get("value", 1))
            if kind == "power" and name == "DCGM_FI_DEV_POWER_USAGE":
                return f"{float(fault['watts']):.6f}"
            if kind == "pcie-replays" and name == "DCGM_FI_DEV_PCIE_REPLAY_COUNTER":
                since = time.monotonic() - self.started - float(fault.get("after_s", 0))
                return str(int(float(fault["per_minute"]) * max(since, 0) / 60))
            if kind == "counter" and name == fault["metric"]:
                since = time.monotonic() - self.started - float(fault.get("after_s", 0))
                return str(int(fault.get("value", 0)) + int(float(fault.get("per_minute", 0)) * max(since, 0) / 60))
        return recorded

    def scrape(self, node):
        index = self.nodes.index(node)
        faults = self.active_faults(node)
        lost = {int(f["gpu"]) for f in faults if f["kind"] == "gpu-lost"}
        lines = []
        for name, (help_text, kind, labels, recorded) in self.metrics.items():
            if help_text is not None:
                lines.append(f"# HELP {name} {help_text}")
            if kind is not None:
                lines.append(f"# TYPE {name} {kind}")
            for gpu in range(self.gpus):
                if gpu in lost:
                    continue
                text = ",".join(f'{key}="{value}"' for key, value in gpu_labels(labels, node, index, gpu))
                lines.append(f"{name}{{{text}}} {self.value(name, gpu, faults, recorded)}")
        return "\n".join(lines) + "\n"


def handler_for(fleet):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the http.server interface)
            url = urllib.parse.urlparse(self.path)
            node = urllib.parse.parse_qs(url.query).get("node", [""])[0]
            if url.path != "/metrics" or node not in fleet.nodes:
                self.send_error(404, "expected /metrics?node=NAME of a node of the fleet")
                return
            fleet.scrapes[node] += 1
            if any(f["kind"] == "unscraped" for f in fleet.active_faults(node)):
                self.send_error(503, "node's exporter is down (injected fault)")
                return
            body = fleet.scrape(node).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("fleet", help="the fleet's JSON: nodes, gpus_per_node, capture, counters, faults")
    parser.add_argument("--fixtures", required=True, help="the shared fixtures directory (../shared/fixtures)")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--check", metavar="NODE", help="print NODE's scrape once and exit (no server)")
    args = parser.parse_args()
    fleet_spec = json.load(open(args.fleet, encoding="utf-8"))
    capture = read_capture(f"{args.fixtures}/{fleet_spec['capture']}")
    counters = read_counters(f"{args.fixtures}/{fleet_spec['counters']}")
    fleet = Fleet(fleet_spec, capture, counters)
    if args.check:
        sys.stdout.write(fleet.scrape(args.check))
        return
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler_for(fleet))
    server.serve_forever()


if __name__ == "__main__":
    main()
