/* vm/state: the run directory of a VM and its state file.
 *
 * <base>/<name>/vm.json is schema "teebench-vm" version 1: name, kind, tcg, pid,
 * ssh (port, user, key, known_hosts, url), paths (qmp, serial log, qemu log, pid
 * file), cpus, memory, started_at, boot_ns, boot_s and QEMU's argv, and what ran:
 * "qemu" {path, version, sha256} and "firmware" {path, sha256} (optional keys: a
 * state written before they existed reads as ""). It is written atomically
 * (base/file), read strictly (a wrong type or a missing required key is an error,
 * not a default). */
#include "vm/vm.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/paths.h"
#include "base/file.h"

#define SCHEMA "teebench-vm"
#define SCHEMA_VERSION 1

static int join(char *out, size_t len, const char *dir, const char *file, tb_err *err)
{
    if ((size_t)snprintf(out, len, "%s/%s", dir, file) >= len)
        return tb_errf(err, "%s/%s: path too long", dir, file);
    return 0;
}

int tb_vm_paths_make(const char *base, const char *name, tb_vm_paths *p, tb_err *err)
{
    memset(p, 0, sizeof *p);
    if (join(p->dir, sizeof p->dir, base, name, err) < 0)
        return -1;
    if ((size_t)snprintf(p->qmp, sizeof p->qmp, "%s/qmp.sock", p->dir) >= sizeof p->qmp)
        return tb_errf(err,
                       "%s/qmp.sock: longer than a unix socket path may be (107 bytes); "
                       "use a shorter --dir",
                       p->dir);
    if (join(p->state, sizeof p->state, p->dir, "vm.json", err) < 0 ||
        join(p->serial, sizeof p->serial, p->dir, "serial.log", err) < 0 ||
        join(p->qemu_log, sizeof p->qemu_log, p->dir, "qemu.log", err) < 0 ||
        join(p->pidfile, sizeof p->pidfile, p->dir, "qemu.pid", err) < 0 ||
        join(p->key, sizeof p->key, p->dir, "id_ed25519", err) < 0 ||
        join(p->seed, sizeof p->seed, p->dir, "seed.iso", err) < 0 ||
        join(p->known_hosts, sizeof p->known_hosts, p->dir, "known_hosts", err) < 0)
        return -1;
    return 0;
}

void tb_vm_state_free(tb_vm_state *st)
{
    tb_vm_argv_free(st->argv);
    st->argv = NULL;
}

int tb_vm_ssh_url(const tb_vm_state *st, char *out, size_t len)
{
    int n = snprintf(out, len, "ssh://%s@127.0.0.1:%d", st->ssh_user, st->ssh_port);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* {"firmware_ns": N|null, ..., "note": "..."} */
static json_t *phases_json(const tb_vm_state *st)
{
    json_t *o = json_object();
    for (int i = 0; o && i < TB_VM_BOOT_NPHASES; i++) {
        char key[32];
        snprintf(key, sizeof key, "%s_ns", tb_vm_boot_phase_name(i));
        json_object_set_new(
            o, key, st->boot_phase_ns[i] >= 0 ? json_integer(st->boot_phase_ns[i]) : json_null());
    }
    if (o)
        json_object_set_new(o, "note", json_string(st->boot_note));
    return o;
}

/* Optional in vm.json (a state written before phases were measured has none). */
static int parse_phases(const json_t *o, tb_vm_state *st, tb_err *err)
{
    for (int i = 0; i < TB_VM_BOOT_NPHASES; i++)
        st->boot_phase_ns[i] = -1;
    const json_t *ph = json_object_get(o, "boot_phases");
    if (!ph)
        return 0;
    if (!json_is_object(ph))
        return tb_errf(err, "\"boot_phases\" is not an object");
    for (int i = 0; i < TB_VM_BOOT_NPHASES; i++) {
        char key[32];
        snprintf(key, sizeof key, "%s_ns", tb_vm_boot_phase_name(i));
        const json_t *v = json_object_get(ph, key);
        if (!v || json_is_null(v))
            continue;
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) > ((json_int_t)1 << 62))
            return tb_errf(err, "\"boot_phases\".%s is not a number of nanoseconds", key);
        st->boot_phase_ns[i] = (int64_t)json_integer_value(v);
    }
    const json_t *note = json_object_get(ph, "note");
    if (note && !json_is_string(note))
        return tb_errf(err, "\"boot_phases\".note is not a string");
    snprintf(st->boot_note, sizeof st->boot_note, "%s", note ? json_string_value(note) : "");
    return 0;
}

