#!/usr/bin/env python3
"""Writes the recorded hosts of tests/data/vm/hosts/ (one directory per stack, in the
layout `teebench env --record DIR` writes: a sysroot of the files sys/env reads, plus
vm/ with QEMU's answers to teebench's probe and the firmware facts).

The facts of each stack and where each comes from are in tests/data/vm/hosts/README.md;
this script is only their single spelling, so the seven directories cannot drift apart.
Run it from the repository root after changing a fact; the e2e test vm_check.sh reads
the directories, never this script.
"""
import hashlib
import json
import os
import shutil
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "vm", "hosts")

# QEMU's user-creatable objects: Debian 12's QEMU 7.2 prints exactly these (the list
# of this development machine); later builds add iommufd (8.0) and the TEE objects.
BASE_OBJECTS = """authz-list authz-list-file authz-simple can-bus can-host-socketcan colo-compare
cryptodev-backend cryptodev-backend-builtin cryptodev-vhost-user dbus-vmstate filter-buffer
filter-dump filter-mirror filter-redirector filter-replay filter-rewriter input-barrier
input-linux iothread main-loop memory-backend-file memory-backend-memfd memory-backend-ram
pr-manager-helper qtest rng-builtin rng-egd rng-random secret secret_keyring sev-guest
thread-context throttle-group tls-cipher-suites tls-creds-anon tls-creds-psk tls-creds-x509
x-remote-object""".split()

# tdx-guest's properties as qom-list-properties lists them (instance properties of
# tdx_guest_init, target/i386/kvm/tdx.c; "type" is every object's).
TDX_UPSTREAM = ["type", "attributes", "sept-ve-disable", "mrconfigid", "mrowner", "mrownerconfig",
                "quote-generation-socket"]
TDX_CANONICAL = ["type", "sept-ve-disable", "mrconfigid", "mrowner", "mrownerconfig",
                 "quote-generation-socket"]
# sev-snp-guest (target/i386/sev.c, QEMU >= 9.1): class properties, then sev-common's
# instance properties cbitpos and reduced-phys-bits.
SNP_CLASS = [("sev-device", "string", "SEV device to use"),
             ("kernel-hashes", "bool", "add kernel hashes to guest firmware for measured Linux boot"),
             ("author-key-enabled", "bool", None), ("guest-visible-workarounds", "string", None),
             ("host-data", "string", None), ("id-auth", "string", None), ("id-block", "string", None),
             ("policy", "uint64", None), ("vcek-disabled", "bool", None)]
SNP_INSTANCE = [("cbitpos", "uint32"), ("reduced-phys-bits", "uint32")]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def help_text(type_, props):
    if not props:
        return "There are no options for %s.\n" % type_
    lines = []
    for name, t, desc in sorted(props):
        s = "  %s=<%s>" % (name, t)
        if desc:
            s = s.ljust(24) + " - " + desc
        lines.append(s)
    return "%s options:\n%s\n" % (type_, "\n".join(lines))


def qmp_text(version, package, tdx, snp):
    major, minor, micro = (int(x) for x in version.split("."))
    out = [json.dumps({"QMP": {"version": {"qemu": {"micro": micro, "minor": minor, "major": major},
                                           "package": package}, "capabilities": ["oob"]}}),
           json.dumps({"return": {}})]
    for id_, props in (("tdx-guest", tdx), ("sev-snp-guest", snp)):
        if props is None:
            out.append(json.dumps({"error": {"class": "GenericError",
                                             "desc": "Class '%s' not found" % id_}, "id": id_}))
        else:
            out.append(json.dumps({"return": props, "id": id_}))
    out.append(json.dumps({"timestamp": {"seconds": 1764547200, "microseconds": 0},
                           "event": "SHUTDOWN", "data": {"guest": False, "reason": "host-qmp-quit"}}))
    out.append(json.dumps({"return": {}}))
    return "\n".join(out) + "\n"


def tdx_props(names):
    types = {"type": "string", "attributes": "uint64", "sept-ve-disable": "bool",
             "mrconfigid": "string", "mrowner": "string", "mrownerconfig": "string",
             "quote-generation-socket": "SocketAddress"}
    return [{"name": n, "type": types[n]} for n in names]


def snp_props():
    out = [{"name": "type", "type": "string"}]
    for name, t, desc in SNP_CLASS:
        e = {"name": name, "type": t}
        if desc:
            e["description"] = desc
        out.append(e)
    out += [{"name": n, "type": t} for n, t in SNP_INSTANCE]
    return out


def fw(stack, path, size, tdx_sections, sev_descs, snp, sev_es=True):
    """The facts src/vm/firmware.c records for a file (sha256: of a label, not of a
    real file: the README says so)."""
    label = "reconstructed:%s:%s" % (stack, path)
    none = "no TDX metadata entry in the OVMF table"
    return {"path": path, "present": True, "size": size,
            "sha256": hashlib.sha256(label.encode()).hexdigest(), "ovmf_table": True,
            "tdx": {"ok": tdx_sections > 0, "sections": tdx_sections, "why": "" if tdx_sections else none},
            "sev": {"metadata": sev_descs > 0, "snp": snp, "descriptors": sev_descs,
                    "sev_es_reset_block": sev_es,
                    "why": "" if snp else "no SEV metadata entry in the OVMF table"}}


