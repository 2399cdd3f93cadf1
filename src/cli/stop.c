/* cli/stop: see stop.h. */
#include "cli/stop.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED); /* other threads (http's, suite's) read it */
}

/* on_signal for sig (no SA_RESTART: a wait wakes up); the handler before into old. */
static void catch_one(int sig, struct sigaction *old)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, old);
}

void cli_stop_catch(struct sigaction *old_int, struct sigaction *old_term)
{
    stop = 0;
    catch_one(SIGINT, old_int);
    catch_one(SIGTERM, old_term);
}

void cli_stop_catch_sigint(struct sigaction *old_int)
{
    stop = 0;
    catch_one(SIGINT, old_int);
}

void cli_stop_restore(const struct sigaction *old_int, const struct sigaction *old_term)
{
    sigaction(SIGINT, old_int, NULL);
    sigaction(SIGTERM, old_term, NULL);
}

const volatile sig_atomic_t *cli_stop_flag(void)
{
    return &stop;
}

int cli_stopped(void)
{
    return stop != 0;
}
