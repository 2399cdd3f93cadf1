#!/usr/bin/env python3
"""Writes synthetic teebench result files (schema "teebench-result" version 1, the
JSON form of src/record/record.h) for tests and benchmarks of `teebench report`.

    make_results.py DIR [--envs host,vm,tdx-guest] [--simulated tdx-guest]
                        [--extra-metrics N] [--samples N] [--seed S] [--boot]
                        [--vm-kinds none,regular,regular-swiotlb,tdx] [--io]

One file per environment, DIR/<n>.json (n = position), with the agreed metric names:
http.nginx.rps / .transfer / .latency.pNN / .latency_u.pNN, syscall.c1|cn.index,
probe.<name>.ns (with notes), attest.*, notary.<mode>.* -- every environment slower
than the one before it by a fixed factor, so ratios and verdicts are predictable.
--extra-metrics adds that many more metrics (http targets t0, t1, ... and vm.misc.*)
to reach a size (the speed benchmark uses 5 x 200). --boot adds a VM's boot: vm.boot.s
and its phases vm.boot.firmware|kernel|userspace|ssh.s (a phases family of the vm
workload's table), a TD's firmware and kernel slower. --vm-kinds gives each environment
(in --envs order) the extra.vm a VM teebench started carries: its kind, and swiotlb
forced for "regular-swiotlb" ("none": no extra.vm). --io adds I/O metrics (storage.libaio.*
and kv.plain.*) whose cost follows the kind -- VM 1, VM+bounce 1.3, TD 1.6 (IOPS divided,
latency multiplied: the bounce path explains 50 % of a TD's extra latency and 61.5 % of
its lost IOPS) -- and kv.plain.set.latency.p50 equal everywhere (no extra cost to split).
Deterministic for a seed.
"""
import argparse
import json
import os
import random
import uuid

PCTS = ["50", "90", "99", "99.9", "99.99", "99.999"]
PROBES = [
    ("cpuid", 45.0, 60.0, "CPUID leaf 0: a VM exit in a VM; a #VE and a TDX-module call in a TD"),
    ("rdtsc", 9.0, 1.0, "RDTSC: no exit when the TSC is virtualized in hardware"),
    ("clock_gettime", 22.0, 1.2, "clock_gettime: vDSO or system call, per clock source"),
    ("getpid", 60.0, 1.1, "one plain system call, for contrast"),
    ("page-4k", 250.0, 4.0, "first write to a fresh 4 KiB page: fault + accept in a TD"),
    ("pipe-pingpong", 4000.0, 3.0, "1-byte pipe round trip between two CPUs (IPIs)"),
]


def env_facts(label, i):
    platform = "tdx-guest" if "tdx" in label else ("vm" if i else "bare-metal")
    return {
        "schema": "teebench-env/1",
        "platform": {"value": platform, "source": "synthetic"},
        "hypervisor": {"value": "kvm" if i else "none", "source": "synthetic"},
        "tdx_module": {"value": "1.5.06.00.0744" if "tdx" in label else "none", "source": "synthetic"},
        "cpu_vendor": {"value": "GenuineIntel", "source": "synthetic"},
        "cpu_model": {"value": "Intel(R) Xeon(R) Platinum 8480+", "source": "synthetic"},
        "cpus": {"value": 8, "source": "synthetic"},
        "memory_bytes": {"value": 34359738368, "source": "synthetic"},
        "kernel_release": {"value": "6.8.0-%d-generic" % (40 + i), "source": "synthetic"},
        "kernel_cmdline": {"value": "ro quiet mitigations=auto", "source": "synthetic"},
        "clocksource": {"value": "tsc" if i == 0 else "kvm-clock", "source": "synthetic"},
        "vulnerabilities": {
            "value": {"meltdown": "Not affected", "spectre_v2": "Mitigation: Enhanced IBRS",
                      "spec_store_bypass": "Vulnerable" if i == 2 else "Mitigation: SSB disabled"},
            "source": "synthetic",
        },
    }


def samples(rng, center, n, cv=0.01):
    return [round(center * (1 + rng.gauss(0, cv)), 6) for _ in range(n)]


def metric(name, unit, better, workload, values, note=None, simulated=False):
    m = {"name": name, "unit": unit, "better": better, "workload": workload,
         "simulated": simulated, "samples": values}
    if note:
        m["note"] = note
    return m


