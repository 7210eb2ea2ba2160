/* service/src/commands.h -- the subcommands of the accel-advisor executable.
 * Each returns the process exit status: 0 success, 1 failure (invalid input,
 * rule errors), 2 usage or I/O error. */
#ifndef SVC_COMMANDS_H
#define SVC_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int cmd_recommend(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_logic(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);

/* --format json|table of the commands that print a result: sets *table, or
 * says what is wrong on stderr and returns false (a usage error). */
static inline bool cmd_parse_format(const char *cmd, const char *arg, bool *table)
{
    if (strcmp(arg, "json") == 0 || strcmp(arg, "table") == 0) {
        *table = arg[0] == 't';
        return true;
    }
    fprintf(stderr, "%s: --format must be json or table\n", cmd);
    return false;
}

#endif
