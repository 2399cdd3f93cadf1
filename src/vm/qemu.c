/* vm/qemu: see qemu.h. The probe's commands and their files are listed once
 * (probe_cmds) and used by both the runner and the reader. */
#include "vm/qemu.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/proc.h"
#include "vm/firmware.h"

#define PROBE_TIMEOUT_MS 15000
#define QMP_IN                                                                                     \
    "{\"execute\":\"qmp_capabilities\"}\n"                                                         \
    "{\"execute\":\"qom-list-properties\",\"arguments\":{\"typename\":\"tdx-guest\"},"             \
    "\"id\":\"tdx-guest\"}\n"                                                                      \
    "{\"execute\":\"qom-list-properties\",\"arguments\":{\"typename\":\"sev-snp-guest\"},"         \
    "\"id\":\"sev-snp-guest\"}\n"                                                                  \
    "{\"execute\":\"quit\"}\n"

int tb_vm_parse_qemu_version(const char *text, int *major, int *minor, int *micro)
{
    const char *p = text ? strstr(text, "version ") : NULL;
    if (!p)
        return -1;
    int a, b, c = 0;
    if (sscanf(p + 8, "%d.%d.%d", &a, &b, &c) < 2 || a < 0 || b < 0 || c < 0 || a > 1000)
        return -1;
    *major = a;
    *minor = b;
    *micro = c;
    return 0;
}

/* Appends " name" to a " a b " list (keeps the trailing space); silently stops when
   full (a build with more than ~1 KiB of names is not one this tool knows). */
static void names_add(char *names, size_t len, const char *name, size_t n)
{
    size_t used = strlen(names);
    if (used == 0 && len > 1) {
        names[0] = ' ';
        names[1] = 0;
        used = 1;
    }
    if (n == 0 || used + n + 2 > len)
        return;
    memcpy(names + used, name, n);
    names[used + n] = ' ';
    names[used + n + 1] = 0;
}

int tb_vm_qemu_has_prop(const char *names, const char *prop)
{
    size_t n = strlen(prop);
    for (const char *p = names; p && (p = strstr(p, prop)) != NULL; p += n)
        if (p > names && p[-1] == ' ' && p[n] == ' ')
            return 1;
    return 0;
}

/* The next line of text: [*p, *p + n), advancing *p past its newline. 0 at the end. */
static int next_line(const char **p, const char **line, size_t *n)
{
    if (!**p)
        return 0;
    *line = *p;
    *n = strcspn(*p, "\n");
    *p += *n + ((*p)[*n] == '\n');
    return 1;
}

static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t' || **s == '\r'))
        (*s)++, (*n)--;
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r'))
        (*n)--;
}

static int word_is(const char *s, size_t n, const char *w)
{
    return n == strlen(w) && !memcmp(s, w, n);
}

int tb_vm_qemu_parse_objects(const char *text, tb_vm_qemu *q)
{
    q->objects = q->tdx_guest = q->sev_snp_guest = q->sev_guest = 0;
    q->backend_ram = q->backend_memfd = 0;
    const char *p = text ? text : "", *l;
    size_t n;
    int in_list = 0;
    while (next_line(&p, &l, &n)) {
        if (!in_list) {
            in_list = n >= 30 && !memcmp(l, "List of user creatable objects:", 31);
            continue;
        }
        trim(&l, &n);
        q->tdx_guest |= word_is(l, n, "tdx-guest");
        q->sev_snp_guest |= word_is(l, n, "sev-snp-guest");
        q->sev_guest |= word_is(l, n, "sev-guest");
        q->backend_ram |= word_is(l, n, "memory-backend-ram");
        q->backend_memfd |= word_is(l, n, "memory-backend-memfd");
    }
    q->objects = in_list;
    return in_list ? 0 : -1;
}

