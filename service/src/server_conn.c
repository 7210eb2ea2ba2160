/* service/src/server_conn.c -- connections: the listeners and the acceptor, the
 * registry of open connections and the reaper of requests past their deadline.
 *
 * libmicrohttpd, when it holds as many connections as its limit, stops polling
 * its listening socket, so new connections wait in the kernel's backlog with no
 * answer (with 4,700 idle clients a health check timed out). So the server
 * accepts itself, on one thread, and hands each connection to the daemon with
 * MHD_add_connection; past a listener's hard limit (max_connections plus its
 * margin) it writes a 503 with Retry-After and closes at once. Connections
 * between the limit and the hard limit are handed over, marked, and each of their
 * requests is answered 503 by the request handler. The count includes the
 * connections handed over that the daemon's threads have not started yet, so a
 * burst does not overshoot. The daemon's own limit is out of reach: libmicrohttpd
 * 0.9.75, refusing a connection handed to it at its limit, leaves a mutex locked
 * and that worker thread hangs with all its connections (a defect of the
 * library, seen with a burst past the limit).
 *
 * libmicrohttpd only has an idle timeout: a client sending a byte every 29 s
 * keeps a request going forever under a 30 s one. So every connection carries
 * the deadline of the request it is sending (request_timeout_s from its accept or
 * from the end of its previous response, cleared once the request is in); the
 * reaper thread shuts the socket of a connection past it down, and
 * libmicrohttpd, reading the end of the stream, closes it. The registry is
 * guarded by conns_mu; libmicrohttpd reports a connection closed before it closes
 * its socket, so the reaper never shuts down a descriptor that was reused. */
#define _GNU_SOURCE /* accept4, pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "api/problem.h"
#include "dc/clock.h"
#include "http.h"
#include "log.h"
#include "server_internal.h"

#define LISTEN_BACKLOG 1024
/* Connections accepted in one turn of the acceptor per listener, so one listener
 * under a flood cannot starve the other. */
#define ACCEPT_BATCH 64
/* How often the reaper looks for requests past their deadline. */
#define REAP_INTERVAL_MS 250
/* Bytes of a refused connection's request read (and dropped) before closing, so
 * the close is a FIN, not a reset that could destroy the 503 in flight. */
#define REFUSE_DRAIN_BYTES 4096

/* ---- listening ---------------------------------------------------------------- */

enum dc_status svc__listen(struct svc_listener *l, const char *listen_on, struct dc_error *err)
{
    char host[SVC_CONFIG_STR_MAX];
    const char *portstr = NULL;
    if (listen_on[0] == '[') {
        const char *close = strchr(listen_on, ']');
        size_t n = (size_t)(close - listen_on - 1);
        memcpy(host, listen_on + 1, n);
        host[n] = '\0';
        portstr = close + 2;
    } else {
        const char *colon = strrchr(listen_on, ':');
        size_t n = (size_t)(colon - listen_on);
        memcpy(host, listen_on, n);
        host[n] = '\0';
        portstr = colon + 1;
    }
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int gai = getaddrinfo(host, portstr, &hints, &ai);
    if (gai != 0)
        return dc_error_set(err, DC_EIO, NULL, "listen %s: %s", listen_on, gai_strerror(gai));
    int fd = -1, e = 0;
    for (struct addrinfo *a = ai; a != NULL; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (a->ai_family == AF_INET6)
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
        if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, LISTEN_BACKLOG) == 0)
            break;
        e = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    if (fd < 0)
        return dc_error_set(err, DC_EIO, NULL, "listen %s: %s", listen_on, strerror(e));
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
        if (ss.ss_family == AF_INET)
            l->port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        else if (ss.ss_family == AF_INET6)
            l->port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    }
    atomic_store(&l->fd, fd);
    return DC_OK;
}

/* ---- the registry -------------------------------------------------------------- */

/* The admin listener at its limit: shut down the connection that has waited
 * longest for a request (one sending its header slowly, or idle), so that a
 * probe arriving now is served rather than refused. A connection whose request
 * is in (no deadline) is never chosen, so a burst of probes cannot evict each
 * other's requests. True when one was. */