json_t *tb_vm_state_json(const tb_vm_state *st)
{
    char url[128];
    tb_vm_ssh_url(st, url, sizeof url);
    json_t *argv = json_array();
    for (char **a = st->argv; a && *a; a++)
        json_array_append_new(argv, json_string(*a));
    json_t *o = json_pack(
        "{s:s, s:i, s:s, s:s, s:b, s:i, s:{s:s, s:i, s:s, s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:s},"
        " s:i, s:I, s:s, s:I, s:f, s:o}",
        "schema", SCHEMA, "version", SCHEMA_VERSION, "name", st->name, "kind",
        tb_vm_kind_name(st->kind), "tcg", st->tcg, "pid", (int)st->pid, "ssh", "url", url, "port",
        st->ssh_port, "user", st->ssh_user, "key", st->ssh_key, "known_hosts",
        st->paths.known_hosts, "paths", "dir", st->paths.dir, "qmp", st->paths.qmp, "serial_log",
        st->paths.serial, "qemu_log", st->paths.qemu_log, "pidfile", st->paths.pidfile, "cpus",
        st->cpus, "memory_bytes", (json_int_t)st->memory, "started_at", st->started_at, "boot_ns",
        (json_int_t)st->boot_ns, "boot_s", (double)st->boot_ns / 1e9, "argv", argv);
    if (o && (json_object_set_new(o, "qemu",
                                  json_pack("{s:s, s:s, s:s}", "path", st->qemu_path, "version",
                                            st->qemu_version, "sha256", st->qemu_sha256)) < 0 ||
              json_object_set_new(o, "firmware",
                                  json_pack("{s:s, s:s}", "path", st->firmware, "sha256",
                                            st->firmware_sha256)) < 0 ||
              json_object_set_new(o, "boot_phases", phases_json(st)) < 0)) {
        json_decref(o);
        return NULL;
    }
    if (o && st->swiotlb_param[0] &&
        json_object_set_new(o, "swiotlb",
                            json_pack("{s:s, s:s, s:I, s:s}", "param", st->swiotlb_param, "how",
                                      st->swiotlb_how, "pool_bytes", (json_int_t)st->swiotlb_pool,
                                      "guest_cmdline", st->guest_cmdline)) < 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int tb_vm_state_save(const tb_vm_state *st, tb_err *err)
{
    json_t *o = tb_vm_state_json(st);
    char *text = o ? json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    if (!text)
        return tb_errf(err, "%s: out of memory", st->paths.state);
    size_t n = strlen(text);
    text[n] = '\n'; /* json_dumps leaves room for the NUL only: write n+1 bytes below */
    int rc = tb_file_write_atomic_mode(st->paths.state, text, n + 1, 0600, err);
    free(text);
    return rc;
}

static int get_str(const json_t *o, const char *key, char *out, size_t len, tb_err *err)
{
    const char *v = json_string_value(json_object_get(o, key));
    if (!v)
        return tb_errf(err, "\"%s\" is missing or not a string", key);
    if (strlen(v) >= len)
        return tb_errf(err, "\"%s\" is too long", key);
    memcpy(out, v, strlen(v) + 1);
    return 0;
}

static int get_int(const json_t *o, const char *key, long long lo, long long hi, long long *out,
                   tb_err *err)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_integer(v))
        return tb_errf(err, "\"%s\" is missing or not an integer", key);
    long long x = json_integer_value(v);
    if (x < lo || x > hi)
        return tb_errf(err, "\"%s\" is out of range", key);
    *out = x;
    return 0;
}

