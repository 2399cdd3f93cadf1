/* fleet/internal: what the fleet's files share (see fleet.h). Not for other modules. */
#ifndef TB_FLEET_INTERNAL_H
#define TB_FLEET_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>

#include "fleet/fleet.h"

/* One line through h->say (nothing when h or h->say is NULL). */
__attribute__((format(printf, 3, 4))) static inline void
fleet_say(const tb_fleet_hooks *h, tb_fleet_say_kind kind, const char *fmt, ...)
{
    if (!h || !h->say)
        return;
    char text[TB_ERR_MAX + 600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    h->say(kind, text, h->ctx);
}

/* ---- vm.c ---- */

/* The absolute VM run directory: vm_dir (made absolute: QEMU -daemonize changes to /)
   or vm/'s default. 0, or -1 with err. */
int fleet_vm_base(const char *vm_dir, char *out, size_t len, tb_err *err);
/* tb_fleet_plan's VM part: the run directory (TB_FLEET_USAGE when bad), the host's
   capabilities (-1), each kind's plan and final label. */
int fleet_vm_plan(tb_fleet *f, tb_err *err);
/* Starts VM i (stop: h's flag). 0: running (f->st); -1 with err (nothing left running). */
int fleet_vm_start(tb_fleet *f, int i, const tb_suite_hooks *h, tb_err *err);
/* Stops the VM started last, if any (a shorter grace when interrupted). 0, or -1 with
   err when QEMU could not be ended. */
int fleet_vm_stop(tb_fleet *f, const tb_suite_hooks *h, int interrupted, tb_err *err);
/* The facts of VM name (its state under base) into r (fleet/vmenv). */
/* --vm-boot-memory: VM i (stopped) booted again at each size and stopped, each boot's
   time into r as vm.boot.mem.<N>mib.s, and r's own boot (vm.boot.s) as its size's
   point. A boot that fails is said and the others still run; 0, or -1 when a VM
   cannot be stopped (err). */
int fleet_vm_boot_sizes(tb_fleet *f, int i, tb_record *r, const tb_fleet_hooks *h, tb_err *err);
int fleet_vm_annotate(const char *base, const char *name, const char *qemu_version, tb_record *r,
                      tb_err *err);
/* A vm:NAME target becomes the ssh target its state names (127.0.0.1, its port, user,
   key, known_hosts); a TCG guest is said. 0, or -1 with err (no such VM, not running). */
int fleet_vm_target(const tb_fleet *f, tb_remote_target *t, const tb_fleet_hooks *h, tb_err *err);

/* ---- split.c ---- */

/* --http-client local on ssh target t: nginx started there, the plan's http nginx
   target run here against it, nginx stopped. 0 and *out (a record with the http.nginx.*
   metrics), or -1 with err. */
int fleet_http_from_here(const tb_suite_plan *p, const tb_remote_target *t, const tb_remote_opts *o,
                         const tb_fleet_hooks *h, tb_record **out, tb_err *err);
/* --net-client local on ssh target t: `teebench network serve --daemon` there (on the
   address ssh reaches, a port from tb_fleet_split_port, three tries), the plan's network
   workload run here with network.server pointing at it, the servers stopped (a failure
   said through h->say). 0 and *out (a record with the network.* metrics), or -1 with
   err. */
int fleet_network_from_here(const tb_suite_plan *p, const tb_remote_target *t,
                            const tb_remote_opts *o, const tb_fleet_hooks *h, tb_record **out,
                            tb_err *err);

/* ---- access.c ---- */

/* --guest-setup on t: nginx installed there when the run needs it (suite/guest). One
   that cannot be is said and sets *failed; the suite still runs there. */
void fleet_guest_setup(const tb_suite_plan *p, const tb_remote_target *t, const tb_remote_opts *o,
                       const tb_fleet_hooks *h, int *failed);
/* A target whose user is not root runs what needs no root: says which workloads do. */
void fleet_note_user(const tb_suite_plan *p, const tb_remote_target *t, const tb_fleet_hooks *h);

#endif