int tb_vm_qemu_parse_help(const char *text, const char *type, char *names, size_t len)
{
    names[0] = 0;
    char head[160], none[200];
    snprintf(head, sizeof head, "%s options:", type);
    snprintf(none, sizeof none, "There are no options for %s.", type);
    const char *p = text ? text : "", *l;
    size_t n;
    int in_list = 0;
    while (next_line(&p, &l, &n)) {
        trim(&l, &n);
        if (!in_list) {
            if (word_is(l, n, none)) {
                names_add(names, len, "", 0);
                return 0;
            }
            in_list = word_is(l, n, head);
            continue;
        }
        size_t k = 0; /* "name=<type>  - description" */
        while (k < n && l[k] != '=' && l[k] != ' ')
            k++;
        if (k < n && l[k] == '=')
            names_add(names, len, l, k);
    }
    if (in_list && !names[0])
        names_add(names, len, "", 0);
    return in_list ? 0 : -1;
}

int tb_vm_qemu_parse_qmp(const char *text, const char *id, char *names, size_t len, char *why,
                         size_t why_len)
{
    names[0] = 0;
    snprintf(why, why_len, "QEMU gave no answer to qom-list-properties %s", id);
    const char *p = text ? text : "", *l;
    size_t n;
    while (next_line(&p, &l, &n)) {
        json_error_t je;
        json_t *m = json_loadb(l, n, 0, &je);
        const char *mid = json_string_value(json_object_get(m, "id"));
        if (!mid || strcmp(mid, id)) {
            json_decref(m);
            continue;
        }
        const json_t *ret = json_object_get(m, "return");
        const json_t *err = json_object_get(m, "error");
        int rc = -1;
        if (json_is_array(ret)) {
            names_add(names, len, "", 0);
            size_t i;
            const json_t *e;
            json_array_foreach(ret, i, e)
            {
                const char *name = json_string_value(json_object_get(e, "name"));
                if (name && !strchr(name, ' ') && strcmp(name, "type"))
                    names_add(names, len, name, strlen(name));
            }
            why[0] = 0;
            rc = 1;
        } else if (json_is_object(err)) {
            const char *desc = json_string_value(json_object_get(err, "desc"));
            snprintf(why, why_len, "%.250s", desc ? desc : "an error without a description");
            rc = 0;
        } else {
            snprintf(why, why_len,
                     "the reply to qom-list-properties %s is neither a list nor "
                     "an error",
                     id);
        }
        json_decref(m);
        return rc;
    }
    return -1;
}

static int on_path(const char *name, char *out, size_t len)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        if (n && (size_t)snprintf(out, len, "%.*s/%s", (int)n, path, name) < len &&
            access(out, X_OK) == 0)
            return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

int tb_vm_qemu_find(const char *given, char *path, size_t path_len, char *how, size_t how_len)
{
    if (given) {
        if (strchr(given, '/')) {
            snprintf(path, path_len, "%s", given);
            snprintf(how, how_len, "--qemu");
            if (access(given, X_OK) == 0)
                return 0;
            snprintf(how, how_len, "--qemu %.150s: %s", given, strerror(errno));
            return -1;
        }
        if (on_path(given, path, path_len)) {
            snprintf(how, how_len, "--qemu %.100s, found in PATH", given);
            return 0;
        }
        snprintf(path, path_len, "%s", given);
        snprintf(how, how_len, "--qemu %.150s: not found in PATH", given);
        return -1;
    }
    if (on_path("qemu-system-x86_64", path, path_len)) {
        snprintf(how, how_len, "qemu-system-x86_64 in PATH (Debian/Ubuntu/Fedora)");
        return 0;
    }
    static const struct {
        const char *path, *who;
    } places[] = {{"/usr/libexec/qemu-kvm", "CentOS/RHEL (qemu-kvm)"},
                  {"/usr/bin/qemu-kvm", "qemu-kvm"}};
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++)
        if (access(places[i].path, X_OK) == 0) {
            snprintf(path, path_len, "%s", places[i].path);
            snprintf(how, how_len, "%s, %s", places[i].path, places[i].who);
            return 0;
        }
    snprintf(path, path_len, "qemu-system-x86_64");
    snprintf(how, how_len,
             "no qemu-system-x86_64 in PATH, no /usr/libexec/qemu-kvm (install Debian's "
             "qemu-system-x86, or --qemu BIN)");
    return -1;
}

static int dir_file(const char *dir, const char *name, char *out, size_t len, tb_err *err)
{
    return tb_path_join(out, len, dir, name, err);
}

