#!/usr/bin/env python3
"""Writes tests/prometheus/dcgm-fleet-gaps/: the recorded answers of a Prometheus whose dcgm-exporter series stop
or go missing part way through a range, for the reporting checks (validate --prometheus --range).

    python3 tests/prometheus/generate_gaps.py     # rewrites the *.http files beside this script

The range is 2026-11-26 06:00 to 12:00 UTC at 30 min steps (13 steps), five nodes of two GPUs, labelled as
dcgm-exporter ships them (gpu, UUID, pci_bus_id, device, modelName, Hostname, DCGM_FI_DRIVER_VERSION) plus
Prometheus's instance and job:

    dgx-01  clean; GPU 1's series changes its pod label at 09:30 (two series of one GPU, no gap)
    dgx-02  stops reporting after 10:00 (no sample 10:30-12:00: 4 steps)
    dgx-03  GPU 1 missing 08:00-09:30 (4 steps), reporting again from 10:00
    dgx-04  GPU 0 logs XID 79 at 08:30 and stops after 09:00 (no sample 09:30-12:00: 6 steps)
    dgx-05  missing 07:00-08:00 (3 steps); GPU 0 misses the one step 11:00 (within the default tolerance)

Written in the Prometheus HTTP API's documented JSON, not captured from a server: the instant query at 12:00
answers what is still reporting (a stale series is not returned), max_over_time(...) > 0 over the range answers
every GPU whose series was above 0 in it, and the range query the steps each GPU had a sample at.
"""
import json
import pathlib

END = 1795694400  # 2026-11-26T12:00:00Z
STEP = 1800
STEPS = 13
START = END - (STEPS - 1) * STEP
HOSTS = ["dgx-01", "dgx-02", "dgx-03", "dgx-04", "dgx-05"]


def at(hhmm):
    hours, minutes = map(int, hhmm.split(":"))
    return END - (12 * 3600 - hours * 3600 - minutes * 60)


def missing(host, gpu):
    """The steps (Unix seconds) at which the GPU has no sample."""
    def between(first, last):
        return {t for t in range(at(first), at(last) + 1, STEP)}
    gone = set()
    if host == "dgx-02":
        gone |= between("10:30", "12:00")
    if host == "dgx-03" and gpu == 1:
        gone |= between("08:00", "09:30")
    if host == "dgx-04" and gpu == 0:
        gone |= between("09:30", "12:00")
    if host == "dgx-05":
        gone |= between("07:00", "08:00")
        if gpu == 0:
            gone |= {at("11:00")}
    return gone


def labels(host, gpu, name=None, **extra):
    metric = {"DCGM_FI_DRIVER_VERSION": "550.54.15", "Hostname": host, "UUID": f"GPU-{host}-{gpu}",
              "device": f"nvidia{gpu}", "gpu": str(gpu), "instance": f"{host}:9400", "job": "dcgm-exporter",
              "modelName": "NVIDIA H100 80GB HBM3", "pci_bus_id": f"00000000:{0x18 + gpu:02X}:00.0"}
    if name:
        metric["__name__"] = name
    metric.update(extra)
    return dict(sorted(metric.items()))


def utilisation(host, gpu, t):
    return "0" if host == "dgx-05" else str(60 + 10 * gpu)


def xid(host, gpu, t):
    return 79 if host == "dgx-04" and gpu == 0 and t >= at("08:30") else 0


def vector(result):
    return {"status": "success", "data": {"resultType": "vector", "result": result}}


def write(directory, name, query, path, body):
    text = f"GET {path} {query}\n200 application/json\n\n{json.dumps(body, separators=(',', ':'))}\n"
    (directory / name).write_text(text)


def main():
    directory = pathlib.Path(__file__).resolve().parent / "dcgm-fleet-gaps"
    directory.mkdir(exist_ok=True)
    gpus = [(host, gpu) for host in HOSTS for gpu in (0, 1)]
    instant = []
    for host, gpu in gpus:
        if END in missing(host, gpu):
            continue
        for name, value in (("DCGM_FI_DEV_GPU_TEMP", "45"), ("DCGM_FI_DEV_POWER_USAGE", "300"),
                            ("DCGM_FI_DEV_GPU_UTIL", utilisation(host, gpu, END)),
                            ("DCGM_FI_DEV_XID_ERRORS", str(xid(host, gpu, END)))):
            instant.append({"metric": labels(host, gpu, name), "value": [END, value]})
    write(directory, "instant.http", "*", "/api/v1/query", vector(instant))

    worst = []
    for host, gpu in gpus:
        seen = [t for t in range(START, END + 1, STEP) if t not in missing(host, gpu)]
        highest = max(xid(host, gpu, t) for t in seen)
        if highest > 0:
            worst.append({"metric": labels(host, gpu), "value": [END, str(highest)]})
    write(directory, "range-xid.http", "max_over_time(DCGM_FI_DEV_XID_ERRORS[21600s]) > 0", "/api/v1/query",
          vector(worst))
    write(directory, "range-other-faults.http", "max_over_time(*", "/api/v1/query", vector([]))

    matrix = []
    for host, gpu in gpus:
        points = [[t, utilisation(host, gpu, t)] for t in range(START, END + 1, STEP) if t not in missing(host, gpu)]
        if host == "dgx-01" and gpu == 1:  # a pod's label until 09:00, none after
            matrix.append({"metric": labels(host, gpu, "DCGM_FI_DEV_GPU_UTIL", pod="train-1"),
                           "values": [p for p in points if p[0] <= at("09:00")]})
            points = [p for p in points if p[0] > at("09:00")]
        matrix.append({"metric": labels(host, gpu, "DCGM_FI_DEV_GPU_UTIL"), "values": points})
    matrix.sort(key=lambda series: json.dumps(series["metric"], sort_keys=True))
    write(directory, "range-utilization.http", "DCGM_FI_DEV_GPU_UTIL", "/api/v1/query_range",
          {"status": "success", "data": {"resultType": "matrix", "result": matrix}})


if __name__ == "__main__":
    main()