static int parse_doc(const json_t *o, tb_vm_state *st, tb_err *err)
{
    char buf[64];
    long long v;
    if (get_str(o, "schema", buf, sizeof buf, err) < 0)
        return -1;
    if (strcmp(buf, SCHEMA))
        return tb_errf(err, "schema \"%s\", not \"" SCHEMA "\"", buf);
    if (get_int(o, "version", 0, 1000, &v, err) < 0)
        return -1;
    if (v != SCHEMA_VERSION)
        return tb_errf(err, "version %lld, this teebench reads %d", v, SCHEMA_VERSION);
    if (get_str(o, "name", st->name, sizeof st->name, err) < 0 ||
        get_str(o, "kind", buf, sizeof buf, err) < 0)
        return -1;
    if (tb_vm_kind_parse(buf, &st->kind) < 0)
        return tb_errf(err, "unknown kind \"%s\"", buf);
    const json_t *tcg = json_object_get(o, "tcg");
    if (!json_is_boolean(tcg))
        return tb_errf(err, "\"tcg\" is missing or not a boolean");
    st->tcg = json_is_true(tcg);
    if (get_int(o, "pid", 0, 0x3fffffff, &v, err) < 0)
        return -1;
    st->pid = (pid_t)v;
    const json_t *ssh = json_object_get(o, "ssh"), *paths = json_object_get(o, "paths");
    if (!json_is_object(ssh) || !json_is_object(paths))
        return tb_errf(err, "\"ssh\" or \"paths\" is missing or not an object");
    if (get_int(ssh, "port", 1, 65535, &v, err) < 0)
        return -1;
    st->ssh_port = (int)v;
    if (get_str(ssh, "user", st->ssh_user, sizeof st->ssh_user, err) < 0 ||
        get_str(ssh, "key", st->ssh_key, sizeof st->ssh_key, err) < 0 ||
        get_str(ssh, "known_hosts", st->paths.known_hosts, sizeof st->paths.known_hosts, err) < 0 ||
        get_str(paths, "dir", st->paths.dir, sizeof st->paths.dir, err) < 0 ||
        get_str(paths, "qmp", st->paths.qmp, sizeof st->paths.qmp, err) < 0 ||
        get_str(paths, "serial_log", st->paths.serial, sizeof st->paths.serial, err) < 0 ||
        get_str(paths, "qemu_log", st->paths.qemu_log, sizeof st->paths.qemu_log, err) < 0 ||
        get_str(paths, "pidfile", st->paths.pidfile, sizeof st->paths.pidfile, err) < 0)
        return -1;
    if (join(st->paths.state, sizeof st->paths.state, st->paths.dir, "vm.json", err) < 0 ||
        join(st->paths.key, sizeof st->paths.key, st->paths.dir, "id_ed25519", err) < 0 ||
        join(st->paths.seed, sizeof st->paths.seed, st->paths.dir, "seed.iso", err) < 0)
        return -1;
    if (get_int(o, "cpus", 1, TB_VM_MAX_CPUS, &v, err) < 0)
        return -1;
    st->cpus = (int)v;
    if (get_int(o, "memory_bytes", 1, (long long)1 << 50, &v, err) < 0)
        return -1;
    st->memory = (uint64_t)v;
    if (get_str(o, "started_at", st->started_at, sizeof st->started_at, err) < 0)
        return -1;
    if (get_int(o, "boot_ns", 0, (long long)1 << 62, &v, err) < 0)
        return -1;
    st->boot_ns = (uint64_t)v;
    if (parse_phases(o, st, err) < 0)
        return -1;
    const json_t *q = json_object_get(o, "qemu"), *fw = json_object_get(o, "firmware");
    if ((q && !json_is_object(q)) || (fw && !json_is_object(fw)))
        return tb_errf(err, "\"qemu\" or \"firmware\" is not an object");
    if (q && (get_str(q, "path", st->qemu_path, sizeof st->qemu_path, err) < 0 ||
              get_str(q, "version", st->qemu_version, sizeof st->qemu_version, err) < 0 ||
              get_str(q, "sha256", st->qemu_sha256, sizeof st->qemu_sha256, err) < 0))
        return -1;
    if (fw && (get_str(fw, "path", st->firmware, sizeof st->firmware, err) < 0 ||
               get_str(fw, "sha256", st->firmware_sha256, sizeof st->firmware_sha256, err) < 0))
        return -1;
    const json_t *sw = json_object_get(o, "swiotlb"); /* optional: regular-swiotlb only */
    if (sw && !json_is_object(sw))
        return tb_errf(err, "\"swiotlb\" is not an object");
    if (sw && (get_str(sw, "param", st->swiotlb_param, sizeof st->swiotlb_param, err) < 0 ||
               get_str(sw, "how", st->swiotlb_how, sizeof st->swiotlb_how, err) < 0 ||
               get_int(sw, "pool_bytes", 1, (long long)1 << 50, &v, err) < 0 ||
               get_str(sw, "guest_cmdline", st->guest_cmdline, sizeof st->guest_cmdline, err) < 0))
        return -1;
    if (sw)
        st->swiotlb_pool = (uint64_t)v;
    const json_t *argv = json_object_get(o, "argv");
    if (!json_is_array(argv))
        return tb_errf(err, "\"argv\" is missing or not an array");
    size_t n = json_array_size(argv);
    st->argv = calloc(n + 1, sizeof *st->argv);
    if (!st->argv)
        return tb_errf(err, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const char *a = json_string_value(json_array_get(argv, i));
        if (!a)
            return tb_errf(err, "\"argv\"[%zu] is not a string", i);
        if (!(st->argv[i] = strdup(a)))
            return tb_errf(err, "out of memory");
    }
    return 0;
}