BOOT_PHASES = [("firmware", 2.1, 1.6), ("kernel", 1.4, 2.4), ("userspace", 3.2, 1.1),
               ("ssh", 0.8, 1.05)]


IO_COST = {"none": 0.9, "regular": 1.0, "regular-swiotlb": 1.3, "tdx": 1.6, "snp": 1.6}


def io_metrics(kind, n, rng):
    c = IO_COST.get(kind, 1.0)
    ms = []
    for job, iops in (("lat-randread", 9000.0), ("iops-randwrite", 52000.0)):
        ms.append(metric("storage.libaio.%s.iops" % job, "IOPS", "higher", "storage",
                         samples(rng, iops / c, n, 0.005)))
        ms.append(metric("storage.libaio.%s.clat.p50" % job, "us", "lower", "storage",
                         samples(rng, 100.0 * c, n, 0.005)))
    ms.append(metric("kv.plain.get.rps", "req/s", "higher", "key-value",
                     samples(rng, 120000.0 / c, n, 0.005)))
    ms.append(metric("kv.plain.set.latency.p50", "ms", "lower", "key-value",
                     samples(random.Random(7), 0.25, n, 0.005)))  # the same in every env
    return ms


def record(label, i, simulated, extra, n, rng, boot=False, vm_kind="none", io=False):
    slow = [1.0, 1.18, 4.65, 1.4, 2.2][i % 5] * (1 + 0.07 * (i // 5))
    ms = []
    ms.append(metric("http.nginx.rps", "req/s", "higher", "http", samples(rng, 162588 / slow, n)))
    ms.append(metric("http.nginx.transfer", "B/s", "higher", "http",
                     samples(rng, 162588 / slow * 853, n)))
    for k, p in enumerate(PCTS):
        base = 0.35 * (1.9 ** k) * slow
        ms.append(metric("http.nginx.latency.p" + p, "ms", "lower", "http", samples(rng, base, n, 0.03)))
        ms.append(metric("http.nginx.latency_u.p" + p, "ms", "lower", "http",
                         samples(rng, base * 0.8, n, 0.03)))
    ms.append(metric("syscall.c1.index", "index", "higher", "syscall",
                     samples(rng, 13212.1 / (1 + (slow - 1) * 0.02), n)))
    ms.append(metric("syscall.cn.index", "index", "higher", "syscall",
                     samples(rng, 50120.0 / (1 + (slow - 1) * 0.02), n)))
    for name, ns, td, note in PROBES:
        f = 1.0 if i == 0 else (td if "tdx" in label else 1 + (td - 1) * 0.2)
        ms.append(metric("probe.%s.ns" % name, "ns", "lower", "probe", samples(rng, ns * f, n, 0.02),
                         note))
    sim = simulated
    ms.append(metric("attest.quote_get.ms", "ms", "lower", "attest", samples(rng, 4.2, n, 0.05),
                     simulated=sim))
    ms.append(metric("attest.verify_prepared.us", "us", "lower", "attest", samples(rng, 880, n, 0.02),
                     simulated=sim))
    ms.append(metric("attest.verify_scratch.ms", "ms", "lower", "attest", samples(rng, 3.1, n, 0.02),
                     simulated=sim))
    notary_n = 25
    base_not = samples(rng, 1091 * (1 + 0.05 * i), notary_n, 0.04)
    tee_not = [v + rng.gauss(278, 20) for v in base_not]
    ver = samples(rng, 326, notary_n, 0.08)
    ms.append(metric("notary.no_tee.notarization_ms", "ms", "lower", "notary", base_not))
    ms.append(metric("notary.tee_no_verify.notarization_ms", "ms", "lower", "notary", tee_not,
                     simulated=sim))
    ms.append(metric("notary.tee_verify.notarization_ms", "ms", "lower", "notary",
                     [v + rng.gauss(0, 15) for v in tee_not], simulated=sim))
    ms.append(metric("notary.tee_verify.verify_ms", "ms", "lower", "notary", ver, simulated=sim))
    ms.append(metric("notary.no_tee.total_e2e_ms", "ms", "lower", "notary", list(base_not)))
    ms.append(metric("notary.tee_verify.total_e2e_ms", "ms", "lower", "notary",
                     [a + b for a, b in zip(tee_not, ver)], simulated=sim))
    ms.append(metric("notary.tee_no_verify.overhead_ms", "ms", "lower", "notary",
                     [b - a for a, b in zip(base_not, tee_not)], simulated=sim))
    ms.append(metric("notary.tee_verify.overhead_ms", "ms", "lower", "notary",
                     [b + c - a for a, b, c in zip(base_not, tee_not, ver)], simulated=sim))
    if boot:
        whole = [0.0] * n
        for name, s, td in BOOT_PHASES:
            f = 1.0 if i == 0 else (td if "tdx" in label else 1 + (td - 1) * 0.2)
            v = samples(rng, s * f, n, 0.03)
            whole = [a + b for a, b in zip(whole, v)]
            ms.append(metric("vm.boot.%s.s" % name, "s", "lower", "vm", v))
        ms.append(metric("vm.boot.s", "s", "lower", "vm", [round(w + 0.05, 6) for w in whole]))
    if io:
        ms.extend(io_metrics(vm_kind, n, rng))
    # more metrics to reach a size: further http targets, then vm.misc.*
    t = 0
    while extra > 0:
        if extra >= 14:
            tgt = "t%d" % t
            t += 1
            ms.append(metric("http.%s.rps" % tgt, "req/s", "higher", "http", samples(rng, 9000 / slow, n)))
            ms.append(metric("http.%s.transfer" % tgt, "B/s", "higher", "http",
                             samples(rng, 9000 / slow * 4000, n)))
            for k, p in enumerate(PCTS):
                ms.append(metric("http.%s.latency.p%s" % (tgt, p), "ms", "lower", "http",
                                 samples(rng, 1.1 * (1.8 ** k) * slow, n, 0.03)))
            for k, p in enumerate(PCTS[:-2]):
                ms.append(metric("http.%s.latency_u.p%s" % (tgt, p), "ms", "lower", "http",
                                 samples(rng, 0.9 * (1.8 ** k) * slow, n, 0.03)))
            extra -= 12
        else:
            ms.append(metric("vm.misc.m%03d" % extra, "ms", "lower", "vm", samples(rng, 10 * slow, n)))
            extra -= 1
    return {
        "schema": "teebench-result", "schema_version": 1,
        "id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        "label": label, "status": "complete", "profile": "custom",
        "started": "2026-11-30T18:%02d:00Z" % (10 + i), "finished": "2026-11-30T18:%02d:30Z" % (10 + i),
        "teebench_version": "0.1.0", "simulated": simulated, "env": env_facts(label, i),
        "commands": ["teebench http -t4 -c100 -d30s --json http://127.0.0.1:8080/",
                     "teebench syscall --duration 10 --passes 10",
                     "teebench probe --json", "teebench bench notary --iterations 25"],
        "versions": {"nginx": "1.22.1", "openssl": "3.0.15", "kernel": "6.8.0-%d" % (40 + i)},
        "extra": dict({"source": "tests/tools/make_results.py"},
                      **({} if vm_kind == "none" else {"vm": {
                          "name": label, "kind": "tdx" if vm_kind == "tdx" else
                          "snp" if vm_kind == "snp" else "regular", "accel": "kvm",
                          "swiotlb": {"forced": vm_kind == "regular-swiotlb"}}})),
        "metrics": ms,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--envs", default="host,vm,tdx-guest")
    ap.add_argument("--simulated", default="")
    ap.add_argument("--extra-metrics", type=int, default=0)
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--boot", action="store_true")
    ap.add_argument("--vm-kinds", default="")
    ap.add_argument("--io", action="store_true")
    a = ap.parse_args()
    kinds = a.vm_kinds.split(",") if a.vm_kinds else []
    rng = random.Random(a.seed)
    os.makedirs(a.dir, exist_ok=True)
    sims = set(s for s in a.simulated.split(",") if s)
    for i, label in enumerate(a.envs.split(",")):
        kind = kinds[i] if i < len(kinds) else "none"
        doc = record(label, i, label in sims, a.extra_metrics, a.samples, rng, a.boot, kind, a.io)
        with open(os.path.join(a.dir, "%d.json" % i), "w") as f:
            json.dump(doc, f, indent=1)
        print(os.path.join(a.dir, "%d.json" % i))


if __name__ == "__main__":
    main()
