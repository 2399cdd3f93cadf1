/* linkage: how this teebench was linked -- against shared libraries (the ordinary
 * build, build/teebench) or self-contained (build/teebench-static from `make static`:
 * OpenSSL, SQLite, jansson, Lua, zlib and glibc inside, no shared object at all) --
 * and what follows for the self-contained one.
 *
 * A statically linked glibc program must not load a shared object built for another
 * glibc: one that does aborts ("_dl_call_libc_early_init: Assertion `sym != NULL'
 * failed", measured in a Debian 11 root with a glibc 2.36 build). Two things would
 * load one: base/curl's dlopen of libcurl.so.4, which therefore reports libcurl
 * unavailable in the self-contained build, and glibc's name service switch, which
 * loads the modules /etc/nsswitch.conf names (libnss_systemd, libnss_sss,
 * libnss_mdns4_minimal ...) for a name not found earlier in the list.
 * tb_linkage_nss_builtin points the passwd, group and hosts lookups at the sources
 * compiled into libc.a instead: /etc/passwd, /etc/group, /etc/hosts and DNS through
 * /etc/resolv.conf.
 *
 * The answer is read from the program's own ELF headers (a program interpreter named
 * or not), so it holds however the program was started. No state here. */
#ifndef TB_BASE_LINKAGE_H
#define TB_BASE_LINKAGE_H

#include "base/err.h"

/* 1 when this program is self-contained (statically linked: no program interpreter,
   no shared library), 0 when it was linked against shared libraries. */
int tb_linkage_static(void);

/* In the self-contained build: passwd and group from files only, hosts from files then
   DNS, whatever /etc/nsswitch.conf says (glibc's __nss_configure_lookup), so that no NSS
   module is ever loaded; users known only to LDAP, sssd or systemd-homed are then not
   found. Does nothing in the ordinary build. Call it first in main, before any lookup.
   0, or -1 with err. */
int tb_linkage_nss_builtin(tb_err *err);

#endif
