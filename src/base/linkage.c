/* linkage: see linkage.h. The main program is the first object dl_iterate_phdr
 * reports (glibc documents that order, and a static glibc program reports itself);
 * a program linked against shared libraries has a PT_INTERP header naming the
 * dynamic loader, a self-contained one (-static or -static-pie) has none. */
#include "base/linkage.h"

#include <link.h>
#include <nss.h>

static int first_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    int *interp = ctx;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_INTERP)
            *interp = 1;
    return 1; /* the main program only */
}

int tb_linkage_static(void)
{
    int interp = 0;
    dl_iterate_phdr(first_object, &interp);
    return !interp;
}

int tb_linkage_nss_builtin(tb_err *err)
{
    if (!tb_linkage_static())
        return 0;
    static const char *const db[][2] = {
        {"passwd", "files"}, {"group", "files"}, {"hosts", "files dns"}};
    for (size_t i = 0; i < sizeof db / sizeof db[0]; i++)
        if (__nss_configure_lookup(db[i][0], db[i][1]) != 0)
            return tb_errf(err, "name service switch: %s: cannot be set to '%s'", db[i][0],
                           db[i][1]);
    return 0;
}
