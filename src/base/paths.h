/* paths: the one rule for teebench's per-user directories.
 *
 * A kind names an XDG base directory and its default under $HOME:
 *   TB_PATH_DATA     $XDG_DATA_HOME   else $HOME/.local/share  (results store, images)
 *   TB_PATH_CACHE    $XDG_CACHE_HOME  else $HOME/.cache        (collateral, sim state)
 *   TB_PATH_STATE    $XDG_STATE_HOME  else $HOME/.local/state
 *   TB_PATH_RUNTIME  $XDG_RUNTIME_DIR else $HOME/.local/state  (VM run dirs)
 * The rule, the same for every kind:
 * - the XDG variable is used when it is set to an absolute path; a relative value is
 *   ignored, as the XDG Base Directory specification says;
 * - else $HOME/<default>, when HOME is an absolute path; a HOME that is set but not
 *   absolute is refused (it would put files relative to the working directory);
 * - else (HOME unset or empty) there is no directory: an error, no guess from the
 *   password database.
 * XDG has no default for the runtime directory: teebench's is ~/.local/state,
 * which outlives a reboot (what lives there -- pid files, sockets -- is checked
 * for being alive before it is trusted).
 * Nothing here creates a directory or keeps state: the environment is read on
 * every call. */
#ifndef TB_BASE_PATHS_H
#define TB_BASE_PATHS_H

#include <stddef.h>

#include "base/err.h"

typedef enum tb_path_kind {
    TB_PATH_DATA,
    TB_PATH_CACHE,
    TB_PATH_STATE,
    TB_PATH_RUNTIME,
} tb_path_kind;

/* out = "<the kind's directory>/<sub>" (sub NULL or "": the directory itself).
 * -1 with err saying why: "neither XDG_DATA_HOME nor HOME is set", "HOME is not an
 * absolute path: \"x\"", or "...: path too long"; the caller adds what it wanted the
 * directory for (tb_err_wrap). */
int tb_path_dir(tb_path_kind kind, const char *sub, char *out, size_t len, tb_err *err);

#endif
