/* service/src/server.h -- the HTTP server of `accel-advisor serve` (libmicrohttpd).
 *
 * Lifecycle, driven by cmd_serve.c:
 *   svc_server_start()  load the contract, the rule set and the API keys, bind,
 *                       start the epoll thread pool and the rules watcher;
 *   svc_server_reload() on SIGHUP (the watcher calls it on directory changes);
 *   svc_server_drain()  on SIGTERM/SIGINT: stop accepting, let in-flight
 *                       requests finish (up to the grace period);
 *   svc_server_free()   stop the threads and release everything.
 * Only cmd_serve.c's main thread calls these; request threads never do. */
#ifndef SVC_SERVER_H
#define SVC_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "dc/common.h"

typedef struct svc_server svc_server; /* opaque */

/* Start serving with `cfg` (copied). On DC_OK *out is owned by the caller
 * (svc_server_free); the start-up log line says where it listens. Errors: those
 * of the contract, the API keys, the rule set, the probe, the fleet and the
 * listeners (DC_EIO, DC_EPARSE, DC_ENOMEM, ...), with the reason in err->msg;
 * nothing is left running. */
DC_NODISCARD enum dc_status svc_server_start(const struct svc_config *cfg, svc_server **out,
                                             struct dc_error *err);

/* Load the rule set again and swap it in atomically; `trigger` ("signal",
 * "watch") is logged. A set that fails to load is logged and counted and the
 * current one keeps serving. DC_OK when a new set (or an identical one)
 * loaded; errors: the load's, or DC_EIO (the files changed while read), said
 * in `err` (may be NULL). Thread-safe; reloads are serialised. */
enum dc_status svc_server_reload(svc_server *s, const char *trigger, struct dc_error *err);

/* The last reload asked by a signal ("signal", "signal_retry") did not load
 * because a rule file was open for writing (svc_rules_being_written) or the
 * files changed while they were read: the signal loop tries again
 * ("signal_retry") until it loads or fails on its own. */
bool svc_server_reload_deferred(svc_server *s);

/* Stop accepting connections, then wait until no request is in flight or the
 * configured grace period ends. Returns the number of requests still in flight
 * when it returned (0 after a clean drain). */
long svc_server_drain(svc_server *s);

/* Stop every thread and free the server. NULL is a no-op. */
void svc_server_free(svc_server *s);

#endif /* SVC_SERVER_H */