def absent(path):
    return {"path": path, "present": False, "why": "%s: No such file or directory" % path}


PLACES = ["/usr/share/ovmf/OVMF.fd", "/usr/share/ovmf/OVMF.amdsev.fd",
          "/usr/share/edk2/ovmf/OVMF.inteltdx.fd", "/usr/share/edk2/ovmf/OVMF.amdsev.fd",
          "/usr/share/edk2/ovmf/OVMF_CODE.fd"]


def firmware(stack, present):
    return [present.get(p) or absent(p) for p in PLACES]


INTEL_CPU = "Intel(R) Xeon(R) Platinum 8580"
AMD_CPU = "AMD EPYC 9654 96-Core Processor"


def cpuinfo(vendor, model, flags):
    entries = []
    for i in range(2):
        entries.append("processor\t: %d\nvendor_id\t: %s\nmodel name\t: %s\nphysical id\t: 0\n"
                       "core id\t\t: %d\nflags\t\t: %s\n" % (i, vendor, model, i, flags))
    return "\n".join(entries) + "\n"


def cpuid_lines(amd, cbitpos, host_rpb):
    if not amd:
        return ("0x00000000 0 0x00000020 0x00000000 0x00000000 0x00000000\n"
                "0x00000001 0 0x000806f8 0x00000800 0x7ffefbff 0xbfebfbff\n"
                "0x80000000 0 0x80000008 0x00000000 0x00000000 0x00000000\n")
    ebx = (host_rpb << 6) | cbitpos
    return ("0x00000000 0 0x00000010 0x00000000 0x00000000 0x00000000\n"
            "0x00000001 0 0x00a10f11 0x00000800 0x7ed8320b 0x178bfbff\n"
            "0x80000000 0 0x80000028 0x00000000 0x00000000 0x00000000\n"
            "0x8000001f 0 0x0101fd3f 0x%08x 0x000003ee 0x00000006\n" % ebx)


STACKS = {
    "ubuntu-24.04-canonical-tdx": dict(
        amd=False, release="6.8.0-1014-intel", vm_types=0x5, tdx="Y",
        qemu="/usr/bin/qemu-system-x86_64", how="qemu-system-x86_64 in PATH (Debian/Ubuntu/Fedora)",
        version="8.2.2", package="Debian 1:8.2.2+ds-0ubuntu1.4+tdx1.0",
        tdx_props=TDX_CANONICAL, snp=False, iommufd=True,
        firmware={"/usr/share/ovmf/OVMF.fd": ("ovmf", 4194304, 6, 5, True)}),
    "ubuntu-25.04-tdx": dict(
        amd=False, release="6.14.0-15-generic", vm_types=0x21, tdx="Y",
        qemu="/usr/bin/qemu-system-x86_64", how="qemu-system-x86_64 in PATH (Debian/Ubuntu/Fedora)",
        version="9.2.1", package="Debian 1:9.2.1+ds-1ubuntu5+tdx1.0",
        tdx_props=TDX_UPSTREAM, snp=True, iommufd=True,
        firmware={"/usr/share/ovmf/OVMF.fd": ("ovmf", 4194304, 6, 5, True),
                  "/usr/share/ovmf/OVMF.amdsev.fd": ("amdsev", 4194304, 0, 5, True)}),
    "ubuntu-25.10": dict(
        amd=False, release="6.17.0-5-generic", vm_types=0x21, tdx="Y",
        qemu="/usr/bin/qemu-system-x86_64", how="qemu-system-x86_64 in PATH (Debian/Ubuntu/Fedora)",
        version="10.1.0", package="Debian 1:10.1.0+ds-5ubuntu2",
        tdx_props=TDX_UPSTREAM, snp=True, iommufd=True,
        firmware={"/usr/share/ovmf/OVMF.fd": ("ovmf", 4194304, 6, 5, True),
                  "/usr/share/ovmf/OVMF.amdsev.fd": ("amdsev", 4194304, 0, 5, True)}),
    "centos-stream-10": dict(
        amd=False, release="6.12.0-124.el10.x86_64", vm_types=0x21, tdx="Y",
        qemu="/usr/libexec/qemu-kvm", how="/usr/libexec/qemu-kvm, CentOS/RHEL (qemu-kvm)",
        version="10.0.0", package="qemu-kvm-10.0.0-14.el10",
        tdx_props=TDX_UPSTREAM, snp=True, iommufd=True,
        firmware={"/usr/share/edk2/ovmf/OVMF.inteltdx.fd": ("inteltdx", 4194304, 6, 0, False),
                  "/usr/share/edk2/ovmf/OVMF.amdsev.fd": ("amdsev", 4194304, 0, 5, True),
                  "/usr/share/edk2/ovmf/OVMF_CODE.fd": ("code", 3653632, 0, 0, False)}),
    "ubuntu-25.04-snp": dict(
        amd=True, release="6.14.0-15-generic", vm_types=0x1d, snp_param="Y", dev_sev="read-write",
        cbitpos=51, host_rpb=5,
        qemu="/usr/bin/qemu-system-x86_64", how="qemu-system-x86_64 in PATH (Debian/Ubuntu/Fedora)",
        version="9.2.1", package="Debian 1:9.2.1+ds-1ubuntu5",
        tdx_props=None, snp=True, iommufd=True,
        firmware={"/usr/share/ovmf/OVMF.fd": ("ovmf", 4194304, 6, 5, True),
                  "/usr/share/ovmf/OVMF.amdsev.fd": ("amdsev", 4194304, 0, 5, True)}),
    "qemu-10.1-without-tdx": dict(
        amd=False, release="6.16.0", vm_types=0x21, tdx="Y",
        qemu="/usr/local/bin/qemu-system-x86_64", how="qemu-system-x86_64 in PATH (Debian/Ubuntu/Fedora)",
        version="10.1.0", package="v10.1.0",
        tdx_props=None, snp=True, iommufd=True,
        firmware={"/usr/share/ovmf/OVMF.fd": ("ovmf", 4194304, 6, 5, True)}),
}


