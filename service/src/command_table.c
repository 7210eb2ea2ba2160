/* service/src/command_table.c -- the subcommands of accel-advisor, in the order
 * `accel-advisor --help` lists them: what main.c dispatches on and what the
 * shell completion (cmd_completion.c) is made from. The completion is handed
 * this table rather than reading it, so calls run one way: main.c -> here ->
 * each command. */
#include "commands.h"
#include "output.h"

/* `accel-advisor completion`, given the table it completes. */
static int cmd_completion(int argc, char **argv)
{
    return svc_completion_run(argc, argv, svc_commands, svc_command_count);
}

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
_Static_assert(sizeof(svc_commands) / sizeof(svc_commands[0]) <= SVC_COMMANDS_MAX,
               "SVC_COMMANDS_MAX (commands.h) holds every command");