static bool evict_oldest_waiting(svc_server *s, struct svc_listener *l)
{
    struct svc_conn *oldest = NULL;
    uint64_t first = UINT64_MAX;
    pthread_mutex_lock(&s->conns_mu);
    for (struct svc_conn *c = s->conns; c != NULL; c = c->next) {
        uint64_t deadline = atomic_load(&c->deadline_ns);
        if (c->listener != l || c->evicted || c->fd < 0 || atomic_load(&c->cut) || deadline == 0)
            continue;
        if (deadline < first) {
            first = deadline;
            oldest = c;
        }
    }
    if (oldest != NULL) {
        oldest->evicted = true;
        atomic_fetch_add(&l->evicting, 1);
        shutdown(oldest->fd, SHUT_RDWR);
        atomic_fetch_add_explicit(&s->metrics.admin_evictions, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&s->conns_mu);
    return oldest != NULL;
}

void svc__conn_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                      enum MHD_ConnectionNotificationCode toe)
{
    struct svc_listener *l = cls;
    svc_server *s = l->s;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        long p = atomic_load(&l->pending);
        while (p > 0 && !atomic_compare_exchange_weak(&l->pending, &p, p - 1))
            continue;
        long n = atomic_fetch_add(&l->open, 1) + 1;
        if (!l->admin)
            atomic_fetch_add(&s->metrics.connections, 1);
        /* On the admin listener one past the limit (a burst handed over before
         * any could be chosen at accept) makes room instead of being refused. */
        if (l->admin && n - atomic_load(&l->evicting) > (long)l->limit)
            (void)evict_oldest_waiting(s, l);
        struct svc_conn *conn = calloc(1, sizeof(*conn));
        *socket_context = conn;
        if (conn == NULL)
            return; /* its requests are answered 503, as if over the limit */
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        conn->listener = l;
        conn->fd = ci != NULL ? ci->connect_fd : -1;
        /* Connections shut down to make room still count until they close. */
        conn->over_limit = n - atomic_load(&l->evicting) > (long)l->limit;
        if (conn->over_limit)
            atomic_fetch_add_explicit(&s->metrics.connections_rejected, 1, memory_order_relaxed);
        svc__conn_next(conn);
        pthread_mutex_lock(&s->conns_mu);
        conn->next = s->conns;
        if (s->conns != NULL)
            s->conns->prev = conn;
        s->conns = conn;
        pthread_mutex_unlock(&s->conns_mu);
        return;
    }
    atomic_fetch_sub(&l->open, 1);
    if (!l->admin)
        atomic_fetch_sub(&s->metrics.connections, 1);
    struct svc_conn *conn = *socket_context;
    if (conn == NULL)
        return;
    pthread_mutex_lock(&s->conns_mu);
    if (conn->evicted)
        atomic_fetch_sub(&l->evicting, 1);
    if (conn->prev != NULL)
        conn->prev->next = conn->next;
    else
        s->conns = conn->next;
    if (conn->next != NULL)
        conn->next->prev = conn->prev;
    pthread_mutex_unlock(&s->conns_mu);
    free(conn);
    *socket_context = NULL;
}

struct svc_conn *svc__conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci != NULL ? ci->socket_context : NULL;
}

void svc__conn_received(struct svc_conn *conn)
{
    if (conn != NULL)
        atomic_store(&conn->deadline_ns, 0);
}

void svc__conn_next(struct svc_conn *conn)
{
    if (conn != NULL)
        atomic_store(&conn->deadline_ns,
                     dc_mono_ns() + (uint64_t)conn->listener->request_timeout_s * 1000000000ull);
}

void svc__conn_linger(struct svc_conn *conn, unsigned linger_ms)
{
    if (conn == NULL)
        return;
    atomic_store(&conn->answered, true);
    atomic_store(&conn->deadline_ns, dc_mono_ns() + (uint64_t)linger_ms * 1000000ull);
}

/* ---- the reaper ------------------------------------------------------------------ */

