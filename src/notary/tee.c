/* notary/tee: placeholder until src/attest lands on main: every call fails
 * with a clear message (no fake quotes, no fake verification). */
#include "notary/tee.h"

#include <string.h>

int tb_notary_tee_open(const char *kind, const char *sim_dir, tb_quote_source *out, tb_err *err)
{
    (void)sim_dir;
    memset(out, 0, sizeof *out);
    return tb_errf(err, "--tee %s: the attest module is not built yet", kind);
}

void tb_notary_tee_close(tb_quote_source *src)
{
    (void)src;
}

int tb_notary_verifier_open(const tb_verifier_opts *o, tb_quote_verifier *out, tb_err *err)
{
    (void)o;
    memset(out, 0, sizeof *out);
    return tb_errf(err, "--verify: the attest module is not built yet");
}

void tb_notary_verifier_close(tb_quote_verifier *v)
{
    (void)v;
}
