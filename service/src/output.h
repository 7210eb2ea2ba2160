/* service/src/output.h -- how CLI commands print a result, as kubectl's habits
 * go: `-o json|yaml|table|wide|name|jsonpath=TEMPLATE` (`--output`, and
 * `--format` as its older name), `--pretty` and `--no-headers`.
 *
 * json is one line, byte for byte what the server would send, when stdout is
 * not a terminal; indented by two spaces on a terminal or with --pretty. yaml
 * is block-style YAML (yaml_out.h); table is for people and fits the
 * terminal's width (svc_output_columns), wide is the table with every column;
 * name is one identifier a line; jsonpath=TEMPLATE prints the fields the
 * template picks out (jsonpath.h). Each command says which of them it has. */
#ifndef SVC_OUTPUT_H
#define SVC_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <getopt.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "dc/common.h"

enum svc_output {
    SVC_OUTPUT_JSON,
    SVC_OUTPUT_YAML,
    SVC_OUTPUT_TABLE,
    SVC_OUTPUT_WIDE,
    SVC_OUTPUT_NAME,
    SVC_OUTPUT_JSONPATH
};

#define SVC_OUTPUT_BIT(o) (1u << (o))
/* Commands with a document (JSON, YAML, fields of it) and a table. */
#define SVC_OUTPUT_TABLES                                                                          \
    (SVC_OUTPUT_BIT(SVC_OUTPUT_JSON) | SVC_OUTPUT_BIT(SVC_OUTPUT_YAML) |                           \
     SVC_OUTPUT_BIT(SVC_OUTPUT_TABLE) | SVC_OUTPUT_BIT(SVC_OUTPUT_JSONPATH))
/* ... and a wide table too. */
#define SVC_OUTPUT_ALL (SVC_OUTPUT_TABLES | SVC_OUTPUT_BIT(SVC_OUTPUT_WIDE))
/* ... and -o name: commands that list things with names (recommend, prices show). */
#define SVC_OUTPUT_NAMED (SVC_OUTPUT_ALL | SVC_OUTPUT_BIT(SVC_OUTPUT_NAME))

/* The getopt_long entries of the output flags: -o/--output and --format set
 * 'o', --pretty sets 'p', --no-headers 'H'. */
#define SVC_OUTPUT_OPTIONS                                                                         \
    {"output", required_argument, NULL, 'o'}, {"format", required_argument, NULL, 'o'},            \
        {"pretty", no_argument, NULL, 'p'},                                                        \
    {                                                                                              \
        "no-headers", no_argument, NULL, 'H'                                                       \
    }

/* What the output flags of a command asked for. */
struct svc_output_opts {
    enum svc_output format;
    bool pretty;          /* --pretty: indented JSON even when stdout is no terminal */
    bool no_headers;      /* --no-headers: a table's rows alone */
    const char *jsonpath; /* -o jsonpath=TEMPLATE: the template (borrowed from argv) */
};

/* The width a table fits in: stdout's terminal's (ioctl TIOCGWINSZ) when it is
 * one, else $COLUMNS when that is a number from 20 to 10,000, else 80. */
unsigned svc_output_columns(void);

/* Whether JSON is to be indented: --pretty, or stdout is a terminal. */
bool svc_output_pretty(const struct svc_output_opts *o);

/* Apply option `c` of SVC_OUTPUT_OPTIONS ('o' with `arg`, 'p' or 'H') for command
 * `cmd` among the formats in `allowed`. Returns false after a usage message on
 * stderr (a format that is not allowed). */
bool svc_output_option(const char *cmd, int c, const char *arg, unsigned allowed,
                       struct svc_output_opts *o);

/* The whole command line of a command whose flags are SVC_OUTPUT_OPTIONS and
 * --help (`options`, its getopt_long table) and that takes at most `max_args`
 * arguments (from argv[optind] on): returns -1 when the command is to run (*o
 * set; `o->format` holds the default on entry), else the exit status: 0 after
 * --help, 2 after a usage error, each with `help` printed (to stdout, or
 * stderr). */
int svc_output_command_line(const char *cmd, int argc, char **argv, const struct option *options,
                            unsigned allowed, int max_args, void (*help)(FILE *),
                            struct svc_output_opts *o);

/* The names of the formats in `allowed` joined by `sep` ("json|yaml|table") into
 * buf. */
void svc_output_names(unsigned allowed, const char *sep, char *buf, size_t len);

/* Parse the value of -o for command `cmd` among the formats in `allowed` into
 * *o (a jsonpath template is compiled to check it). On failure says what is
 * wrong on stderr ("recommend: -o must be json, yaml, table, wide, name or
 * jsonpath=TEMPLATE", with "did you mean" when a format is near) and returns
 * false (a usage error). */
bool svc_output_parse(const char *cmd, const char *arg, unsigned allowed,
                      struct svc_output_opts *o);

/* Write `doc` (borrowed) to `fp` as *o asks: JSON (one line, or indented by
 * two spaces, svc_output_pretty), YAML or the fields of -o jsonpath, ending in
 * a newline. DC_ENOMEM when out of memory, DC_EIO when a write failed,
 * DC_EINVAL (message on stderr, after `cmd`) when the template selects what
 * is not there. */
enum dc_status svc_output_document(FILE *fp, const char *cmd, const cJSON *doc,
                                   const struct svc_output_opts *o);

/* JSON text (`len` bytes) printed as *o asks: as it is for compact JSON,
 * otherwise parsed and printed as svc_output_document does. DC_EPARSE when it
 * is not JSON, otherwise as svc_output_document. */
enum dc_status svc_output_text(FILE *fp, const char *cmd, const char *text, size_t len,
                               const struct svc_output_opts *o);

#endif /* SVC_OUTPUT_H */
