/* tests/integration/fleet_stub.c -- the canned HTTP server of fleet_stub.h.
 * Owner: the fleet availability work (issue 19). */
#include "fleet_stub.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Longest a client may take to send its request headers. */
#define STUB_READ_TIMEOUT_MS 5000
/* Steps in which a delay is waited out, so a stop or a client gone is seen soon. */
#define STUB_STEP_MS 10

static void free_rule(struct stub_rule *r)
{
    free(r->match);
    free(r->ctype);
    free(r->body);
    memset(r, 0, sizeof(*r));
}

/* The request's line and headers, up to the blank line (or what fits). */
static size_t read_request(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    while (n + 1 < cap) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, STUB_READ_TIMEOUT_MS) <= 0)
            break;
        ssize_t got = recv(fd, buf + n, cap - 1 - n, 0);
        if (got <= 0)
            break;
        n += (size_t)got;
        buf[n] = '\0';
        if (strstr(buf, "\r\n\r\n") != NULL)
            break;
    }
    buf[n] = '\0';
    return n;
}

static void send_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t w = send(fd, p, len, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        p += w;
        len -= (size_t)w;
    }
}

/* Answer one connection by the rules. */
static void serve(struct stub *s, int fd)
{
    char req[sizeof(s->last_request)];
    read_request(fd, req, sizeof(req));
    pthread_mutex_lock(&s->mu);
    memcpy(s->last_request, req, sizeof(req));
    const struct stub_rule *pick = NULL;
    const char *eol = strstr(req, "\r\n");
    size_t line = eol != NULL ? (size_t)(eol - req) : strlen(req);
    for (int i = 0; i < STUB_RULES && pick == NULL; i++) {
        const char *m = s->rules[i].match;
        const char *at = m != NULL ? strstr(req, m) : NULL;
        if (s->rules[i].status != 0 && at != NULL && (size_t)(at - req) < line)
            pick = &s->rules[i];
    }
    for (int i = 0; i < STUB_RULES && pick == NULL; i++) {
        if (s->rules[i].status != 0 && s->rules[i].match == NULL)
            pick = &s->rules[i];
    }
    struct stub_rule r = {NULL, 404, NULL, NULL, 0, 0};
    if (pick != NULL) { /* a copy: the test may replace the rule meanwhile */
        r = *pick;
        r.ctype = strdup(pick->ctype != NULL ? pick->ctype : "text/plain");
        r.body = malloc(pick->len + 1);
        if (r.body != NULL && pick->len > 0)
            memcpy(r.body, pick->body, pick->len);
    }
    s->held++;
    pthread_mutex_unlock(&s->mu);
    /* A delay ends early when the client gives up (it closes: a read sees the
     * end), so the next request is not kept waiting behind an abandoned one. */
    bool gone = false;
    for (unsigned waited = 0; waited < r.delay_ms && !gone && !atomic_load(&s->stop);
         waited += STUB_STEP_MS) {
        struct pollfd p = {fd, POLLIN, 0};
        char c;
        gone = poll(&p, 1, STUB_STEP_MS) > 0 && recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) <= 0;
    }
    if (!gone && !atomic_load(&s->stop)) {
        char head[256];
        int n = snprintf(head, sizeof(head),
                         "HTTP/1.1 %d Stub\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                         "Connection: close\r\n\r\n",
                         r.status, r.ctype != NULL ? r.ctype : "text/plain",
                         r.body != NULL ? r.len : 0);
        send_all(fd, head, (size_t)n);
        if (r.body != NULL)
            send_all(fd, r.body, r.len);
    }
    free(r.ctype);
    free(r.body);
    pthread_mutex_lock(&s->mu);
    s->held--;
    s->requests++;
    pthread_mutex_unlock(&s->mu);
}

static void *stub_main(void *arg)
{
    struct stub *s = arg;
    while (!atomic_load(&s->stop)) {
        struct pollfd p = {s->fd, POLLIN, 0};
        if (poll(&p, 1, 50) <= 0)
            continue;
        int c = accept(s->fd, NULL, NULL);
        if (c < 0)
            continue;
        serve(s, c);
        close(c);
    }
    return NULL;
}

int stub_start(struct stub *s)
{
    memset(s, 0, sizeof(*s));
    pthread_mutex_init(&s->mu, NULL);
    atomic_init(&s->stop, false);
    s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {0};
    socklen_t al = sizeof(a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    if (s->fd < 0 || setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        bind(s->fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(s->fd, 64) != 0 ||
        getsockname(s->fd, (struct sockaddr *)&a, &al) != 0)
        return -1;
    s->port = ntohs(a.sin_port);
    if (pthread_create(&s->thread, NULL, stub_main, s) != 0)
        return -1;
    s->started = true;
    return 0;
}

void stub_rule(struct stub *s, int i, const char *match, int status, const char *ctype,
               const char *body, size_t len, unsigned delay_ms)
{
    pthread_mutex_lock(&s->mu);
    struct stub_rule *r = &s->rules[i];
    free_rule(r);
    r->match = match != NULL ? strdup(match) : NULL;
    r->status = status;
    r->ctype = strdup(ctype);
    r->body = malloc(len + 1);
    if (r->body != NULL) {
        memcpy(r->body, body, len);
        r->len = len;
    }
    r->delay_ms = delay_ms;
    pthread_mutex_unlock(&s->mu);
}

unsigned long stub_requests(struct stub *s)
{
    pthread_mutex_lock(&s->mu);
    unsigned long n = s->requests;
    pthread_mutex_unlock(&s->mu);
    return n;
}

unsigned long stub_held(struct stub *s)
{
    pthread_mutex_lock(&s->mu);
    unsigned long n = s->held;
    pthread_mutex_unlock(&s->mu);
    return n;
}

char *stub_last_request(struct stub *s)
{
    pthread_mutex_lock(&s->mu);
    char *r = strdup(s->last_request);
    pthread_mutex_unlock(&s->mu);
    return r;
}

void stub_stop(struct stub *s)
{
    atomic_store(&s->stop, true);
    if (s->started)
        pthread_join(s->thread, NULL);
    s->started = false;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    for (int i = 0; i < STUB_RULES; i++)
        free_rule(&s->rules[i]);
    pthread_mutex_destroy(&s->mu);
}
