/* serve/internal: the serve module's entry points that only its unit tests call
 * (the nginx.conf text, which tb_nginx_start writes). Other modules use the serve headers; a
 * name moves back there when another module needs it. */
#ifndef TB_SERVE_INTERNAL_H
#define TB_SERVE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "serve/nginx.h"

/* ---- serve/nginx.h ---- */
/* The nginx.conf text for o (appended to out, caller-owned). Pure: touches no file. */
int tb_nginx_config(const tb_nginx_opts *o, tb_buf *out, tb_err *err);

#endif
