/* service/src/cmd_completion.c -- `accel-advisor completion bash`: a bash
 * completion script made from the table of commands it is given (the one in
 * command_table.c, which runs it: so this file reads no table of its own and
 * nothing here calls back up), their own option tables (commands.h) and
 * the serve and agent settings (config.h), so it offers exactly the flags the binary
 * takes: commands, flags, the -o formats of each command, the words a setting
 * accepts, directories for DIR values and files for FILE values and
 * documents. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "config.h"
#include "output.h"

const struct option cmd_completion_options[] = {{"help", no_argument, NULL, 'h'},
                                                {NULL, 0, NULL, 0}};

static void help(FILE *fp)
{
    fprintf(fp, "usage: accel-advisor completion bash\n\n"
                "Prints a bash completion script for accel-advisor. Load it into this shell:\n\n"
                "  source <(accel-advisor completion bash)\n\n"
                "or install it for every shell:\n\n"
                "  accel-advisor completion bash > /etc/bash_completion.d/accel-advisor\n\n"
                "exit status: 0 ok, 2 usage (bash is the only shell)\n");
}

/* The flag of serve setting i ("max-body-bytes") into buf. */
static void setting_flag(size_t i, char *buf, size_t len)
{
    snprintf(buf, len, "%s", svc_config_setting_name(i));
    for (char *p = buf; *p != '\0'; p++)
        *p = *p == '_' ? '-' : *p;
}

/* How the value of flag `name` is completed: a compgen action ("-d", "-f") or
 * a word list ("-W 'a b'") into buf; "" when any value goes. The serve
 * settings say it with their meta ("DIR", "FILE", "auto|off|PATH"); the
 * probe flags of recommend and probe share their names and metas. */
static void value_action(const char *name, unsigned outputs, char *buf, size_t len)
{
    char words[128] = "";
    buf[0] = '\0';
    if (outputs != 0 && (strcmp(name, "output") == 0 || strcmp(name, "format") == 0)) {
        svc_output_names(outputs, " ", words, sizeof(words));
        /* "jsonpath=TEMPLATE" completes to "jsonpath=", the template to write. */
        char *meta = strstr(words, "=TEMPLATE");
        if (meta != NULL)
            memmove(meta + 1, meta + 9, strlen(meta + 9) + 1);
        snprintf(buf, len, "-W '%s'", words);
        return;
    }
    if (strcmp(name, "schema") == 0 || strcmp(name, "config") == 0) {
        snprintf(buf, len, "-f");
        return;
    }
    for (size_t i = 0; i < svc_config_setting_count(); i++) {
        char flag[64];
        setting_flag(i, flag, sizeof(flag));
        if (strcmp(flag, name) != 0)
            continue;
        const char *meta = svc_config_setting_meta(i);
        if (strcmp(meta, "DIR") == 0)
            snprintf(buf, len, "-d");
        else if (strcmp(meta, "FILE") == 0)
            snprintf(buf, len, "-f");
        else if (strcmp(meta, "BOOL") == 0)
            snprintf(buf, len, "-W 'true false'");
        else if (strchr(meta, '|') != NULL) {
            /* The lower-case alternatives are words; PATH adds files. */
            snprintf(words, sizeof(words), "%s", meta);
            for (char *p = words; *p != '\0'; p++)
                *p = *p == '|' ? ' ' : *p;
            char *path = strstr(words, " PATH");
            if (path != NULL)
                *path = '\0';
            snprintf(buf, len, "-W '%s'%s", words, path != NULL ? " -f" : "");
        }
        return;
    }
}

/* One `case` branch: completing the value of --`flag` of command `cmd`, given
 * as the next word or after "=" (`optional`: only after "=", as getopt_long
 * reads an optional value). */
static void value_case(FILE *fp, const char *cmd, const char *flag, unsigned outputs, bool optional)
{
    char action[160];
    value_action(flag, outputs, action, sizeof(action));
    fprintf(fp, "    \"%s --%s=\"", cmd, flag);
    if (!optional)
        fprintf(fp, " | \"%s --%s\"", cmd, flag);
    if (strcmp(flag, "output") == 0)
        fprintf(fp, " | \"%s -o\"", cmd);
    fprintf(fp, ") _accel_advisor_values %s; return 0 ;;\n", action);
}

/* A `case` branch for every flag of `cmd` that takes a value. */
static void value_cases(FILE *fp, const struct svc_command *cmd)
{
    char flag[64];
    enum svc_config_scope scope = SVC_SCOPE_SERVE; /* what a command without options reads */
    if (cmd->options == NULL) {
        (void)svc_config_command_scope(cmd->name, &scope);
        for (size_t i = 0; i < svc_config_setting_count(); i++) {
            if (!svc_config_setting_in_scope(i, scope))
                continue;
            setting_flag(i, flag, sizeof(flag));
            value_case(fp, cmd->name, flag, 0, strcmp(svc_config_setting_meta(i), "BOOL") == 0);
        }
        value_case(fp, cmd->name, "config", 0, false);
        return;
    }
    for (const struct option *o = cmd->options; o->name != NULL; o++) {
        if (o->has_arg != no_argument)
            value_case(fp, cmd->name, o->name, cmd->outputs, o->has_arg == optional_argument);
    }
}

