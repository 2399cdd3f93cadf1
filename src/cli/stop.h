/* cli/stop: the one stop flag of the tree, set by SIGINT and SIGTERM once cli_stop_catch
 * has run -- by SIGINT alone once cli_stop_catch_sigint has, for http, as wrk. Every
 * command a signal stops uses it: memory, network, storage and kv (storage and kv through
 * cli_wl_run), bench, http, suite, tlsn session and vm image. The work polls the flag
 * (cli_stop_flag, handed down as a const pointer; or cli_stopped); the command then says
 * "interrupted" and exits 130, or, for http, prints what it measured.
 *
 * Global state: the flag (a volatile sig_atomic_t, cleared by a catch before its handler
 * is set, then written only by the handler, atomically: other threads -- http's, the
 * suite's -- read it): a process runs one command. Prints nothing. */
#ifndef TB_CLI_STOP_H
#define TB_CLI_STOP_H

#include <signal.h>

/* The stop flag cleared, and from now on SIGINT and SIGTERM set it (no SA_RESTART:
   a wait wakes up); the handlers before go to old_int and old_term (NULL: not
   kept). */
void cli_stop_catch(struct sigaction *old_int, struct sigaction *old_term);
/* The same for SIGINT alone (SIGTERM keeps its handler). */
void cli_stop_catch_sigint(struct sigaction *old_int);
/* Puts back the handlers cli_stop_catch kept. */
void cli_stop_restore(const struct sigaction *old_int, const struct sigaction *old_term);
/* The stop flag, for the work to poll. */
const volatile sig_atomic_t *cli_stop_flag(void);
/* 1 once SIGINT or SIGTERM came (since the last catch), else 0. */
int cli_stopped(void);

#endif