static void *reaper_main(void *arg)
{
    svc_server *s = arg;
    pthread_mutex_lock(&s->conns_mu);
    while (!s->reaper_stop) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += REAP_INTERVAL_MS * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&s->conns_cv, &s->conns_mu, &ts);
        /* A connection the daemon dropped before starting it (out of memory) is
         * never reported: with no hand-over for a whole interval, none is
         * pending any more. */
        if (!atomic_exchange(&s->api.handed, false))
            atomic_store(&s->api.pending, 0);
        if (!atomic_exchange(&s->admin.handed, false))
            atomic_store(&s->admin.pending, 0);
        uint64_t now = dc_mono_ns();
        for (struct svc_conn *c = s->conns; c != NULL; c = c->next) {
            uint64_t deadline = atomic_load(&c->deadline_ns);
            if (deadline == 0 || now < deadline || atomic_load(&c->cut) || c->fd < 0)
                continue;
            atomic_store(&c->cut, true);
            shutdown(c->fd, SHUT_RDWR);
            if (!atomic_load(&c->answered))
                atomic_fetch_add_explicit(&s->metrics.request_timeouts, 1, memory_order_relaxed);
        }
    }
    pthread_mutex_unlock(&s->conns_mu);
    return NULL;
}

/* ---- the acceptor ------------------------------------------------------------------ */

/* Answer a connection past the hard limit with a 503 and close it, without
 * waiting for it: the request, if it came already, is read and dropped. */
static void refuse(svc_server *s, int fd)
{
    char id[SVC_REQUEST_ID_GENERATED_LEN + 1], body[384], msg[768];
    svc_request_id_generate(id);
    int bl = snprintf(body, sizeof(body),
                      "{\"type\":\"" API_PROBLEM_TYPE_PREFIX API_PROBLEM_OVERLOADED
                      "\",\"title\":\"" API_PROBLEM_OVERLOADED_TITLE
                      "\",\"status\":503,\"detail\":\"the "
                      "server is at its connection limit; retry shortly\",\"request_id\":\"%s\"}",
                      id);
    int ml = snprintf(msg, sizeof(msg),
                      "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: "
                      "1\r\nCache-Control: no-store\r\nX-Request-Id: %s\r\nContent-Type: "
                      "application/problem+json\r\nContent-Length: %d\r\n\r\n%s",
                      id, bl, body);
    (void)send(fd, msg, (size_t)ml, MSG_NOSIGNAL | MSG_DONTWAIT);
    shutdown(fd, SHUT_WR);
    char drop[REFUSE_DRAIN_BYTES];
    (void)recv(fd, drop, sizeof(drop), MSG_DONTWAIT);
    close(fd);
    atomic_fetch_add_explicit(&s->metrics.connections_rejected, 1, memory_order_relaxed);
}

/* Accept what is pending on `l`, up to ACCEPT_BATCH connections; returns how
 * many turns it took (ACCEPT_BATCH: there may be more). */