/* The flags of `cmd`, space-separated. */
static void flags(FILE *fp, const struct svc_command *cmd)
{
    char flag[64];
    enum svc_config_scope scope = SVC_SCOPE_SERVE; /* what a command without options reads */
    if (cmd->options == NULL) {
        (void)svc_config_command_scope(cmd->name, &scope);
        for (size_t i = 0; i < svc_config_setting_count(); i++) {
            if (!svc_config_setting_in_scope(i, scope))
                continue;
            setting_flag(i, flag, sizeof(flag));
            fprintf(fp, "--%s ", flag);
        }
        fputs("--config --help", fp);
        return;
    }
    for (const struct option *o = cmd->options; o->name != NULL; o++)
        fprintf(fp, "%s--%s", o == cmd->options ? "" : " ", o->name);
    if (cmd->outputs != 0)
        fputs(" -o", fp);
}

static void print_bash(FILE *fp, const struct svc_command *cmds, size_t n)
{
    static const char *const args[] = {[SVC_ARGS_NONE] = "none",
                                       [SVC_ARGS_DOCUMENT] = "document",
                                       [SVC_ARGS_DIR] = "dir",
                                       [SVC_ARGS_SHELL] = "shell"};
    fputs("# bash completion for accel-advisor, made by `accel-advisor completion bash`.\n"
          "# Load it with: source <(accel-advisor completion bash)\n"
          "_accel_advisor_values() {\n"
          "    [ $# -gt 0 ] && COMPREPLY=($(compgen \"$@\" -- \"$cur\"))\n"
          "}\n"
          "_accel_advisor() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    local cmd=${COMP_WORDS[1]} opts='' args=none subs=''\n"
          "    COMPREPLY=()\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "        COMPREPLY=($(compgen -W '",
          fp);
    for (size_t i = 0; i < n; i++)
        fprintf(fp, "%s ", cmds[i].name);
    fputs("help --help --version' -- \"$cur\"))\n"
          "        return 0\n"
          "    fi\n"
          "    # --flag=value: bash splits the word at '='; prev becomes \"--flag=\".\n"
          "    if [ \"$cur\" = = ]; then\n"
          "        cur=''\n"
          "        prev=\"$prev=\"\n"
          "    elif [ \"$prev\" = = ] && [ \"$COMP_CWORD\" -ge 2 ]; then\n"
          "        prev=\"${COMP_WORDS[COMP_CWORD-2]}=\"\n"
          "    fi\n"
          "    case \"$cmd $prev\" in\n",
          fp);
    for (size_t i = 0; i < n; i++)
        value_cases(fp, &cmds[i]);
    fputs("    esac\n"
          "    case \"$cmd\" in\n",
          fp);
    for (size_t i = 0; i < n; i++) {
        fprintf(fp, "    %s) opts='", cmds[i].name);
        flags(fp, &cmds[i]);
        fprintf(fp, "'; args=%s", args[cmds[i].args]);
        /* The subcommands, when the word before is the command's name. */
        for (const char *const *w = cmds[i].subcommands; w != NULL && *w != NULL; w++)
            fprintf(fp, "%s%s", w == cmds[i].subcommands ? "; subs='" : " ", *w);
        fprintf(fp, "%s ;;\n", cmds[i].subcommands != NULL ? "'" : "");
    }
    fputs("    esac\n"
          "    if [[ $cur == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "        return 0\n"
          "    fi\n"
          "    if [ -n \"$subs\" ] && [ \"$prev\" = \"$cmd\" ]; then\n"
          "        COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n"
          "        return 0\n"
          "    fi\n"
          "    case $args in\n"
          "    document) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
          "    dir) COMPREPLY=($(compgen -d -- \"$cur\")) ;;\n"
          "    shell) COMPREPLY=($(compgen -W bash -- \"$cur\")) ;;\n"
          "    esac\n"
          "    return 0\n"
          "}\n"
          "complete -o filenames -F _accel_advisor accel-advisor\n",
          fp);
}

int svc_completion_run(int argc, char **argv, const struct svc_command *cmds, size_t n)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        help(stdout);
        return 0;
    }
    if (argc != 2 || strcmp(argv[1], "bash") != 0) {
        if (argc == 2)
            fprintf(stderr, "completion: \"%s\" is not a shell this command knows (bash)\n",
                    argv[1]);
        help(stderr);
        return 2;
    }
    print_bash(stdout, cmds, n);
    return fflush(stdout) == 0 ? 0 : 2;
}
