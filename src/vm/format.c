/* vm/format: a disk image's format from its content, the way QEMU's block drivers
 * probe it (each driver's bdrv_probe over the first 2048 bytes, BLOCK_PROBE_BUF_SIZE
 * in QEMU's block.c), never from its name: Ubuntu's cloud images are qcow2 files
 * named .img. The magics, from QEMU's block/<driver>.c probe functions:
 *   qcow2, qcow  "QFI\xfb", big-endian version 2 or 3 (qcow2_probe), 1 (qcow_probe)
 *   qed          "QED\0" (qed_probe)
 *   vmdk         "KDMV" or "COWD", or a text descriptor whose first line that is
 *                not a comment or blank is version=1|2|3 (vmdk_probe)
 *   vdi          signature 0xbeda107f, little-endian, at offset 64 (vdi_probe)
 *   vhdx         "vhdxfile" (vhdx_probe)
 *   vpc          "conectix" at offset 0 (vpc_probe; a fixed VHD has its footer at the
 *                end only and QEMU probes it as raw, so do we)
 *   parallels    "WithoutFreeSpace" or "WithouFreSpacExt", little-endian version 2
 *                at offset 16 (parallels_probe)
 *   bochs        "Bochs Virtual HD Image", type "Redolog", subtype "Growing",
 *                version 0x00020000 or 0x00010000 (bochs_probe)
 *   cloop        its shell-script header "#!/bin/sh\n#V2.0 Format\nmodprobe cloop
 *                file=$0 && mount -r -t iso9660 /dev/cloop $1\n" (cloop_probe)
 *   luks         "LUKS\xba\xbe" (qcrypto_block_luks_has_format): refused, as an
 *                encrypted qcow2 is: QEMU needs a key secret teebench does not have
 *   raw          anything else (QEMU's raw driver answers 1 to every probe)
 * dmg is left out: QEMU recognises it by its ".dmg" name. Pure except
 * tb_vm_image_probe, which reads the head of the file. */
#include "vm/vm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/bytes.h"

#define PROBE_BYTES 2048

/* "version=N" (N 1..3) as the first line that is neither a comment nor blank
   (lines of spaces only), as vmdk_probe reads a descriptor file. */
static int vmdk_descriptor(const uint8_t *b, size_t len)
{
    const char *p = (const char *)b, *end = p + len;
    while (p < end) {
        if (*p == '#') {
            while (p < end && *p != '\n')
                p++;
            p++;
            continue;
        }
        if (*p == ' ') {
            while (p < end && *p == ' ')
                p++;
            if (p < end && *p == '\r')
                p++;
            if (p == end || *p != '\n')
                return 0;
            p++;
            continue;
        }
        size_t left = (size_t)(end - p);
        if (left >= 10 && !memcmp(p, "version=", 8) && p[8] >= '1' && p[8] <= '3')
            return p[9] == '\n' || (p[9] == '\r' && left >= 11 && p[10] == '\n');
        return 0;
    }
    return 0;
}

static int has(const uint8_t *b, size_t len, size_t off, const char *magic, size_t n)
{
    return len >= off + n && !memcmp(b + off, magic, n);
}

const char *tb_vm_image_format(const uint8_t *b, size_t len, tb_err *err)
{
    if (has(b, len, 0, "QFI\xfb", 4) && len >= 8) {
        uint32_t v = tb_rd_be32(b + 4);
        if (v == 1)
            return "qcow";
        /* crypt_method (offset 32, big-endian): 1 AES, 2 LUKS */
        if (len >= 36 && tb_rd_be32(b + 32) != 0) {
            tb_errf(err, "an encrypted qcow2 image: QEMU needs its key secret, which teebench "
                         "does not pass (qemu-img convert -O qcow2 it to a plain image)");
            return NULL;
        }
        return "qcow2"; /* versions 2 and 3; QEMU itself says what a newer one lacks */
    }
    if (has(b, len, 0, "QED\0", 4))
        return "qed";
    if (has(b, len, 0, "KDMV", 4) || has(b, len, 0, "COWD", 4) || vmdk_descriptor(b, len))
        return "vmdk";
    if (len >= 68 && tb_rd_le32(b + 64) == 0xbeda107fu)
        return "vdi";
    if (has(b, len, 0, "vhdxfile", 8))
        return "vhdx";
    if (has(b, len, 0, "conectix", 8))
        return "vpc";
    if (len >= 64 &&
        (has(b, len, 0, "WithoutFreeSpace", 16) || has(b, len, 0, "WithouFreSpacExt", 16)) &&
        tb_rd_le32(b + 16) == 2)
        return "parallels";
    if (len >= 512 && has(b, len, 0, "Bochs Virtual HD Image", 23) &&
        has(b, len, 32, "Redolog", 8) && has(b, len, 48, "Growing", 8) &&
        (tb_rd_le32(b + 64) == 0x00020000u || tb_rd_le32(b + 64) == 0x00010000u))
        return "bochs";
    static const char cloop[] = "#!/bin/sh\n#V2.0 Format\n"
                                "modprobe cloop file=$0 && mount -r -t iso9660 /dev/cloop $1\n";
    if (has(b, len, 0, cloop, sizeof cloop - 1))
        return "cloop";
    if (has(b, len, 0, "LUKS\xba\xbe", 6)) {
        tb_errf(err, "a LUKS-encrypted image: QEMU needs its passphrase as a key secret, which "
                     "teebench does not pass (qemu-img convert it to a plain image)");
        return NULL;
    }
    return "raw";
}

int tb_vm_image_probe(const char *path, char *fmt, size_t len, tb_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tb_errno(err, "%s", path);
    struct stat sb;
    if (fstat(fd, &sb) < 0) {
        tb_errno(err, "%s", path);
        close(fd);
        return -1;
    }
    if (S_ISDIR(sb.st_mode)) {
        close(fd);
        return tb_errf(err, "%s: a directory, not a disk image", path);
    }
    uint8_t head[PROBE_BYTES];
    size_t got = 0;
    while (got < sizeof head) {
        ssize_t r = read(fd, head + got, sizeof head - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            tb_errno(err, "reading %s", path);
            close(fd);
            return -1;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (S_ISREG(sb.st_mode) && sb.st_size < 512)
        return tb_errf(err, "%s: %lld bytes, too small to be a disk image", path,
                       (long long)sb.st_size);
    const char *f = tb_vm_image_format(head, got, err);
    if (!f)
        return tb_err_wrap(err, "%s", path);
    snprintf(fmt, len, "%s", f);
    return 0;
}
