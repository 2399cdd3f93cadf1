/* cli/json: the one envelope of every document a command prints with --json.
 *
 *   {"schema": "teebench-<command>/<version>", "teebench": "<program version>",
 *    "env": <teebench env --json of this machine, or null>, ...the command's members}
 *
 * The command's own members follow the three envelope members in the order the
 * command added them. Reals are printed with 15 significant digits, the most a
 * double holds without binary noise (0.054541, not 0.054540999999999999), and
 * trailing zeros dropped. A command that fails with --json still prints one
 * document: the envelope with "error": "<the error line's text>". */
#ifndef TB_CLI_JSON_H
#define TB_CLI_JSON_H

#include <jansson.h>

/* Digits of a real in every --json document. */
#define CLI_JSON_REAL_DIGITS 15

/* A new envelope for schema with body's members moved in after schema, teebench and
 * env (body is consumed: its reference is dropped, also on failure; NULL body: an
 * envelope alone). with_env = 0 leaves "env" null (a command whose body already
 * describes the machine). NULL when out of memory. */
json_t *cli_json_envelope(const char *schema, json_t *body, int with_env);

/* Prints doc and a newline to stdout (consumes doc) and flushes. Returns 0, or an
 * exit code of 1 after an error line naming cmd ("writing JSON: ..."). */
int cli_json_print(const char *cmd, json_t *doc);

/* Prints a JSON object as "name value" lines, the values in a column width characters
   from the indent; nested objects as "name:" with their members indented by 2 more;
   arrays of strings one per line in the value column ("(none)" when empty); integers,
   strings and booleans (yes/no). Other values are left out. To stdout. */
void cli_json_print_text(const json_t *o, int indent, int width);

/* A failure in --json mode: prints the usual error line on stderr (as cli_fail_code)
 * and the envelope of schema with "error": the same text on stdout. Returns code. */
int cli_json_fail(int code, const char *cmd, const char *schema, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