static int write_text(const char *dir, const char *name, const char *text, tb_err *err)
{
    char p[PATH_MAX];
    if (dir_file(dir, name, p, sizeof p, err) < 0)
        return -1;
    return tb_file_write_atomic(p, text, strlen(text), err);
}

/* Runs argv with stdout to dir/out (stderr to dir/out.err); stdin from text when not
   NULL. 0 when it ran (any exit code, kept in *code), -1 with why. */
static int run_to(char *const *argv, const char *dir, const char *out, const char *in, int *code,
                  char *why, size_t why_len)
{
    char op[PATH_MAX], ep[PATH_MAX];
    tb_err e;
    if (dir_file(dir, out, op, sizeof op, &e) < 0) {
        snprintf(why, why_len, "%.250s", e.msg);
        return -1;
    }
    if ((size_t)snprintf(ep, sizeof ep, "%s.err", op) >= sizeof ep) {
        snprintf(why, why_len, "%.250s.err: path too long", op);
        return -1;
    }
    tb_proc_opts o = {
        .argv = argv, .stdout_path = op, .stderr_path = ep, .pipes = in ? TB_PROC_PIPE_IN : 0};
    tb_proc p;
    if (tb_proc_spawn(&o, &p, &e) < 0) {
        snprintf(why, why_len, "%.290s", e.msg);
        return -1;
    }
    if (in) {
        size_t n = strlen(in), off = 0;
        while (off < n) {
            ssize_t w = write(p.in, in + off, n - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                break; /* QEMU is gone: its answers say why */
            off += (size_t)w;
        }
    }
    tb_proc_close_pipes(&p);
    int st = tb_proc_wait(&p, PROBE_TIMEOUT_MS, NULL, &e);
    if (st != TB_PROC_EXITED) {
        tb_proc_kill(&p);
        snprintf(why, why_len, "%s %s did not finish within %d s", argv[0], argv[1],
                 PROBE_TIMEOUT_MS / 1000);
        *code = TB_PROC_TIMEOUT_CODE;
        return 0;
    }
    *code = p.code;
    return 0;
}

int tb_vm_qemu_run_probe(const char *bin, const char *how, const char *dir, tb_err *err)
{
    if (tb_mkdirs(dir, err) < 0)
        return -1;
    char line[1400];
    snprintf(line, sizeof line, "%s\n", bin);
    if (write_text(dir, "path", line, err) < 0)
        return -1;
    snprintf(line, sizeof line, "%s\n", how ? how : "");
    if (write_text(dir, "how", line, err) < 0)
        return -1;
    char why[300] = "", *b = (char *)bin;
    int code = 0;
    char *version[] = {b, "--version", NULL};
    if (run_to(version, dir, "version.txt", NULL, &code, why, sizeof why) < 0 || code != 0) {
        char msg[400];
        if (!why[0])
            snprintf(why, sizeof why, "%.200s --version exited with %d", bin, code);
        snprintf(msg, sizeof msg, "%s\n", why);
        return write_text(dir, "why", msg, err);
    }
    char sum[65];
    tb_err se;
    if (tb_vm_file_sha256(bin, sum, &se) == 0) {
        snprintf(line, sizeof line, "%s\n", sum);
        if (write_text(dir, "sha256", line, err) < 0)
            return -1;
    }
    char *objects[] = {b, "-object", "help", NULL};
    run_to(objects, dir, "object-help.txt", NULL, &code, why, sizeof why);
    tb_vm_qemu q;
    memset(&q, 0, sizeof q);
    char p[PATH_MAX];
    tb_buf t = {0};
    tb_err e;
    if (dir_file(dir, "object-help.txt", p, sizeof p, &e) == 0 &&
        tb_file_read(p, 1 << 20, &t, &e) == 0)
        tb_vm_qemu_parse_objects(t.p ? (const char *)t.p : "", &q);
    tb_buf_clear(&t);
    if (q.tdx_guest) {
        char *h[] = {b, "-object", "tdx-guest,help", NULL};
        run_to(h, dir, "tdx-guest-help.txt", NULL, &code, why, sizeof why);
    }
    if (q.sev_snp_guest) {
        char *h[] = {b, "-object", "sev-snp-guest,help", NULL};
        run_to(h, dir, "sev-snp-guest-help.txt", NULL, &code, why, sizeof why);
    }
    if (q.tdx_guest || q.sev_snp_guest) {
        char *qmp[] = {b,          "-machine", "none", "-nodefaults", "-no-user-config",
                       "-display", "none",     "-qmp", "stdio",       NULL};
        run_to(qmp, dir, "qmp.txt", QMP_IN, &code, why, sizeof why);
    }
    return 0;
}

/* dir/name into out (NUL-terminated, "" when absent). */
static void read_file_text(const char *dir, const char *name, tb_buf *out)
{
    char p[PATH_MAX];
    tb_err e;
    tb_buf_clear(out);
    if (dir_file(dir, name, p, sizeof p, &e) < 0 || tb_file_read(p, 1 << 20, out, &e) < 0)
        tb_buf_clear(out);
}

static void first_line_of(const tb_buf *b, char *out, size_t len)
{
    const char *s = b->p ? (const char *)b->p : "";
    size_t n = strcspn(s, "\n");
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), s);
}

