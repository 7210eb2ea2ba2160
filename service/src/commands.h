/* service/src/commands.h -- the subcommands of the accel-advisor executable.
 * Each returns the process exit status: 0 success, 1 failure (invalid input,
 * rule errors), 2 usage or I/O error. */
#ifndef SVC_COMMANDS_H
#define SVC_COMMANDS_H

int cmd_recommend(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_logic(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_probe(int argc, char **argv);

#endif