static int accept_some(svc_server *s, struct svc_listener *l)
{
    int k = 0;
    for (; k < ACCEPT_BATCH; k++) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int fd =
            accept4(atomic_load(&l->fd), (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0 && (errno == EMFILE || errno == ENFILE) && s->spare_fd >= 0) {
            /* Out of descriptors: free the spare one to take this connection and
             * answer it, rather than leave it in the backlog. */
            close(s->spare_fd);
            fd = accept4(atomic_load(&l->fd), (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
            if (fd >= 0)
                refuse(s, fd);
            s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
            continue;
        }
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            break; /* EAGAIN: nothing left */
        }
        long held = atomic_load(&l->open) + atomic_load(&l->pending) - atomic_load(&l->evicting);
        /* Room for this one under the limit: connections handed over in a
         * burst may have passed it before any could be chosen. */
        while (l->admin && held >= (long)l->limit && evict_oldest_waiting(s, l))
            held--;
        if (held >= (long)l->hard_limit) {
            refuse(s, fd);
            continue;
        }
        /* The kernel's memory for what this connection has not yet sent is
         * bounded (twice the value, socket(7), and the segment it fills past
         * it: docs/operations.md) instead of growing to tcp_wmem's maximum for
         * a client that does not read. */
        if (s->cfg.send_buffer_bytes > 0) {
            int sndbuf = (int)s->cfg.send_buffer_bytes;
            (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
        }
        /* The daemon owns (and on failure closes) the socket from here. */
        atomic_fetch_add(&l->pending, 1);
        atomic_store(&l->handed, true);
        if (MHD_add_connection(l->daemon, fd, (struct sockaddr *)&ss, sl) != MHD_YES)
            atomic_fetch_sub(&l->pending, 1);
    }
    return k;
}

static void close_listener(struct svc_listener *l)
{
    int fd = atomic_exchange(&l->fd, -1);
    if (fd >= 0)
        close(fd);
}

static void *acceptor_main(void *arg)
{
    svc_server *s = arg;
    struct svc_listener *ls[2] = {&s->api, &s->admin};
    while (!atomic_load(&s->accept_stop)) {
        struct pollfd pf[3] = {{s->accept_wake[0], POLLIN, 0}};
        struct svc_listener *which[3] = {NULL};
        nfds_t n = 1;
        for (size_t i = 0; i < 2; i++) {
            int fd = atomic_load(&ls[i]->fd);
            if (fd >= 0) {
                pf[n] = (struct pollfd){fd, POLLIN, 0};
                which[n++] = ls[i];
            }
        }
        if (poll(pf, n, -1) < 0)
            continue; /* EINTR */
        if (pf[0].revents != 0) {
            char b[16];
            (void)read(s->accept_wake[0], b, sizeof(b));
            if (atomic_load(&s->accept_close_api) && atomic_load(&s->api.fd) >= 0) {
                /* Connections the kernel completed are the clients' already:
                 * served (while draining), not reset with the listener. */
                while (accept_some(s, &s->api) == ACCEPT_BATCH)
                    continue;
                close_listener(&s->api);
            }
            continue;
        }
        for (nfds_t i = 1; i < n; i++) {
            if (pf[i].revents != 0)
                accept_some(s, which[i]);
        }
    }
    return NULL;
}

/* Why the acceptor or the reaper did not start: errno `e`. */
static enum dc_status conns_failed(int e, struct dc_error *err)
{
    return dc_error_set(err, DC_EIO, NULL, "the acceptor did not start: %s", strerror(e));
}

enum dc_status svc__conns_start(svc_server *s, struct dc_error *err)
{
    s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (pipe2(s->accept_wake, O_CLOEXEC | O_NONBLOCK) != 0)
        return conns_failed(errno, err);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->conns_cv, &ca);
    pthread_condattr_destroy(&ca);
    int e = pthread_create(&s->reaper, NULL, reaper_main, s);
    if (e != 0)
        return conns_failed(e, err);
    s->reaper_started = true;
    e = pthread_create(&s->acceptor, NULL, acceptor_main, s);
    if (e != 0)
        return conns_failed(e, err);
    s->acceptor_started = true;
    return DC_OK;
}

void svc__conns_close_api(svc_server *s)
{
    if (!s->acceptor_started) {
        close_listener(&s->api);
        return;
    }
    atomic_store(&s->accept_close_api, true);
    (void)write(s->accept_wake[1], "c", 1);
    /* Closed by the acceptor, which may be polling it; wait until it has. */
    for (int i = 0; i < 2000 && atomic_load(&s->api.fd) >= 0; i++) {
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
}

void svc__conns_stop(svc_server *s)
{
    if (s->acceptor_started) {
        atomic_store(&s->accept_stop, true);
        (void)write(s->accept_wake[1], "s", 1);
        pthread_join(s->acceptor, NULL);
        s->acceptor_started = false;
    }
    if (s->reaper_started) {
        pthread_mutex_lock(&s->conns_mu);
        s->reaper_stop = true;
        pthread_cond_signal(&s->conns_cv);
        pthread_mutex_unlock(&s->conns_mu);
        pthread_join(s->reaper, NULL);
        s->reaper_started = false;
        pthread_cond_destroy(&s->conns_cv);
    }
    close_listener(&s->api);
    close_listener(&s->admin);
    for (int i = 0; i < 2; i++) {
        if (s->accept_wake[i] >= 0)
            close(s->accept_wake[i]);
        s->accept_wake[i] = -1;
    }
    if (s->spare_fd >= 0)
        close(s->spare_fd);
    s->spare_fd = -1;
}
