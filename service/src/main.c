/* service/src/main.c -- accel-advisor: one executable, several subcommands. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "output.h"
#include "suggest.h"

const struct svc_command svc_commands[] = {
    {"recommend", cmd_recommend, "recommend accelerators for a workload (JSON or YAML file, or -)",
     cmd_recommend_options, SVC_OUTPUT_NAMED, SVC_ARGS_DOCUMENT, NULL},
    {"check", cmd_check, "lint a rule set and catalog directory", cmd_check_options,
     SVC_OUTPUT_TABLES, SVC_ARGS_DIR, NULL},
    {"logic", cmd_logic, "evaluate JSONLogic expressions (one, or --jsonl in bulk)",
     cmd_logic_options, 0, SVC_ARGS_NONE, NULL},
    {"version", cmd_version, "print the version, the build and the embedded rule set version",
     cmd_version_options, SVC_OUTPUT_TABLES, SVC_ARGS_NONE, NULL},
    {"serve", cmd_serve, "serve the HTTP API (openapi.yaml) on libmicrohttpd", NULL, 0,
     SVC_ARGS_NONE, NULL},
    {"agent", cmd_agent, "the node agent: serve this host's probe on /metrics for Prometheus", NULL,
     0, SVC_ARGS_NONE, NULL},
    {"validate", cmd_validate, "check a workload against the contract's Workload schema",
     cmd_validate_options, 0, SVC_ARGS_DOCUMENT, NULL},
    {"probe", cmd_probe, "list the accelerators attached to this host (sysfs, NVML, /dev)",
     cmd_probe_options, SVC_OUTPUT_ALL, SVC_ARGS_NONE, NULL},
    {"calibrate", cmd_calibrate, "compare the sizing model with published runs",
     cmd_calibrate_options, 0, SVC_ARGS_DOCUMENT, NULL},
    {"prices", cmd_prices, "show price coverage and prices, or import a public price catalog",
     cmd_prices_options, SVC_OUTPUT_NAMED, SVC_ARGS_DOCUMENT, cmd_prices_subcommands},
    {"completion", cmd_completion, "print a shell completion script (bash)", cmd_completion_options,
     0, SVC_ARGS_SHELL, NULL},
};
const size_t svc_command_count = sizeof(svc_commands) / sizeof(svc_commands[0]);

static void usage(FILE *fp)
{
    fprintf(fp, "usage: accel-advisor COMMAND [OPTIONS] [ARGS]\n\n"
                "Which accelerator should this ML workload run on, and why?\n\ncommands:\n");
    for (size_t i = 0; i < svc_command_count; i++)
        fprintf(fp, "  %-10s %s\n", svc_commands[i].name, svc_commands[i].summary);
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
    for (size_t i = 0; i < svc_command_count; i++) {
        if (strcmp(argv[1], svc_commands[i].name) == 0)
            return svc_commands[i].run(argc - 1, argv + 1);
    }
    const char *names[sizeof(svc_commands) / sizeof(svc_commands[0])];
    for (size_t i = 0; i < svc_command_count; i++)
        names[i] = svc_commands[i].name;
    const char *near = svc_suggest(argv[1], names, svc_command_count);
    fprintf(stderr, "accel-advisor: unknown command \"%s\"\n", argv[1]);
    if (near != NULL) {
        /* The suggestion alone, not the whole list: it is most likely what was meant. */
        fprintf(stderr, "Did you mean \"accel-advisor %s\"?\n", near);
        return 2;
    }
    fputc('\n', stderr);
    usage(stderr);
    return 2;
}