static void read_props(const char *dir, const char *type, const char *qmp, char *names, size_t len,
                       int *known, char *help, size_t help_len, char *why, size_t why_len)
{
    char file[64], w[300];
    tb_buf t = {0};
    snprintf(file, sizeof file, "%s-help.txt", type);
    read_file_text(dir, file, &t);
    if (tb_vm_qemu_parse_help(t.p ? (const char *)t.p : "", type, help, help_len) < 0)
        help[0] = 0;
    tb_buf_clear(&t);
    *known = tb_vm_qemu_parse_qmp(qmp, type, names, len, w, sizeof w) == 1;
    if (!*known && !why[0])
        snprintf(why, why_len, "%s", w);
}

void tb_vm_qemu_read_probe(const char *dir, tb_vm_qemu *q)
{
    memset(q, 0, sizeof *q);
    tb_buf t = {0};
    read_file_text(dir, "path", &t);
    first_line_of(&t, q->path, sizeof q->path);
    read_file_text(dir, "how", &t);
    first_line_of(&t, q->how, sizeof q->how);
    read_file_text(dir, "sha256", &t);
    first_line_of(&t, q->sha256, sizeof q->sha256);
    read_file_text(dir, "why", &t);
    if (t.len) {
        first_line_of(&t, q->why, sizeof q->why);
        tb_buf_clear(&t);
        return;
    }
    read_file_text(dir, "version.txt", &t);
    first_line_of(&t, q->version, sizeof q->version);
    if (!q->version[0]) {
        snprintf(q->why, sizeof q->why, "%.100s: no answer to --version recorded in %.150s",
                 q->path[0] ? q->path : "QEMU", dir);
        tb_buf_clear(&t);
        return;
    }
    q->found = 1;
    if (tb_vm_parse_qemu_version(q->version, &q->major, &q->minor, &q->micro) < 0)
        q->major = q->minor = q->micro = 0;
    read_file_text(dir, "object-help.txt", &t);
    tb_vm_qemu_parse_objects(t.p ? (const char *)t.p : "", q);
    read_file_text(dir, "qmp.txt", &t);
    const char *qmp = t.p ? (const char *)t.p : "";
    read_props(dir, "tdx-guest", qmp, q->tdx_props, sizeof q->tdx_props, &q->tdx_props_known,
               q->tdx_help, sizeof q->tdx_help, q->props_why, sizeof q->props_why);
    read_props(dir, "sev-snp-guest", qmp, q->snp_props, sizeof q->snp_props, &q->snp_props_known,
               q->snp_help, sizeof q->snp_help, q->props_why, sizeof q->props_why);
    tb_buf_clear(&t);
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            char p[PATH_MAX];
            tb_err err;
            if (e->d_name[0] != '.' && tb_path_join(p, sizeof p, dir, e->d_name, &err) == 0)
                unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

void tb_vm_qemu_probe(const char *given, const char *tmpdir, tb_vm_qemu *q)
{
    char path[1024], how[200];
    int found = tb_vm_qemu_find(given, path, sizeof path, how, sizeof how) == 0;
    char dir[PATH_MAX];
    tb_err e;
    snprintf(dir, sizeof dir, "%s/teebench-qemu-probe.XXXXXX", tmpdir ? tmpdir : "/tmp");
    if (!found || !mkdtemp(dir)) {
        memset(q, 0, sizeof *q);
        snprintf(q->path, sizeof q->path, "%s", path);
        snprintf(q->how, sizeof q->how, "%s", how);
        snprintf(q->why, sizeof q->why, "%s", found ? strerror(errno) : how);
        return;
    }
    if (tb_vm_qemu_run_probe(path, how, dir, &e) < 0) {
        remove_dir(dir);
        memset(q, 0, sizeof *q);
        snprintf(q->path, sizeof q->path, "%s", path);
        snprintf(q->why, sizeof q->why, "%.290s", e.msg);
        return;
    }
    tb_vm_qemu_read_probe(dir, q);
    remove_dir(dir);
}

/* ---- QEMU's failure, as one line ---- */

static const char *find_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++)
        if (!strncasecmp(p, needle, n))
            return p;
    return NULL;
}

