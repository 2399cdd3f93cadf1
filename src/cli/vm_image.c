/* cli/vm_image: `teebench vm image` -- parses its flags, runs vm/image's build and
 * prints where the image is. Global state: `stop_flag`, set by the SIGINT/SIGTERM
 * handler while the build runs and read by it (a volatile sig_atomic_t, as in
 * cli/suite.c). */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
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
#include "vm/image.h"
#include "vm/vm.h"

#define CMD "vm"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static void usage(FILE *f)
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
            "  --suite S            %s (default %s)\n"
            "  --mirror URL         the archive (default: the distribution's)\n"
            "  -o, --output FILE    the qcow2 to write (default $XDG_DATA_HOME/teebench/images/\n"
            "                       SUITE.qcow2, SUITE-stock.qcow2 with --stock)\n"
            "  --stock              as distributions ship cloud images: without teebench and the\n"
            "                       libraries only it needs\n"
            "  --include PKGS       more packages, comma-separated\n"
            "  --authorized-key K.pub   authorize this key for root in the image itself\n"
            "  --size SIZE          the disk's size (sparse), e.g. 4G (default 4G)\n"
            "  --apt-cache DIR      keep downloaded packages in DIR and reuse them\n"
            "  --force              rebuild an image that exists\n"
            "  --print              print what would run as root (mmdebstrap's command line\n"
            "                       and its customize hook) and exit\n"
            "  -h, --help           this text\n",
            tb_vm_distro_names(), TB_VM_IMAGE_DEFAULT_SUITE);
}

enum { O_SUITE = 300, O_MIRROR, O_STOCK, O_INCLUDE, O_KEY, O_SIZE, O_CACHE, O_FORCE, O_PRINT };

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

int cli_vm_image(int argc, char **argv)
{
    static const struct option longs[] = {{"suite", required_argument, NULL, O_SUITE},
                                          {"mirror", required_argument, NULL, O_MIRROR},
                                          {"output", required_argument, NULL, 'o'},
                                          {"stock", no_argument, NULL, O_STOCK},
                                          {"include", required_argument, NULL, O_INCLUDE},
                                          {"authorized-key", required_argument, NULL, O_KEY},
                                          {"size", required_argument, NULL, O_SIZE},
                                          {"apt-cache", required_argument, NULL, O_CACHE},
                                          {"force", no_argument, NULL, O_FORCE},
                                          {"print", no_argument, NULL, O_PRINT},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    tb_vm_image_recipe r = {.suite = TB_VM_IMAGE_DEFAULT_SUITE};
    int force = 0, print = 0, c;
    tb_err e;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":ho:", longs, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return 0;
        case O_SUITE:
            r.suite = optarg;
            break;
        case O_MIRROR:
            r.mirror = optarg;
            break;
        case 'o':
            r.output = optarg;
            break;
        case O_STOCK:
            r.stock = 1;
            break;
        case O_INCLUDE:
            r.extra = optarg;
            break;
        case O_KEY:
            r.authorized_key = optarg;
            break;
        case O_SIZE:
            if (tb_vm_parse_size(optarg, &r.size, &e) < 0)
                return cli_fail_code(2, CMD, "image: --size %s", e.msg);
            break;
        case O_CACHE:
            r.apt_cache = optarg;
            break;
        case O_FORCE:
            force = 1;
            break;
        case O_PRINT:
            print = 1;
            break;
        default:
            return cli_bad_option(CMD, c, argv);
        }
    }
    if (optind < argc)
        return cli_fail_code(2, CMD, "image: unexpected argument '%s'", argv[optind]);
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
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    stop_flag = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    uint64_t t0 = tb_mono_ns();
    char log[1200];
    int rc = tb_vm_image_build(&r, &stop_flag, log, sizeof log, &e);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc < 0)
        return stop_flag ? (cli_fail(CMD, "image: %s", e.msg), 130)
                         : cli_fail(CMD, "image: %s", e.msg);
    if (stat(out, &sb) < 0)
        return cli_fail(CMD, "image: %s: %s", out, strerror(errno));
    printf("image %s: %s%s, %.0f MiB on disk (qcow2), built in %.0f s\n", out, d->name,
           r.stock ? " (stock: no teebench, no key)" : "", (double)sb.st_blocks * 512 / 1048576.0,
           (double)(tb_mono_ns() - t0) / 1e9);
    printf("boot it: teebench vm start NAME --image %s\n", out);
    return 0;
}
