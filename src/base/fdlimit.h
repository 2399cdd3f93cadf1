/* fdlimit: the process's open-file limit (RLIMIT_NOFILE), raised toward what a
 * command needs -- every connection of the load generator, the fixture server
 * and the notary is a descriptor.
 *
 * Invariants: the soft limit is only ever raised, never lowered, and never above
 * the hard limit (no privilege is asked for); the hard limit is not touched. The
 * caller learns the limit reached and decides what to say or size from it: nothing
 * here prints. */
#ifndef TB_BASE_FDLIMIT_H
#define TB_BASE_FDLIMIT_H

#include <stdint.h>

/* want: as far as the hard limit goes. */
#define TB_FD_LIMIT_HARD UINT64_MAX

/* Raises the soft limit to min(want, hard limit) when it is below want; returns
 * the soft limit in effect afterwards (UINT64_MAX: unlimited), or 0 when it
 * cannot be read. want 0 only reads it. */
uint64_t tb_fd_limit_raise(uint64_t want);

#endif
