/* clock: thin wrappers over clock_gettime so every module reads time one way. */
#include "base/clock.h"

#include <errno.h>
#include <time.h>

static uint64_t read_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t tb_mono_ns(void)
{
    return read_clock(CLOCK_MONOTONIC);
}

uint64_t tb_wall_ns(void)
{
    return read_clock(CLOCK_REALTIME);
}

uint64_t tb_thread_cpu_ns(void)
{
    return read_clock(CLOCK_THREAD_CPUTIME_ID);
}

void tb_sleep_ns(uint64_t ns)
{
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ull),
                          .tv_nsec = (long)(ns % 1000000000ull)};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
        ;
}

void tb_utc_stamp(int64_t unix_s, char out[17])
{
    time_t t = (time_t)unix_s;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 17, "%Y%m%dT%H%M%SZ", &tm);
}

void tb_utc_iso8601(int64_t unix_s, char *out, size_t outlen)
{
    time_t t = (time_t)unix_s;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, outlen, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
