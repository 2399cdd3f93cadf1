/* cli/vm_image: `teebench vm image` -- parses its flags, runs vm/image's build and
 * prints where the image is. SIGINT/SIGTERM while the build runs set the stop flag
 * (cli/stop's), which the build reads: it stops, and the command exits 130. */
#include "cli/cli.h"
#include "cli/flags.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "cli/stop.h"
#include "vm/image.h"
#include "vm/vm.h"

#define CMD "vm"

static void usage(FILE *f, const cli_cmd *c)
{
    fprintf(f,
            "usage: teebench vm image [--suite S] [-o FILE] [--stock] [options]\n\n"
            "Builds a guest disk from a distribution's archive with mmdebstrap, once: a kernel,\n"
            "systemd, cloud-init, openssh-server, nginx and, unless --stock, this teebench at\n"
            "/usr/local/bin/teebench with the libraries it links. A GPT disk (an EFI system\n"
            "partition with systemd-boot, an ext4 root) in qcow2, booted with the default OVMF\n"
            "firmware as a TD or an SNP guest boots. No password and no key in it: vm start's\n"
            "cloud-init seed gives SSH access, as for any stock cloud image. Without -o it is\n"
            "kept in the data directory, where `suite run --vm-kinds` without --image finds it.\n"
            "Needs root and access to the archive; takes a few minutes.\n\n"
            "options:\n"
            "  --suite S            %s (default %s)\n",
            tb_vm_distro_names(), TB_VM_IMAGE_DEFAULT_SUITE);
    cli_flags_help(f, c);
}

/* This binary's path (copied into the image). */
static int self_path(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    if (n <= 0)
        return -1;
    out[n] = 0;
    return 0;
}

/* --print: mmdebstrap's argv, one word a line, then the hook (WORKDIR for the work dir). */
static int print_plan(tb_vm_image_recipe *r)
{
    tb_err e;
    char self[PATH_MAX];
    if (!r->stock && self_path(self, sizeof self) == 0)
        r->teebench = self;
    tb_buf script = {0};
    char **argv = tb_vm_image_argv(r, "WORKDIR/hook.sh", &e);
    if (!argv || tb_vm_image_script(r, "WORKDIR", &script, &e) < 0) {
        tb_vm_argv_free(argv);
        return cli_fail_code(2, CMD, "image: %s", e.msg);
    }
    printf("# run as root with TMPDIR=WORKDIR, WORKDIR a new private directory beside %s:\n",
           r->output);
    for (char **a = argv; *a; a++)
        printf("%s%s\n", a == argv ? "" : "  ", *a);
    printf("\n# WORKDIR/hook.sh:\n");
    fwrite(script.p, 1, script.len, stdout);
    tb_vm_argv_free(argv);
    tb_buf_clear(&script);
    return 0;
}

typedef struct image_args {
    tb_vm_image_recipe r;
    int force, print;
} image_args;

static int set_size(void *args, const char *flag, const char *v, tb_err *err)
{
    tb_err why;
    if (tb_vm_parse_size(v, &((image_args *)args)->r.size, &why) < 0)
        return tb_errf(err, "%s %s", flag, why.msg);
    return 0;
}

/* --suite's line is the usage's own (it lists the suites known). */
static const cli_flag image_flags[] = {
    {.name = "suite",
     .type = CLI_F_STR,
     .arg = "S",
     .off = CLI_OFF(image_args, r.suite, const char *),
     .hidden = 1},
    CLI_STR("mirror", 0, image_args, r.mirror, "URL", "the archive (default: the distribution's)"),
    CLI_STR("output", 'o', image_args, r.output, "FILE",
            "the qcow2 to write (default $XDG_DATA_HOME/teebench/images/\n"
            "SUITE.qcow2, SUITE-stock.qcow2 with --stock)"),
    CLI_BOOL("stock", 0, image_args, r.stock,
             "as distributions ship cloud images: without teebench and the\n"
             "libraries only it needs"),
    CLI_STR("include", 0, image_args, r.extra, "PKGS", "more packages, comma-separated"),
    {.name = "authorized-key",
     .type = CLI_F_STR,
     .arg = "K.pub",
     .off = CLI_OFF(image_args, r.authorized_key, const char *),
     .label = "--authorized-key K.pub ",
     .help = "authorize this key for root in the image itself"},
    CLI_CALL("size", 0, set_size, "SIZE", "the disk's size (sparse), e.g. 4G (default 4G)"),
    CLI_STR("apt-cache", 0, image_args, r.apt_cache, "DIR",
            "keep downloaded packages in DIR and reuse them"),
    CLI_BOOL("force", 0, image_args, force, "rebuild an image that exists"),
    CLI_BOOL("print", 0, image_args, print,
             "print what would run as root (mmdebstrap's command line\n"
             "and its customize hook) and exit"),
    CLI_HELP(),
    {0}};

