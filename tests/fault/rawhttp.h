/* tests/fault/rawhttp.h -- a minimal HTTP/1.1 client on raw keep-alive sockets,
 * for the soak driver (bench/soak) and the fault tests: it sends exactly the
 * bytes it is given (hostile requests included) and reads one response, checking
 * its framing strictly (status line, Content-Length, Connection: close). One
 * request at a time per connection, no pipelining. */
#ifndef AA_TEST_RAWHTTP_H
#define AA_TEST_RAWHTTP_H

#include <stdbool.h>
#include <stddef.h>

struct rh_conn {
    int fd; /* -1 when not connected */
    int port;
    char *buf; /* the last response */
    size_t len;
    size_t cap;
};

struct rh_resp {
    int status;
    bool close;          /* Connection: close (the server closes after it) */
    char ctype[128];     /* Content-Type, "" when absent */
    char request_id[80]; /* X-Request-Id, "" when absent */
    char allow[128];     /* Allow, "" when absent */
    const char *body;    /* view into the connection's buffer, until the next call */
    size_t body_len;
};

enum rh_status {
    RH_OK = 0,
    RH_ECONNECT = -1, /* connect() failed */
    RH_ECLOSED = -2,  /* the connection closed before any byte of a response */
    RH_ETRUNC = -3,   /* the connection closed in the middle of a response */
    RH_ETIMEOUT = -4,
    RH_EPARSE = -5, /* not an HTTP/1.1 response we can frame */
    RH_ENOMEM = -6,
};

/* Bytes that may hold NUL, for tables of hostile bodies: RH_BYTES("...")
 * keeps a literal's whole length. */
struct rh_bytes {
    const char *p;
    size_t len;
};
#define RH_BYTES(s)                                                                                \
    {                                                                                              \
        s, sizeof(s) - 1                                                                           \
    }

/* A growable byte buffer for building requests. */
struct rh_buf {
    char *p;
    size_t len;
    size_t cap;
};

void rh_init(struct rh_conn *c, int port);
int rh_connect(struct rh_conn *c);
/* rh_connect with a receive buffer of `rcvbuf` bytes (0: the system's), set before
 * connecting: a slow reader, whose answers the server has to hold. */
int rh_connect_rcvbuf(struct rh_conn *c, int rcvbuf);
void rh_close(struct rh_conn *c);
/* Close and free the buffer. */
void rh_free(struct rh_conn *c);
/* Send all of `data`; false when the peer is gone (EPIPE, ECONNRESET). */
bool rh_send(struct rh_conn *c, const void *data, size_t len);
/* Read one response (`head`: a response to HEAD, no body). */
int rh_read(struct rh_conn *c, bool head, int timeout_ms, struct rh_resp *r);
/* Connect when needed, send `req` and read its response. A send that fails
 * because the server answered early and closed still reads that answer. The
 * connection is closed after a response with Connection: close or an error. */
int rh_exchange(struct rh_conn *c, const void *req, size_t len, bool head, int timeout_ms,
                struct rh_resp *r);
const char *rh_strerror(int e);
/* Read everything until the peer closes or `timeout_ms` passes, into buf (cap
 * bytes, NUL-terminated). Returns the bytes read; *closed says whether the peer
 * closed. For answers that must be followed by a close (refusals). */
size_t rh_read_to_close(struct rh_conn *c, char *buf, size_t cap, int timeout_ms, bool *closed);
/* Status lines in a stream of responses: "HTTP/1.1 NNN " anywhere in it. */
size_t rh_status_lines(const char *buf);

void rh_buf_reset(struct rh_buf *b);
bool rh_buf_add(struct rh_buf *b, const void *data, size_t len);
bool rh_buf_str(struct rh_buf *b, const char *s);
bool rh_buf_printf(struct rh_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rh_buf_free(struct rh_buf *b);
/* Append a request: method, path, optional Content-Type, optional extra header
 * lines (each "Name: value\r\n"), Content-Length when body != NULL, the body. */
bool rh_buf_request(struct rh_buf *b, const char *method, const char *path, const char *ctype,
                    const char *extra, const void *body, size_t len);
/* Append a batch body: {"workloads":[...]} of `n` copies of `workload`. */
bool rh_buf_batch(struct rh_buf *b, const char *workload, int n);

#endif /* AA_TEST_RAWHTTP_H */
