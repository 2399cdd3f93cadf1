/* attest/common/provider_tsm: TDX quotes and SEV-SNP reports from Linux configfs-tsm (one code
 * path; only the expected provider differs: tdx_guest or sev_guest).
 *
 * Protocol (Documentation/ABI/testing/configfs-tsm): mkdir <root>/<entry>; check that
 * `provider` is tdx_guest (sev_guest); write 64 bytes to `inblob`; read `generation`, read
 * `outblob` (the quote), read `generation` again (a change means another writer
 * raced us: error); rmdir the entry. The entry name is unique per process and
 * call, and it is always removed, also on errors. */
#include "attest/tdx/tdx.h"
#include "attest/snp/snp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"

#define TSM_DEFAULT "/sys/kernel/config/tsm/report"

static int read_small(const char *dir, const char *name, char *out, size_t outlen, tb_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    tb_buf b = {0};
    if (tb_file_read(path, 4096, &b, err) < 0)
        return -1;
    size_t n = b.len < outlen - 1 ? b.len : outlen - 1;
    memcpy(out, b.p, n);
    out[n] = '\0';
    while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
        out[--n] = '\0';
    tb_buf_clear(&b);
    return 0;
}

static int write_blob(const char *dir, const uint8_t rd[64], tb_err *err)
{
    char path[4096];
    if (tb_path_join(path, sizeof path, dir, "inblob", err) < 0)
        return -1;
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return tb_errno(err, "%s", path);
    ssize_t w = write(fd, rd, 64);
    int saved = errno;
    close(fd);
    errno = saved;
    if (w != 64)
        return w < 0 ? tb_errno(err, "writing %s", path) : tb_errf(err, "short write to %s", path);
    return 0;
}

static int tsm_run(const char *entry, const char *want, const uint8_t rd[64], uint8_t **quote,
                   size_t *len, tb_err *err)
{
    char prov[128], g1[64], g2[64];
    if (read_small(entry, "provider", prov, sizeof prov, err) < 0)
        return tb_err_wrap(err, "configfs-tsm has no provider attribute");
    if (strcmp(prov, want))
        return tb_errf(err, "configfs-tsm provider is \"%s\", not %s: this is not a%s guest", prov,
                       want, strcmp(want, "tdx_guest") ? "n SEV-SNP" : " TDX");
    if (write_blob(entry, rd, err) < 0 || read_small(entry, "generation", g1, sizeof g1, err) < 0)
        return -1;
    char path[4096];
    if (tb_path_join(path, sizeof path, entry, "outblob", err) < 0)
        return -1;
    tb_buf b = {0};
    if (tb_file_read(path, 1 << 20, &b, err) < 0)
        return tb_err_wrap(err, "reading the quote");
    if (read_small(entry, "generation", g2, sizeof g2, err) < 0 || strcmp(g1, g2)) {
        tb_buf_clear(&b);
        return strcmp(g1, g2) ? tb_errf(err,
                                        "configfs-tsm generation changed from %s to %s "
                                        "while reading: another writer raced us",
                                        g1, g2)
                              : -1;
    }
    if (b.len == 0) {
        tb_buf_clear(&b);
        return tb_errf(err, "configfs-tsm returned an empty quote");
    }
    *quote = b.p; /* the buffer's memory is malloc'd: hand it over */
    *len = b.len;
    return 0;
}

static int tsm_get(const char *tsm_root, const char *want, const uint8_t rd[64], uint8_t **quote,
                   size_t *len, tb_err *err);

int tb_tdx_tsm_get_quote(const char *tsm_root, const uint8_t rd[64], uint8_t **quote, size_t *len,
                         tb_err *err)
{
    return tsm_get(tsm_root, "tdx_guest", rd, quote, len, err);
}

int tb_snp_tsm_report(const char *tsm_root, const uint8_t rd[64], uint8_t **report, size_t *len,
                      tb_err *err)
{
    return tsm_get(tsm_root, "sev_guest", rd, report, len, err);
}

static int tsm_get(const char *tsm_root, const char *want, const uint8_t rd[64], uint8_t **quote,
                   size_t *len, tb_err *err)
{
    *quote = NULL;
    *len = 0;
    const char *root = tsm_root ? tsm_root : TSM_DEFAULT;
    struct stat st;
    if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode))
        return tb_errf(err,
                       "no configfs-tsm at %s (not a %s guest, or configfs not mounted / "
                       "kernel without CONFIG_TSM_REPORTS); --provider %s gives a "
                       "simulated %s",
                       root, strcmp(want, "tdx_guest") ? "SEV-SNP" : "TDX",
                       strcmp(want, "tdx_guest") ? "sim-snp" : "sim",
                       strcmp(want, "tdx_guest") ? "report" : "quote");
    char entry[4096];
    snprintf(entry, sizeof entry, "%s/teebench-%ld-%llu", root, (long)getpid(),
             (unsigned long long)tb_mono_ns());
    if (mkdir(entry, 0700) < 0)
        return tb_errno(err, "cannot create configfs-tsm entry %s", entry);
    int rc = tsm_run(entry, want, rd, quote, len, err);
    if (rmdir(entry) < 0 && rc == 0) {
        free(*quote);
        *quote = NULL;
        *len = 0;
        return tb_errno(err, "cannot remove configfs-tsm entry %s", entry);
    }
    return rc;
}