const cli_cmd cli_vm_image_cmd = {
    .name = "vm image", .flags = image_flags, .usage = usage, .max_operands = 0, .col = 23};

int cli_vm_image(int argc, char **argv)
{
    image_args a = {.r = {.suite = TB_VM_IMAGE_DEFAULT_SUITE}};
    tb_err e;
    int first, done = cli_flags_parse(&cli_vm_image_cmd, argc, argv, &a, &first);
    if (done != CLI_FLAGS_GO)
        return done;
    tb_vm_image_recipe r = a.r;
    int force = a.force, print = a.print;
    const tb_vm_distro *d = tb_vm_distro_find(r.suite);
    if (!d)
        return cli_fail_code(2, CMD, "image: --suite %s: not a suite teebench knows (%s)", r.suite,
                             tb_vm_distro_names());
    if (r.stock && r.authorized_key)
        return cli_fail_code(2, CMD, "image: --stock images have no key (--authorized-key)");
    char out[PATH_MAX], self[PATH_MAX], cwd[PATH_MAX];
    if (!r.output) {
        if (tb_vm_image_default_path(r.suite, r.stock, out, sizeof out, &e) < 0)
            return cli_fail(CMD, "image: %s", e.msg);
    } else if (r.output[0] != '/' && getcwd(cwd, sizeof cwd)) {
        if ((size_t)snprintf(out, sizeof out, "%s/%s", cwd, r.output) >= sizeof out)
            return cli_fail_code(2, CMD, "image: -o %s: path too long", r.output);
    } else {
        snprintf(out, sizeof out, "%s", r.output);
    }
    r.output = out;
    if (print)
        return print_plan(&r);
    struct stat sb;
    if (!force && stat(out, &sb) == 0) {
        printf("image %s exists (%s; --force builds it again)\n", out, d->name);
        return 0;
    }
    if (!r.stock) {
        if (self_path(self, sizeof self) < 0)
            return cli_fail(CMD, "image: cannot find this teebench (/proc/self/exe)");
        r.teebench = self;
    }
    if (tb_vm_image_check(&r, &e) < 0)
        return cli_fail(CMD, "image: %s", e.msg);
    fprintf(stderr, "teebench: vm: building %s (%s%s, mmdebstrap): a few minutes\n", out, d->name,
            r.stock ? ", stock" : "");
    fflush(stderr);
    struct sigaction old_int, old_term;
    cli_stop_catch(&old_int, &old_term);
    uint64_t t0 = tb_mono_ns();
    char log[1200];
    int rc = tb_vm_image_build(&r, cli_stop_flag(), log, sizeof log, &e);
    cli_stop_restore(&old_int, &old_term);
    if (rc < 0)
        return cli_stopped() ? (cli_fail(CMD, "image: %s", e.msg), 130)
                             : cli_fail(CMD, "image: %s", e.msg);
    if (stat(out, &sb) < 0)
        return cli_fail(CMD, "image: %s: %s", out, strerror(errno));
    printf("image %s: %s%s, %.0f MiB on disk (qcow2), built in %.0f s\n", out, d->name,
           r.stock ? " (stock: no teebench, no key)" : "", (double)sb.st_blocks * 512 / 1048576.0,
           (double)(tb_mono_ns() - t0) / 1e9);
    printf("boot it: teebench vm start NAME --image %s\n", out);
    return 0;
}