int tb_vm_state_parse(const char *text, size_t len, tb_vm_state *st, tb_err *err)
{
    memset(st, 0, sizeof *st);
    json_error_t je;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!o)
        return tb_errf(err, "not JSON: %s (line %d)", je.text, je.line);
    int rc = json_is_object(o) ? parse_doc(o, st, err) : tb_errf(err, "not a JSON object");
    json_decref(o);
    if (rc < 0)
        tb_vm_state_free(st);
    return rc;
}

int tb_vm_load(const char *base, const char *name, tb_vm_state *st, tb_err *err)
{
    memset(st, 0, sizeof *st);
    if (!tb_vm_name_ok(name))
        return tb_errf(err, "'%s': not a VM name", name);
    tb_vm_paths p;
    if (tb_vm_paths_make(base, name, &p, err) < 0)
        return -1;
    tb_buf b = {0};
    if (tb_file_read(p.state, 1 << 20, &b, err) < 0) {
        if (errno == ENOENT || access(p.state, F_OK) < 0)
            return tb_errf(err, "no VM named %s in %s", name, base);
        return -1;
    }
    int rc = tb_vm_state_parse((const char *)b.p, b.len, st, err);
    tb_buf_clear(&b);
    if (rc < 0)
        return tb_err_wrap(err, "%s", p.state);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int tb_vm_list(const char *base, char ***names, tb_err *err)
{
    *names = calloc(1, sizeof **names);
    if (!*names)
        return tb_errf(err, "out of memory");
    DIR *d = opendir(base);
    if (!d) {
        if (errno == ENOENT)
            return 0;
        tb_errno(err, "%s", base);
        tb_vm_argv_free(*names);
        *names = NULL;
        return -1;
    }
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[2048];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s/vm.json", base, e->d_name);
        if (stat(path, &sb) < 0 || !S_ISREG(sb.st_mode))
            continue;
        char **grown = realloc(*names, (n + 2) * sizeof **names);
        char *copy = strdup(e->d_name);
        if (!grown || !copy) {
            free(copy);
            if (grown)
                *names = grown;
            closedir(d);
            tb_vm_argv_free(*names);
            *names = NULL;
            return tb_errf(err, "out of memory");
        }
        *names = grown;
        (*names)[n++] = copy;
        (*names)[n] = NULL;
    }
    closedir(d);
    qsort(*names, n, sizeof **names, cmp_str);
    return 0;
}

int tb_vm_alive(const tb_vm_state *st)
{
    if (st->pid <= 0)
        return 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)st->pid);
    tb_buf b = {0};
    tb_err e;
    if (tb_file_read(path, 1 << 20, &b, &e) < 0)
        return 0;
    int found = 0;
    for (size_t i = 0; i < b.len && !found;) {
        const char *arg = (const char *)b.p + i;
        size_t n = strnlen(arg, b.len - i);
        found = n == strlen(st->paths.pidfile) && !memcmp(arg, st->paths.pidfile, n);
        i += n + 1;
    }
    tb_buf_clear(&b);
    return found;
}

int tb_vm_default_dir(char *out, size_t len, tb_err *err)
{
    if (tb_path_dir(TB_PATH_RUNTIME, "teebench/vm", out, len, err) < 0)
        return tb_err_wrap(err, "no default run dir (give --dir)");
    return 0;
}
