/* service/src/output.h -- how CLI commands print a result: `-o json|yaml|table|wide`
 * (`--output`, and `--format` as its older name) and `--pretty`.
 *
 * json is one line by default, byte for byte what the server would send, or
 * indented by two spaces with --pretty; yaml is block-style YAML (yaml_out.h);
 * table is for people, and wide is the table with more columns. Each command
 * says which of them it has. */
#ifndef SVC_OUTPUT_H
#define SVC_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <getopt.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "dc/common.h"

enum svc_output { SVC_OUTPUT_JSON, SVC_OUTPUT_YAML, SVC_OUTPUT_TABLE, SVC_OUTPUT_WIDE };

#define SVC_OUTPUT_BIT(o) (1u << (o))
/* Commands with a document and a table. */
#define SVC_OUTPUT_TABLES                                                                          \
    (SVC_OUTPUT_BIT(SVC_OUTPUT_JSON) | SVC_OUTPUT_BIT(SVC_OUTPUT_YAML) |                           \
     SVC_OUTPUT_BIT(SVC_OUTPUT_TABLE))
/* ... and a wide table too. */
#define SVC_OUTPUT_ALL (SVC_OUTPUT_TABLES | SVC_OUTPUT_BIT(SVC_OUTPUT_WIDE))

/* The getopt_long entries of the output flags: -o/--output and --format set
 * 'o', --pretty sets 'p'. */
#define SVC_OUTPUT_OPTIONS                                                                         \
    {"output", required_argument, NULL, 'o'}, {"format", required_argument, NULL, 'o'},            \
    {                                                                                              \
        "pretty", no_argument, NULL, 'p'                                                           \
    }

/* What the output flags of a command asked for. */
struct svc_output_opts {
    enum svc_output format;
    bool pretty;
};

/* Apply option `c` of SVC_OUTPUT_OPTIONS ('o' with `arg`, or 'p') for command
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

/* Parse the value of -o for command `cmd` among the formats in `allowed`. On
 * failure says what is wrong on stderr ("recommend: -o must be json, yaml,
 * table or wide") and returns false (a usage error). */
bool svc_output_parse(const char *cmd, const char *arg, unsigned allowed, enum svc_output *out);

/* Write `doc` (borrowed) to `fp` as JSON (one line, or indented by two spaces
 * when `pretty`) or YAML, ending in a newline. DC_ENOMEM when out of memory,
 * DC_EIO when a write failed. */
enum dc_status svc_output_document(FILE *fp, const cJSON *doc, enum svc_output fmt, bool pretty);

/* JSON text (`len` bytes) printed in `fmt`: as it is for compact JSON, otherwise
 * parsed and printed as svc_output_document does. DC_EPARSE when it is not
 * JSON, DC_ENOMEM or DC_EIO as svc_output_document. */
enum dc_status svc_output_text(FILE *fp, const char *text, size_t len, enum svc_output fmt,
                               bool pretty);

#endif /* SVC_OUTPUT_H */
