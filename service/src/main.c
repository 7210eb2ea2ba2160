/* service/src/main.c -- accel-advisor: one executable, several subcommands. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"recommend", cmd_recommend, "recommend accelerators for a workload (JSON file or -)"},
    {"check", cmd_check, "lint a rule set and catalog directory"},
    {"logic", cmd_logic, "evaluate JSONLogic expressions (one, or --jsonl in bulk)"},
    {"version", cmd_version, "print the version and the embedded rule set version"},
    {"serve", cmd_serve, "serve the HTTP API (openapi.yaml) on libmicrohttpd"},
    {"validate", cmd_validate, "check a workload against the contract's Workload schema"},
    {"probe", cmd_probe, "list the accelerators attached to this host (sysfs, NVML, /dev)"},
    {"calibrate", cmd_calibrate, "compare the sizing model with published runs"},
};

static void usage(FILE *fp)
{
    fprintf(fp, "usage: accel-advisor COMMAND [OPTIONS] [ARGS]\n\n"
                "Which accelerator should this ML workload run on, and why?\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(fp, "\nRun `accel-advisor COMMAND --help` for the options of a command.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0)
        return cmd_version(1, argv + 1);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    }
    fprintf(stderr, "accel-advisor: unknown command \"%s\"\n\n", argv[1]);
    usage(stderr);
    return 2;
}
