/* vm/qemu: what one QEMU build says it can do -- asked, never inferred from its
 * version number.
 *
 * A probe runs the binary four ways and keeps each answer as a file (so a
 * recording of another host reads back through the same parsers):
 *   version.txt            QEMU --version (its first line appears in messages only)
 *   object-help.txt        QEMU -object help: the user-creatable object types; a build
 *                          with TDX lists tdx-guest, one with SEV-SNP sev-snp-guest
 *   tdx-guest-help.txt     QEMU -object tdx-guest,help (only when listed): the type's
 *   sev-snp-guest-help.txt QEMU -object sev-snp-guest,help   class properties
 *   qmp.txt                QMP over stdio of QEMU -machine none: qom-list-properties
 *                          of tdx-guest and sev-snp-guest. QEMU's ",help" prints class
 *                          properties only (qom/object_interfaces.c,
 *                          type_print_class_properties), and tdx-guest's properties
 *                          (sept-ve-disable, quote-generation-socket, ...) and
 *                          sev-snp-guest's cbitpos and reduced-phys-bits are instance
 *                          properties, added in instance_init: qom-list-properties
 *                          instantiates the type and lists them all.
 *   path, how              the binary and how it was chosen
 * The parsers are pure functions of that text (fuzz/fuzz_vm_qemu.c). Property name
 * lists are kept as " a b c " (space on both ends), for tb_vm_qemu_has_prop.
 * The caller ignores SIGPIPE (main() does): QMP commands go down a pipe. */
#ifndef TB_VM_QEMU_H
#define TB_VM_QEMU_H

#include <stddef.h>

#include "base/err.h"

#define TB_VM_QEMU_NAMES_MAX 1024

typedef struct tb_vm_qemu {
    char path[1024];         /* the binary */
    char how[200];           /* how it was chosen: "--qemu", "PATH", a distribution's place */
    int found;               /* it ran and answered --version */
    char why[300];           /* why it was not (found 0) */
    char version[200];       /* the first line of --version, for messages only */
    int major, minor, micro; /* from that line (0 when absent): messages, records */
    char sha256[65];         /* of the binary, "" when unread */
    int objects;             /* -object help was understood */
    int tdx_guest, sev_snp_guest, sev_guest, backend_ram, backend_memfd; /* listed types */
    /* Properties of tdx-guest / sev-snp-guest: 1 known (from QMP), 0 unknown. */
    int tdx_props_known, snp_props_known;
    char tdx_props[TB_VM_QEMU_NAMES_MAX], snp_props[TB_VM_QEMU_NAMES_MAX];
    char tdx_help[TB_VM_QEMU_NAMES_MAX], snp_help[TB_VM_QEMU_NAMES_MAX]; /* ",help" */
    char props_why[300]; /* why the QMP list is unknown */
} tb_vm_qemu;

/* "QEMU emulator version 7.2.22 (Debian ...)" -> 7, 2, 22. -1 when not found. */
int tb_vm_parse_qemu_version(const char *text, int *major, int *minor, int *micro);

/* -object help text into q's listed types (objects = 1). -1 when the text is not that
   list (no "List of user creatable objects:" line). Pure. */
int tb_vm_qemu_parse_objects(const char *text, tb_vm_qemu *q);

/* "-object TYPE,help" text: the property names into names (" a b "), "" for "There
   are no options for TYPE.". -1 when it is neither. Pure. */
int tb_vm_qemu_parse_help(const char *text, const char *type, char *names, size_t len);

/* A QMP transcript (one JSON message a line): the reply whose "id" is id, a
   qom-list-properties return, into names. 1: listed; 0: QEMU answered with an error
   (its desc in why, e.g. "Class 'tdx-guest' not found"); -1: no reply with that id
   (why says so). Pure. */
int tb_vm_qemu_parse_qmp(const char *text, const char *id, char *names, size_t len, char *why,
                         size_t why_len);

/* 1 when names (" a b ") holds prop. */
int tb_vm_qemu_has_prop(const char *names, const char *prop);

/* The binary to run: given (a path, or a name looked up in PATH), else the first of
   qemu-system-x86_64 in PATH, /usr/libexec/qemu-kvm (CentOS/RHEL), /usr/bin/qemu-kvm.
   0 with path and how, or -1 (path holds what was tried, how why). */
int tb_vm_qemu_find(const char *given, char *path, size_t path_len, char *how, size_t how_len);

/* Runs the probe of bin into dir (created; the files above). -1 with err only when
   dir cannot be written; a QEMU that fails leaves its answers (or none) behind. */
int tb_vm_qemu_run_probe(const char *bin, const char *how, const char *dir, tb_err *err);

/* Reads a probe directory (live or recorded) into q. Never fails hard: what is not
   there is unknown. */
void tb_vm_qemu_read_probe(const char *dir, tb_vm_qemu *q);

/* Finds (given, see tb_vm_qemu_find), probes in a fresh directory under tmpdir,
   reads the answers and removes the directory. Never fails hard. */
void tb_vm_qemu_probe(const char *given, const char *tmpdir, tb_vm_qemu *q);

/* QEMU's stderr after a failed start (qemu.log) as one line for the user: its first
   error, or -- for the errors a TEE start meets -- what happened and what to do:
   SEV-SNP's CPUID validation ("--cpu"), a KVM that refuses the VM type, a missing
   /dev/sev. Pure. */
void tb_vm_qemu_error_line(const char *log, char *out, size_t len);

#endif
