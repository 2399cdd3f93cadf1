/* vm/firmware: what an OVMF file can boot -- a TD (it carries TDVF metadata), an
 * SEV-SNP guest (SEV metadata with the SNP secrets and CPUID pages), or only a
 * regular VM -- read from the file itself, never from its name; and where the
 * distributions put OVMF.
 *
 * The parser reads OVMF's GUIDed table the way QEMU does (hw/i386/pc_sysfw_ovmf.c,
 * hw/i386/tdvf.c, target/i386/sev.c): the table's footer GUID
 * 96b582de-1fb2-45f7-baea-a366c55a082d sits 48 bytes before the end of the file,
 * after a 2-byte length of the whole table; the entries run backwards from there,
 * each "data, 2-byte length of the entry, 16-byte GUID". Two entries hold an offset
 * from the end of the file to a metadata block:
 *   e47a6535-984a-4798-865e-4685a7bf8ec2  TDVF metadata: "TDVF", length, version 1,
 *       section count (>= 2), then sections of 32 bytes (data offset, raw size,
 *       memory address, memory size, type, attributes); QEMU refuses a TD without it;
 *   dc886566-984a-4798-a75e-5585a7bf67cc  SEV metadata: "ASEV", length, version,
 *       descriptor count, then descriptors of 12 bytes (base, length, type: 1 SNP
 *       secure memory, 2 SNP secrets, 3 CPUID, 0x10 kernel hashes).
 * Invariants: the parser is a pure function of the bytes (it never reads past
 * them, whatever the lengths and offsets in them say: the bytes are untrusted,
 * fuzz/fuzz_ovmf.c); a file is "for TDX" only when its TDVF metadata passes the
 * checks QEMU makes, "for SNP" only when its SEV metadata has both a secrets and a
 * CPUID page. Nothing here prints. */
#ifndef TB_VM_FIRMWARE_H
#define TB_VM_FIRMWARE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define TB_VM_FW_PATH_MAX 1024

typedef struct tb_vm_fw {
    char path[TB_VM_FW_PATH_MAX];
    int present;     /* the file was read */
    char why[300];   /* why it was not read (present 0) */
    uint64_t size;   /* bytes */
    char sha256[65]; /* hex, "" when not read */
    int ovmf;        /* the GUIDed table's footer is there */
    int tdx;         /* TDVF metadata as QEMU accepts it */
    int tdx_sections;
    char tdx_why[200]; /* what the TDVF metadata lacks (tdx 0) */
    int sev;           /* "ASEV" metadata found */
    int snp;           /* ... with an SNP secrets page and a CPUID page */
    int sev_descs;
    char snp_why[200]; /* what it lacks for SNP (snp 0) */
    int sev_es;        /* the SEV-ES reset block GUID 00f771de-... is listed */
} tb_vm_fw;

/* Pure: fills out's table and metadata fields from the whole file's bytes (p, n);
   path/present/size/sha256 are the caller's. Never fails: what is not there is 0,
   with the reason in tdx_why / snp_why. */
void tb_vm_fw_parse(const uint8_t *p, size_t n, tb_vm_fw *out);

/* Reads path (at most 64 MiB), hashes it (SHA-256) and parses it into out. A file
   that cannot be read is present 0 with why (errno's text); never fails hard. */
void tb_vm_fw_read(const char *path, tb_vm_fw *out);

/* One line: "TDVF metadata (6 sections), SEV metadata with SNP pages (5 descriptors)"
   or what it lacks. */
void tb_vm_fw_describe(const tb_vm_fw *f, char *out, size_t len);

/* The facts as JSON (new reference) and back (strict: wrong types fail). */
json_t *tb_vm_fw_json(const tb_vm_fw *f);
int tb_vm_fw_from_json(const json_t *j, tb_vm_fw *f, tb_err *err);

/* Where distributions install OVMF, in the order auto-selection tries them. */
typedef struct tb_vm_fw_place {
    const char *path;
    const char *who; /* "Debian/Ubuntu (ovmf)", "CentOS/RHEL/Fedora (edk2-ovmf)" */
} tb_vm_fw_place;
/* The places, NULL-path terminated. */
extern const tb_vm_fw_place tb_vm_fw_places[];

/* SHA-256 of a file in hex (65 bytes); 0 or -1 with err. Streams, any size. */
int tb_vm_file_sha256(const char *path, char out[65], tb_err *err);

#endif
