/* vm/image: `teebench vm image` -- a guest disk built from a distribution's archive
 * with Debian's mmdebstrap, ready for `vm start` and `suite run --vm-kinds`:
 *
 *   mmdebstrap --mode=root --format=null --variant=apt --include=PACKAGES SUITE
 *     (the kernel, systemd, udev, dbus (systemd-logind then powers the guest off on
 *      ACPI's power button: vm stop's system_powerdown), cloud-init, openssh-server,
 *      nginx, systemd-boot's EFI binary, the network tool of the distribution; unless
 *      stock: teebench at /usr/local/bin and the libraries it links)
 *   its customize hook (a shell script written here) then makes, from the tree:
 *     - an EFI system partition (FAT, mkfs.vfat + mtools): systemd-boot as
 *       \EFI\BOOT\BOOTX64.EFI (the removable-media path OVMF and TDVF boot without
 *       NVRAM entries), the kernel, its initramfs and one loader entry
 *       (root=LABEL=teebench-root console=ttyS0);
 *     - the root filesystem (mkfs.ext4 -d: no loop device, no mount);
 *     - a GPT disk of both (sfdisk on a file, dd), converted to qcow2 (qemu-img).
 * The image has no password and, unless asked (authorized_key), no key: SSH
 * access comes from the cloud-init seed `vm start` attaches, as for any stock
 * cloud image. nginx is installed but its own service disabled: the suite starts
 * the nginx it measures with its own configuration.
 *
 * Needs root (mmdebstrap's root mode chroots, and mkfs.ext4 -d keeps the owners
 * of the files it copies) and network access to the archive. Nothing here prints;
 * the build's output goes to a log file in the work directory. */
#ifndef TB_VM_IMAGE_H
#define TB_VM_IMAGE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

#define TB_VM_IMAGE_DEFAULT_SUITE "bookworm"
#define TB_VM_IMAGE_DEFAULT_SIZE (4ull << 30)
#define TB_VM_IMAGE_LABEL "teebench-root"

/* What a suite name means. Static data. */
typedef struct tb_vm_distro {
    const char *suite;      /* "bookworm" */
    const char *name;       /* "Debian 12", "Ubuntu 24.04" */
    const char *vendor;     /* "debian" or "ubuntu" */
    const char *mirror;     /* the default archive */
    const char *keyring;    /* NULL: the host's apt keyrings (Debian on Debian) */
    const char *components; /* "main" */
    const char *kernel;     /* "linux-image-cloud-amd64" */
    const char *network;    /* "ifupdown" or "netplan.io" */
    int updates, security;  /* SUITE-updates, and SUITE-security (Debian: on MIRROR-security) */
    int merged_usr_hook;    /* mmdebstrap's merged-usr hook (bookworm: without it, usrmerge
                               and perl are pulled in) */
} tb_vm_distro;

/* The distribution of suite, or NULL. */
const tb_vm_distro *tb_vm_distro_find(const char *suite);
/* "bookworm, trixie, ..." for messages (static). */
const char *tb_vm_distro_names(void);

typedef struct tb_vm_image_recipe {
    const char *suite;          /* default TB_VM_IMAGE_DEFAULT_SUITE */
    const char *mirror;         /* NULL: the distribution's */
    const char *output;         /* the qcow2 file written (atomically) */
    const char *teebench;       /* this binary, put at /usr/local/bin/teebench; NULL: none */
    const char *authorized_key; /* a .pub file authorized for root in the image; NULL: none */
    const char *extra;          /* more packages, comma-separated, or NULL */
    int stock;                  /* as distributions ship cloud images: no teebench, no key,
                                   not the libraries teebench links */
    uint64_t size;              /* the disk; default TB_VM_IMAGE_DEFAULT_SIZE (sparse) */
    const char *apt_cache;      /* a directory of .deb files to reuse and fill (tests), or NULL */
} tb_vm_image_recipe;

/* Pure: the packages (comma-separated, into out). */
int tb_vm_image_packages(const tb_vm_image_recipe *r, const tb_vm_distro *d, tb_buf *out,
                         tb_err *err);
/* Pure: the customize hook's shell script for work directory workdir. */
int tb_vm_image_script(const tb_vm_image_recipe *r, const char *workdir, tb_buf *out, tb_err *err);
/* Pure: mmdebstrap's argv (NULL-terminated, malloc'd; free with tb_vm_argv_free)
   running the hook at hook_path. */
char **tb_vm_image_argv(const tb_vm_image_recipe *r, const char *hook_path, tb_err *err);

/* The default image of a suite: $XDG_DATA_HOME/teebench/images/<suite>.qcow2 (else
   ~/.local/share/...), "-stock" before the suffix for a stock one. */
int tb_vm_image_default_path(const char *suite, int stock, char *out, size_t len, tb_err *err);

/* What a build needs of the host, checked without starting it: root, the tools
   (named with their Debian packages), Ubuntu's keyring, the files the recipe
   names. 0, or -1 with err. */
int tb_vm_image_check(const tb_vm_image_recipe *r, tb_err *err);

/* Builds r->output: checks root and the host tools (tb_vm_image_check),
   makes a private work directory beside the output, runs mmdebstrap (its output in
   workdir/build.log, *log_path set to it), and renames the qcow2 into place. The
   work directory is removed on success; on failure only build.log stays, and err
   ends with its last line. *stop set: mmdebstrap is killed, "interrupted". */
int tb_vm_image_build(const tb_vm_image_recipe *r, const volatile sig_atomic_t *stop,
                      char *log_path, size_t log_len, tb_err *err);

#endif
