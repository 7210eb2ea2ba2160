/* service/src/main.c -- accel-advisor: one executable, several subcommands
 * (the table of them: command_table.c). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "suggest.h"

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
    const char *names[SVC_COMMANDS_MAX];
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
