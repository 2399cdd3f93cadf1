/* sys/internal: the sys files' entry points that only their unit tests call (the
 * chase's cycle, a probe's summary, the I/O port trial). Other modules use the sys headers; a
 * name moves back there when another module needs it. */
#ifndef TB_SYS_INTERNAL_H
#define TB_SYS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "sys/membench.h"
#include "sys/probe.h"

/* ---- sys/membench.h ---- */
/* The cycle tb_mem_chase walks, for its tests: next[i] (i < n) becomes the line after
   line i, one cycle through all n >= 2 lines (Sattolo's shuffle, splitmix64 from seed). */
void tb_mem_chase_order(uint32_t *next, size_t n, uint64_t seed);

/* ---- sys/probe.h ---- */
/* Median/p99/min/mean of x[0..n-1] (sorted in place) into out. n >= 1. */
void tb_probe_summarize(double *x, size_t n, tb_probe_result *out);
/* One IN from port in a child process, after ioperm(port) when grant: 0 when it
   completed, the signal that ended the child (SIGSEGV where user port I/O faults: no
   ioperm, or a TD's kernel), -1 otherwise (fork failed, ioperm refused, not x86). The
   ioport probe takes it first, so a fault never reaches the measuring process. */
int tb_probe_port_trial(unsigned port, int grant);

#endif
