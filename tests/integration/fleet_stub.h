/* tests/integration/fleet_stub.h -- a canned HTTP server on 127.0.0.1 for the
 * fleet tests: it stands in for dcgm-exporter (a fixture exposition) and for a
 * Prometheus that answers what the test tells it to, slowly or not at all.
 *
 * Every request gets the response of the first rule whose `match` is in its
 * request line (or the default rule): a status, a content type, a body, and a
 * delay before answering. It serves one connection at a time, reads the request
 * headers, answers, and closes. What the last request said is kept, so a test
 * can check a header the service sent. Rules can be replaced while it runs.
 * Owner: the fleet availability work (issue 19). */
#ifndef AA_TEST_FLEET_STUB_H
#define AA_TEST_FLEET_STUB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#define STUB_RULES 4

struct stub_rule {
    char *match; /* NULL: the default rule */
    int status;
    char *ctype;
    char *body;
    size_t len;
    unsigned delay_ms;
};

struct stub {
    int fd;
    int port;
    pthread_t thread;
    bool started;
    atomic_bool stop;
    pthread_mutex_t mu; /* guards the rules and what follows */
    struct stub_rule rules[STUB_RULES];
    unsigned long requests; /* answered */
    unsigned long held;     /* requests being delayed now */
    char last_request[8192];
};

/* Listen on a free loopback port and start serving (404 until a rule is set).
 * Returns 0, or -1. */
int stub_start(struct stub *s);
/* Set rule `i` (0 .. STUB_RULES - 1): requests whose request line holds `match`
 * (NULL: any request no other rule takes) are answered `status` with `body`
 * (copied, `len` bytes) after `delay_ms`. */
void stub_rule(struct stub *s, int i, const char *match, int status, const char *ctype,
               const char *body, size_t len, unsigned delay_ms);
/* Requests answered so far, and requests being delayed now. */
unsigned long stub_requests(struct stub *s);
unsigned long stub_held(struct stub *s);
/* A copy of the last request's line and headers (owned, free()). */
char *stub_last_request(struct stub *s);
/* Stop serving (a delayed answer is abandoned) and free the rules. */
void stub_stop(struct stub *s);

#endif