void tb_vm_qemu_error_line(const char *log, char *out, size_t len)
{
    const char *text = log ? log : "";
    const char *cpuid = strstr(text, "CPUID validation failed");
    if (cpuid) {
        int count = 0;
        for (const char *p = cpuid; (p = strstr(p, "CPUID validation failed")) != NULL; p++)
            count++;
        unsigned fn = 0, idx = 0;
        const char *f = strstr(cpuid, "function ");
        int have = f && sscanf(f, "function %x, index: %x", &fn, &idx) == 2;
        char first[96] = "";
        if (have)
            snprintf(first, sizeof first, " for CPUID function 0x%x index 0x%x", fn, idx);
        else if (strstr(cpuid, "count mismatch"))
            snprintf(first, sizeof first, " (the number of CPUID entries)");
        snprintf(out, len,
                 "SEV-SNP: the firmware refused the guest's CPUID page%s%s: the CPU model "
                 "offers CPUID values the SNP firmware does not validate; choose a model it "
                 "does with --cpu (AMD's and QEMU's SNP examples use EPYC-v4, or the EPYC model "
                 "of this CPU generation, e.g. EPYC-Milan, EPYC-Genoa)",
                 first, count > 1 ? " and more" : "");
        return;
    }
    const char *vmtype = strstr(text, "not supported by KVM");
    const char *create = strstr(text, "KVM_CREATE_VM");
    if ((vmtype && find_ci(text, "vm-type")) || create) {
        snprintf(out, len,
                 "KVM refused the kind of VM this QEMU creates (%s): the QEMU and the kernel speak "
                 "different TDX/SEV-SNP ABIs -- use the QEMU of the kernel's stack "
                 "(`teebench vm check` says which VM types the kernel offers)",
                 create ? "ioctl KVM_CREATE_VM failed" : "vm-type not supported by KVM");
        return;
    }
    const char *sev = strstr(text, "Failed to open /dev/sev");
    if (sev) {
        size_t n = strcspn(sev, "\n");
        snprintf(out, len,
                 "QEMU could not open /dev/sev (%.*s): the SEV firmware device must be "
                 "readable and writable by this user (the kvm group on most distributions)",
                 (int)(n > 200 ? 200 : n), sev);
        return;
    }
    /* else the first line that is not a warning, else the first line */
    const char *p = text, *l, *first = NULL, *real = NULL;
    size_t n, first_n = 0, real_n = 0;
    while (next_line(&p, &l, &n)) {
        const char *s = l;
        size_t k = n;
        trim(&s, &k);
        if (!k)
            continue;
        if (!first)
            first = s, first_n = k;
        if (!real && !strstr(s, "warning:")) {
            real = s, real_n = k;
            break;
        }
    }
    if (!real)
        real = first, real_n = first_n;
    if (!real) {
        snprintf(out, len, "(no message; see qemu.log)");
        return;
    }
    snprintf(out, len, "%.*s", (int)(real_n < len ? real_n : len - 1), real);
}
