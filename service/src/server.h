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

typedef struct svc_server svc_server; /* opaque */

/* Start serving with `cfg` (copied). On success returns 0 and *out is owned by
 * the caller (svc_server_free); the start-up log line says where it listens.
 * On failure returns -1 with the reason in why (nothing is left running). */
int svc_server_start(const struct svc_config *cfg, svc_server **out, char *why, size_t whylen);

/* The bound port (the real one when the configuration asked for port 0). */
uint16_t svc_server_port(const svc_server *s);

/* Load the rule set again and swap it in atomically; `trigger` ("signal",
 * "watch") is logged. A set that fails to load is logged and counted and the
 * current one keeps serving. Returns true when a new set (or an identical one)
 * loaded. Thread-safe; reloads are serialised. */
bool svc_server_reload(svc_server *s, const char *trigger);

/* Stop accepting connections, then wait until no request is in flight or the
 * configured grace period ends. Returns the number of requests still in flight
 * when it returned (0 after a clean drain). */
long svc_server_drain(svc_server *s);

/* Stop every thread and free the server. NULL is a no-op. */
void svc_server_free(svc_server *s);

#endif /* SVC_SERVER_H */
