/* clock: the time sources teebench measures with.
 * tb_mono_ns is CLOCK_MONOTONIC (all durations); tb_wall_ns is CLOCK_REALTIME
 * (timestamps in result files only, never durations). */
#ifndef TB_BASE_CLOCK_H
#define TB_BASE_CLOCK_H

#include <stddef.h>
#include <stdint.h>

uint64_t tb_mono_ns(void);
uint64_t tb_wall_ns(void);
/* CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID): for in-process benchmarks
 * on a shared machine, where wall time also counts the other processes' turns. */
uint64_t tb_thread_cpu_ns(void);
/* Sleeps for ns nanoseconds, resuming after signals. */
void tb_sleep_ns(uint64_t ns);
/* Formats a wall-clock time (seconds since the epoch) as "%Y%m%dT%H%M%SZ" (UTC) into out[17]. */
void tb_utc_stamp(int64_t unix_s, char out[17]);
/* Formats it as ISO 8601 UTC, "2025-02-13T03:50:41Z", into out (outlen >= 21). */
void tb_utc_iso8601(int64_t unix_s, char *out, size_t outlen);

#endif
