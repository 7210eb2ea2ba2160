/* service/src/rulesrc.h -- where the service gets its rule set and its inputs. */
#ifndef SVC_RULESRC_H
#define SVC_RULESRC_H

#include <stdint.h>
#include <stdio.h>

#include "api/openapi.h"
#include "dc/ruleset.h"

/* Largest file or stdin document a CLI command reads (the server's default
 * body limit, so the CLI accepts exactly what the server would). */
#define SVC_MAX_INPUT_BYTES (1u << 20)

/* Load the rule set from `dir`, or the embedded default when `dir` is NULL.
 * Same contract as dc_ruleset_load_dir. */
enum dc_status svc_ruleset_load(const char *dir, dc_ruleset **out, struct dc_diags *diags);

/* An order-independent fingerprint of the rule directory's visible files (name,
 * size, mtime, inode, following symlinks); 0 when it cannot be read. The
 * reload compares it before and after a load, the watch between polls. */
uint64_t svc_rules_fingerprint(const char *dir);

/* Whether a process has one of the rule directory's visible regular files open
 * for writing now: its name is copied to `name` (`len` bytes). Told by taking a
 * read lease on it and giving it back at once (fcntl(2) F_SETLEASE: the kernel
 * refuses a read lease, EAGAIN, while the file is open for writing). A lease
 * needs the file's owner or CAP_LEASE, and a local file system: where it cannot
 * be taken, the file counts as not being written. The process must ignore
 * SIGIO (svc_signals_block), which a writer opening the file during the
 * lease's microseconds would send it. */
bool svc_rules_being_written(const char *dir, char *name, size_t len);

/* Print every diagnostic as "file:line: id: message", one per line. */
void svc_print_diags(FILE *fp, const struct dc_diags *diags);

/* Read `path` ("-" is stdin) up to `max` bytes into a NUL-terminated buffer
 * (owned by the caller, free()). DC_EIO (it cannot be opened or read),
 * DC_ELIMIT (over `max`) or DC_ENOMEM, the reason in *err. */
enum dc_status svc_read_input(const char *path, size_t max, char **out, size_t *len,
                              struct dc_error *err);

/* Read the regular file `path` of at most `max` bytes into a NUL-terminated
 * buffer (owned by the caller, free()), for the files the server reads on its
 * own (API keys, configuration, contract): anything else (a FIFO that never
 * gets a writer, /dev/zero, a directory) is refused at once, without blocking
 * or reading, and so is a file past `max`, before it is read. Errors:
 * dc_file_read_regular's (DC_EIO, DC_ELIMIT, DC_ENOMEM, DC_EINVAL), with a
 * message naming `path` in err->msg. */
DC_NODISCARD enum dc_status svc_read_regular_file(const char *path, size_t max, char **out,
                                                  size_t *len, struct dc_error *err);

#endif
