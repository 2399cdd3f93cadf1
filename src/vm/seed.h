/* vm/seed: the cloud-init NoCloud seed that gives a stock image the VM's SSH key
 * without touching the image -- the two documents (user-data, meta-data) and the
 * small disk that carries them, an ISO 9660 image written here byte by byte.
 *
 * Why ISO 9660 and written here: cloud-init's NoCloud datasource reads its seed
 * from a vfat or iso9660 filesystem labelled "cidata" or "CIDATA" (cloud-init
 * docs, datasources/nocloud), and QEMU builds without vvfat (RHEL's qemu-kvm)
 * cannot make one from a directory; no outside tool (genisoimage, mtools) is
 * needed on the host either. The image is what cloud-utils' cloud-localds makes
 * (`genisoimage -volid cidata -joliet -rock`):
 * - the primary tree has ISO 9660 level 1 names (USER_DAT.;1, d-characters only:
 *   '-' is not one), and Rock Ridge entries (SUSP SP and a CE continuation holding
 *   ER "RRIP_1991A" on the root's "." record; PX and NM on every record) giving
 *   the real names: Linux's isofs uses Rock Ridge whenever the root carries an ER
 *   entry (fs/isofs/rock.c sets s_rock = 1), and then shows the NM names
 *   (user-data, meta-data);
 * - a Joliet tree (supplementary descriptor, escape sequence %/E, UCS-2 names
 *   "user-data", without a version, as genisoimage writes them) for readers
 *   without Rock Ridge, Linux with -o norock among them.
 * Both trees point at the same file extents. The volume identifier is written as
 * given ("cidata", lowercase like cloud-localds: blkid reports it as the label,
 * and ds-identify and cloud-init accept either case).
 *
 * Everything here is pure: bytes in, bytes out; nothing is read or written. */
#ifndef TB_VM_SEED_H
#define TB_VM_SEED_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

#define TB_VM_SEED_LABEL "cidata"
#define TB_VM_SEED_MAX_FILES 8

/* One file of the image's root directory. name: 1..30 of [a-z0-9._-], not
   starting with '.'; its ISO 9660 level 1 name (8.3, upper case, '_' for the
   rest) must differ from every other file's. */
typedef struct tb_vm_seed_file {
    const char *name;
    const void *data;
    size_t len;
} tb_vm_seed_file;

/* Appends an ISO 9660 image (2048-byte sectors) with volume identifier volume
   (1..32 of [A-Za-z0-9_-]) and the n files (1..TB_VM_SEED_MAX_FILES, each below
   1 GiB) to out; every date is mtime (seconds since the epoch, UTC). 0, or -1
   with err (out unchanged in length then). */
int tb_vm_seed_iso(const char *volume, const tb_vm_seed_file *files, int n, int64_t mtime,
                   tb_buf *out, tb_err *err);

/* What the seed says. Strings are borrowed. */
typedef struct tb_vm_seed_cfg {
    const char *user;     /* the login user: "root", or one cloud-init creates */
    const char *pubkey;   /* the public key, one line of an OpenSSH .pub file */
    const char *hostname; /* the guest's local-hostname: [A-Za-z0-9-], 1..63 */
    const char *comment;  /* a line for the user-data's header comment, or NULL */
    /* NULL, or a kernel parameter the guest must boot with ("swiotlb=32768,force", of
       [A-Za-z0-9_.,=-]): a bootcmd that, when /proc/cmdline lacks it, adds it to the
       image's boot loader -- grubby (CentOS, RHEL, Fedora), else /etc/default/grub.d/ and
       update-grub (Debian, Ubuntu), else the options line of the systemd-boot entries on
       the ESP (`teebench vm image`'s) -- and reboots once. It leaves its state in
       TB_VM_SEED_PARAM_STATUS ("ok: ...", "rebooting: ...", "failed: ..."), and never
       reboots a second time. */
    const char *kernel_param;
} tb_vm_seed_cfg;
#define TB_VM_SEED_PARAM_STATUS "/var/lib/teebench-kernel-param.status"

/* user-data (#cloud-config): the key authorized for root (disable_root: false)
   or, for another user, that user created with the key, no password and sudo
   without one; with kernel_param, its bootcmd (above). Appended to out. */
int tb_vm_seed_user_data(const tb_vm_seed_cfg *c, tb_buf *out, tb_err *err);
/* meta-data: instance-id (teebench-<hostname>-<first 16 hex digits of the
   SHA-256 of user_data>: a seed with another key or user is a new instance, so
   cloud-init applies it again on an image that booted before) and
   local-hostname. Appended to out. */
int tb_vm_seed_meta_data(const tb_vm_seed_cfg *c, const tb_buf *user_data, tb_buf *out,
                         tb_err *err);
/* The whole seed: both documents in an ISO 9660 image labelled TB_VM_SEED_LABEL.
   Appended to out. */
int tb_vm_seed_image(const tb_vm_seed_cfg *c, int64_t mtime, tb_buf *out, tb_err *err);

/* The hostname for a VM name: [A-Za-z0-9-] kept, every other character '-',
   at most 63 characters, never starting or ending with '-' ("vm" when nothing is
   left). out needs 64 bytes. */
void tb_vm_seed_hostname(const char *vm_name, char *out, size_t len);

#endif
