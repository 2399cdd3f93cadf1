/* cli/suite_vm: the VMs of `teebench suite run --vm-kinds LIST`. cli/suite runs
 * the environments -- this machine ("host"), then one VM per kind, then any
 * --target -- and calls here around each VM: before the first run, every kind is
 * checked (flags: exit 2), planned on this host (a refusal -- a TD on a host
 * without TDX, a QEMU too old -- is one line and fails that environment alone)
 * and preflighted (unreadable boot files, a name already running: nothing runs);
 * at its turn a VM is started (its boot time kept), the suite runs inside through
 * suite/remote as a vm:NAME target, the record gets the VM's facts
 * (fleet/vmenv: vm.boot.s, extra.vm) and the VM is stopped -- on every path,
 * also after an error or Ctrl-C (a boot in progress gives up at once).
 *
 * One VM runs at a time; each lives in the VM run directory (--vm-dir, else
 * vm/'s default) under its environment label, so `teebench vm list|ssh` see it
 * while the suite runs there. A TCG guest's label ends in "-tcg" and a NOTE says
 * that no figure from it means anything. Progress lines go through hooks as INFO
 * events; refusals and notes go to stderr. */
#ifndef TB_CLI_SUITE_VM_H
#define TB_CLI_SUITE_VM_H

#include <signal.h>

#include "record/record.h"
#include "suite/suite.h"
#include "fleet/vmenv.h"
#include "vm/vm.h"

typedef struct cli_suite_vms {
    const char *kinds; /* --vm-kinds LIST; NULL: no VMs */
    tb_vm_spec spec;   /* --image, --kernel, --vm-cpus ...: the same for every kind */
    int flag;          /* the first VM flag given (a CLI_VM_* code), 0: none */
    tb_fleet_vm_env envs[TB_FLEET_VM_MAX];
    int n;
    /* after cli_suite_vms_plan: */
    char labels[TB_FLEET_VM_MAX][TB_VM_NAME_MAX + 1]; /* final labels (-tcg) */
    tb_vm_plan plans[TB_FLEET_VM_MAX];
    int refused[TB_FLEET_VM_MAX];          /* 1: refused on this host */
    char why[TB_FLEET_VM_MAX][TB_ERR_MAX]; /* the refusal */
    char base[1024];                       /* the VM run directory */
    char qemu_version[32];                 /* "7.2.22", "" when unknown */
    /* neither --image nor --kernel: `vm image`'s default image, built first when absent */
    char default_image[1024];
    int build_image;
    /* the VM running now: */
    tb_vm_state st;
    int running; /* index into envs, -1: none */
} cli_suite_vms;

void cli_suite_vms_init(cli_suite_vms *v);

/* A VM flag (cli/vm_flags.h, cli_vm_flags_suite) into v->spec. 0 or exit code 2. */
int cli_suite_vms_flag(cli_suite_vms *v, int c, const char *value);

/* After the flags: parses --vm-kinds and checks each kind's description (no host
   access). VM flags without --vm-kinds are refused. 0, or exit code 2. */
int cli_suite_vms_check(cli_suite_vms *v);

/* The absolute VM run directory: vm_dir (made absolute) or vm/'s default. */
int cli_suite_vm_base(const char *vm_dir, char *out, size_t len, tb_err *err);

/* Before any environment runs, first: the host (QEMU version, KVM, TDX/SNP) and
   each kind's plan, hence its final label; a refusal is kept in why[i]. Prints
   nothing; 0, or exit code 2 (a bad --vm-dir). */
int cli_suite_vms_plan(cli_suite_vms *v, const char *vm_dir);

/* Then (once the names are known to differ): each planned VM's preflight -- exit
   code 1 after its line when one fails, before anything ran --, then one line per
   refusal and the plans' notes on stderr. 0 or the exit code. */
int cli_suite_vms_preflight(cli_suite_vms *v);

/* Starts VM i (stop: the caller's interrupt flag). 0: running (v->st); -1 with err
   (refused -- already said -- or the start failed; nothing left running). */
int cli_suite_vms_start(cli_suite_vms *v, int i, tb_suite_hooks *hooks, tb_err *err);

/* Stops the VM started last, if any (shorter grace when interrupted). 0, or -1
   with err when QEMU could not be ended. */
int cli_suite_vms_stop(cli_suite_vms *v, tb_suite_hooks *hooks, int interrupted, tb_err *err);

/* Adds the facts of VM name (its state in base) to r: vm.boot.s when its boot time
   is known, extra.vm, its QEMU command line (fleet/vmenv tb_fleet_vm_annotate). */
int cli_suite_vm_annotate(const char *base, const char *name, const char *qemu_version,
                          tb_record *r, tb_err *err);

#endif