def make(name, st):
    d = os.path.join(ROOT, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    amd = st["amd"]
    vendor = "AuthenticAMD" if amd else "GenuineIntel"
    flags = ("fpu sse2 lm svm sev sev_es sev_snp" if amd
             else "fpu sse2 lm vmx" + (" tdx_host_platform" if st.get("tdx") == "Y" else ""))
    write(os.path.join(d, "proc/cpuinfo"), cpuinfo(vendor, AMD_CPU if amd else INTEL_CPU, flags))
    write(os.path.join(d, "proc/meminfo"), "MemTotal:       527894576 kB\n")
    write(os.path.join(d, "cpuid"), cpuid_lines(amd, st.get("cbitpos", 0), st.get("host_rpb", 0)))
    if amd:
        for p, v in (("sev", "Y"), ("sev_es", "Y"), ("sev_snp", st.get("snp_param", "N"))):
            write(os.path.join(d, "sys/module/kvm_amd/parameters", p), v + "\n")
    else:
        write(os.path.join(d, "sys/module/kvm_intel/parameters/tdx"), st.get("tdx", "N") + "\n")
    write(os.path.join(d, "uname"), "release=%s\nversion=#1 SMP PREEMPT_DYNAMIC\nmachine=x86_64\n"
          "nodename=%s\n" % (st["release"], name))
    write(os.path.join(d, "cpus_online"), "2\n")
    write(os.path.join(d, "kvm"), "usable (API 12)\n")
    write(os.path.join(d, "kvm_vm_types"), "0x%x\n" % st["vm_types"])
    write(os.path.join(d, "dev_sev"), st.get("dev_sev", "absent") + "\n")
    vm = os.path.join(d, "vm")
    write(os.path.join(vm, "schema"), "teebench-vm-host 1\n")
    write(os.path.join(vm, "vhost_vsock"), "yes /dev/vhost-vsock\n")
    q = os.path.join(vm, "qemu")
    write(os.path.join(q, "path"), st["qemu"] + "\n")
    write(os.path.join(q, "how"), st["how"] + "\n")
    write(os.path.join(q, "sha256"),
          hashlib.sha256(("reconstructed:%s:%s" % (name, st["qemu"])).encode()).hexdigest() + "\n")
    write(os.path.join(q, "version.txt"),
          "QEMU emulator version %s (%s)\nCopyright (c) 2003-2025 Fabrice Bellard and the QEMU "
          "Project developers\n" % (st["version"], st["package"]))
    objs = list(BASE_OBJECTS)
    if st["iommufd"]:
        objs.append("iommufd")
    if st["tdx_props"] is not None:
        objs.append("tdx-guest")
    if st["snp"]:
        objs.append("sev-snp-guest")
    write(os.path.join(q, "object-help.txt"),
          "List of user creatable objects:\n" + "".join("  %s\n" % o for o in sorted(objs)))
    if st["tdx_props"] is not None:
        write(os.path.join(q, "tdx-guest-help.txt"), help_text("tdx-guest", []))
    if st["snp"]:
        write(os.path.join(q, "sev-snp-guest-help.txt"), help_text("sev-snp-guest", SNP_CLASS))
    write(os.path.join(q, "qmp.txt"),
          qmp_text(st["version"], st["package"],
                   tdx_props(st["tdx_props"]) if st["tdx_props"] is not None else None,
                   snp_props() if st["snp"] else None))
    present = {p: fw(name, p, size, t, s, snp, es)
               for p, (_, size, t, s, snp) in st["firmware"].items() for es in [s > 0]}
    write(os.path.join(vm, "firmware.json"), json.dumps(firmware(name, present), indent=2) + "\n")


def main():
    names = sys.argv[1:] or sorted(STACKS)
    for n in names:
        make(n, STACKS[n])
    print("wrote %s" % ", ".join(names))


if __name__ == "__main__":
    main()
