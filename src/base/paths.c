/* paths: XDG base directories, one rule (see paths.h). Invariant: reads the
 * environment, writes only out and err. */
#include "base/internal.h"
#include "base/paths.h"

#include <stdio.h>
#include <stdlib.h>

static const struct {
    const char *var, *home_default;
} KINDS[] = {
    [TB_PATH_DATA] = {"XDG_DATA_HOME", ".local/share"},
    [TB_PATH_CACHE] = {"XDG_CACHE_HOME", ".cache"},
    [TB_PATH_STATE] = {"XDG_STATE_HOME", ".local/state"},
    [TB_PATH_RUNTIME] = {"XDG_RUNTIME_DIR", ".local/state"},
};

const char *tb_path_var(tb_path_kind kind)
{
    return KINDS[kind].var;
}

int tb_path_dir(tb_path_kind kind, const char *sub, char *out, size_t len, tb_err *err)
{
    const char *xdg = getenv(KINDS[kind].var), *home = getenv("HOME");
    const char *sep = sub && *sub ? "/" : "", *rest = sub ? sub : "";
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(out, len, "%s%s%s", xdg, sep, rest);
    else if (home && home[0] == '/')
        n = snprintf(out, len, "%s/%s%s%s", home, KINDS[kind].home_default, sep, rest);
    else if (home && *home)
        return tb_errf(err, "HOME is not an absolute path: \"%s\"", home);
    else
        return tb_errf(err, "neither %s nor HOME is set", KINDS[kind].var);
    if (n < 0 || (size_t)n >= len)
        return tb_errf(err, "%s/...: path too long",
                       xdg && xdg[0] == '/' ? KINDS[kind].var : "HOME");
    return 0;
}
