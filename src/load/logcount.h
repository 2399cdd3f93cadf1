/* logcount: counts the lines of a (growing) log file, for `teebench http
 * --server-log`: the difference of two counts is the number of requests the
 * server logged in between. Streams the file in 64 KiB blocks (no size limit,
 * constant memory). A final line without '\n' is not counted (it is still being
 * written). */
#ifndef TB_LOAD_LOGCOUNT_H
#define TB_LOAD_LOGCOUNT_H

#include <stdint.h>

#include "base/err.h"

int tb_log_count_lines(const char *path, uint64_t *lines, tb_err *err);

#endif
