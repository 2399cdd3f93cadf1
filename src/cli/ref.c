/* cli/ref: what a RUN|LABEL|FILE argument of compare, report and results names.
 * An existing path is read as a file (a result JSON or any importable file) and
 * is not stored; anything else is looked up in the results store (--db, then
 * TEEBENCH_DB, then the default path) as a run id, a label (its latest run) or a
 * unique id prefix. A lookup never creates a store: with none, the message says so. */
#include "cli/cli.h"

#include <sys/stat.h>

int cli_resolve_ref(const char *db, tb_store **store, const char *ref, tb_record **out, tb_err *err)
{
    struct stat st;
    if (stat(ref, &st) == 0)
        return tb_store_resolve(NULL, ref, out, NULL, err);
    if (!*store) {
        char path[4096];
        if (tb_store_path(db, path, sizeof path, err) < 0)
            return -1;
        if (stat(path, &st) != 0)
            return tb_errf(err, "%s: no such file, and no results store at %s to look it up in",
                           ref, path);
        if (tb_store_open(path, store, err) < 0)
            return -1;
    }
    return tb_store_resolve(*store, ref, out, NULL, err);
}
