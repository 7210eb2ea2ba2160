/* service/src/commands.h -- the subcommands of the accel-advisor executable.
 * Each returns the process exit status: 0 success, 1 failure (invalid input,
 * rule errors), 2 usage or I/O error. */
#ifndef SVC_COMMANDS_H
#define SVC_COMMANDS_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

int cmd_recommend(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_logic(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_prices(int argc, char **argv);
int cmd_agent(int argc, char **argv);

/* The long-running commands (serve, agent; cmd_serve.c) take their signals
 * synchronously. svc_signals_block blocks SIGTERM, SIGINT, SIGHUP, SIGUSR1 and
 * SIGUSR2 in the calling thread, so in every thread started after it, fills
 * *set with them and ignores SIGPIPE (a client that goes away must not kill the
 * process); svc_signals_wait returns the next of them but SIGUSR1 and SIGUSR2,
 * which it logs and ignores, or 0 once `timeout_ms` (-1: none) passed without
 * one. SIGIO is ignored too (svc_rules_being_written). */
void svc_signals_block(sigset_t *set);
int svc_signals_wait(const sigset_t *set, int timeout_ms);
/* The signal loop's wait before it tries a deferred SIGHUP reload again
 * (svc_server_reload_deferred): -1 when none is deferred, else the debounce,
 * at least 100 ms. */
struct svc_config;
typedef struct svc_server svc_server;
int svc_reload_retry_ms(svc_server *s, const struct svc_config *cfg);

/* The option tables of the commands (getopt_long form, ended by an entry whose
 * name is NULL): each command parses its flags with its own table, and the
 * shell completion is made from the same tables. */
extern const struct option cmd_recommend_options[];
extern const struct option cmd_check_options[];
extern const struct option cmd_logic_options[];
extern const struct option cmd_version_options[];
extern const struct option cmd_validate_options[];
extern const struct option cmd_probe_options[];
extern const struct option cmd_completion_options[];
extern const struct option cmd_calibrate_options[];
extern const struct option cmd_prices_options[];
/* The subcommands of `prices` (NULL-terminated): its "did you mean" and the
 * shell completion read the same list. */
extern const char *const cmd_prices_subcommands[];

/* What a command's positional arguments are (for shell completion). */
enum svc_args {
    SVC_ARGS_NONE,
    SVC_ARGS_DOCUMENT, /* a JSON or YAML file, or - */
    SVC_ARGS_DIR,      /* a directory */
    SVC_ARGS_SHELL     /* a shell name */
};

struct svc_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    /* NULL for serve and agent: their settings are in config.h
     * (svc_config_command_scope). */
    const struct option *options;
    unsigned outputs; /* the -o formats (output.h); 0 when it has none */
    enum svc_args args;
    /* The words its first argument may be (NULL-terminated), or NULL. */
    const char *const *subcommands;
};

/* Every command, in the order `accel-advisor --help` lists them
 * (command_table.c). */
extern const struct svc_command svc_commands[];
extern const size_t svc_command_count;
/* At most this many (command_table.c asserts it; main.c's "did you mean"
 * lists their names in an array of this size). */
#define SVC_COMMANDS_MAX 32

/* `accel-advisor completion ARGS`: the bash completion script of the `n`
 * commands `cmds` (cmd_completion.c); the command's exit status. */
int svc_completion_run(int argc, char **argv, const struct svc_command *cmds, size_t n);

#endif
