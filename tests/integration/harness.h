/* tests/integration/harness.h -- drive the real `accel-advisor serve` binary.
 *
 * A test starts the server on 127.0.0.1 port 0 and reads the port from the
 * start-up log line; a thread drains the server's stderr (its JSON log) into a
 * buffer that tests search. Requests go through libcurl; every response can be
 * checked against the response schema openapi.yaml declares for it, with the
 * project's own JSON Schema validator. */
#ifndef AA_TEST_HARNESS_H
#define AA_TEST_HARNESS_H

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

struct server_proc; /* the process and its log reader (harness.c) */

struct server {
    pid_t pid; /* for signals; 0 once it exited */
    int port;
    int admin_port; /* with --admin-listen; 0 without */
    /* On the heap, so that a test failing half-way (cmocka leaves its frame with
     * longjmp) leaves the log reader nothing dead to write to; harness_run then
     * kills the servers that test left running. */
    struct server_proc *proc;
};

/* Path of the binary under test and of the source tree (argv of the driver). */
extern const char *h_binary;
extern const char *h_source_dir;

/* The monotonic clock in milliseconds, and a sleep of `ms` (waits in tests are
 * bounded by these, never by the wall clock). */
long h_now_ms(void);
void h_sleep_ms(long ms);

/* The start of every driver's main(argc, argv): expects `BINARY SOURCE_DIR`,
 * sets h_binary and h_source_dir, ignores SIGPIPE and starts libcurl. Returns 0,
 * or 2 after printing the usage. */
int harness_init(int argc, char **argv);
/* Run a cmocka group and stop libcurl; returns the number of failed tests. A
 * test that fails (its function does not return) has every server it started
 * and left running killed after its teardown, its log printed. */
#define HARNESS_RUN(name, tests, setup, teardown)                                                  \
    harness_run(name, tests, sizeof(tests) / sizeof((tests)[0]), setup, teardown)
int harness_run(const char *name, const struct CMUnitTest *tests, size_t n, CMFixtureFunction setup,
                CMFixtureFunction teardown);

/* Start `serve --listen 127.0.0.1:0` with extra arguments (NULL-terminated; may
 * be NULL). Returns 0 once the server logged its port, -1 if it exited or did
 * not start within 20 s (its log is printed). */
int server_start(struct server *s, const char *const *args);
/* server_start for long runs (tests/fault, bench/soak): every line of the
 * server's log (without its newline, NUL-terminated) is passed to `keep` on the
 * reader thread first, and only the lines it returns true for are kept in the
 * log buffer, so a run of millions of requests with the access log on keeps a
 * small log. `keep` NULL keeps every line, as server_start does. */
int server_start_filtered(struct server *s, const char *const *args,
                          bool (*keep)(void *cls, const char *line, size_t len), void *cls);
/* Start `agent --listen 127.0.0.1:0` (the node agent) with extra arguments;
 * same contract as server_start (its /metrics and /healthz on s->port). */
int agent_start(struct server *s, const char *const *args);
/* server_start for a server whose log level hides the `listening` line: it
 * listens on a free port chosen here and is ready once it accepts connections. */
int server_start_quiet(struct server *s, const char *const *args);
/* Resident memory (VmRSS in /proc/PID/status, KiB) and open file descriptors
 * (entries of /proc/PID/fd) of the running server; -1 when unreadable. */
long server_rss_kib(const struct server *s);
/* The peak of resident memory so far (VmHWM, KiB); -1 when unreadable. */
long server_peak_rss_kib(const struct server *s);
long server_fd_count(const struct server *s);
/* The descriptor count once it is at most `at_most` (the server closes a
 * client's connection a moment after the client does), or at `timeout_ms` (a
 * bound for a leak, not a timing assertion): the last count read. */
long server_fd_wait(const struct server *s, long at_most, int timeout_ms);
/* CPU time the server has used so far, every thread, in milliseconds
 * (/proc/PID/task/TID/schedstat, nanoseconds on CPU); -1 when unreadable. For
 * the CPU a request cost: read it before and after. */
double server_cpu_ms(const struct server *s);
/* Bytes the kernel holds in the send queues of the sockets whose local port is
 * `port` (the server's side of its connections there): the tx_queue column of
 * /proc/net/tcp and tcp6, summed; in *most (when not NULL) the largest of one
 * connection. */
long tcp_send_queue_bytes(int port, long *most);
/* The most the kernel holds unsent for one connection whose SO_SNDBUF is
 * `send_buffer_bytes`: twice that (socket(7)) before it starts a segment, plus
 * the segment it then fills. tcp_sendmsg_locked appends to the unsent tail
 * segment up to its size goal without looking at the buffer
 * (https://github.com/torvalds/linux/blob/master/net/ipv4/tcp.c), and the goal
 * is at most the device's GSO maximum, 64 KiB unless raised (BIG TCP), reached
 * when the client once offered a window of twice that. */
long kernel_send_bound(long send_buffer_bytes);
/* Connections waiting in the kernel's accept queue of the listening socket on
 * `port` (not yet taken by the server): the rx_queue column of its LISTEN row in
 * /proc/net/tcp and tcp6; -1 when there is no such socket. */
long tcp_accept_queue(int port);
/* True while the server process runs (neither exited nor a zombie); does not
 * reap it, so server_stop and server_wait still see its exit status. */
bool server_running(const struct server *s);
/* Raise this process's RLIMIT_NOFILE soft limit to its hard limit (a server
 * started afterwards inherits it); returns the soft limit now in force. */
long raise_nofile_limit(void);
/* Send `sig` and wait for the exit; returns the exit status (or 128 + signal). */
int server_stop(struct server *s, int sig);
/* A test's teardown after it may have failed half-way: stop `s` with SIGKILL if
 * it still runs. Returns 0. */
int server_kill_if_running(struct server *s);
/* The end of a group of tests sharing one server: no request may have produced
 * an error line (the log is printed if one did), and SIGTERM must end it with
 * status 0. Returns 0 when both hold, -1 otherwise. */
int server_stop_clean(struct server *s);
/* Wait for the process to exit on its own; returns as server_stop. The log
 * stays readable until server_release. */
int server_wait(struct server *s, int timeout_ms);
/* Free what server_wait kept (the log); server_stop does it itself. */
void server_release(struct server *s);
/* True when the log has `needle` at offset >= from (returns its offset in *at). */
bool server_log_find(struct server *s, size_t from, const char *needle, size_t *at);
/* Wait until the log has `needle` after offset `from`; false on timeout. */
bool server_log_wait(struct server *s, size_t from, const char *needle, int timeout_ms);
size_t server_log_len(struct server *s);
/* An owned copy of the log from offset `from` (its length in *len); the line
 * holding offset `at`, without its newline (NULL past the end). */
char *server_log_copy(struct server *s, size_t from, size_t *len);
char *server_log_line(struct server *s, size_t at);
/* Wait up to `timeout_ms` for a line holding `needle` at offset >= from; that
 * line (owned, as server_log_line), or NULL. */
char *server_log_wait_line(struct server *s, size_t from, const char *needle, int timeout_ms);
/* Print the log (on failure). */
void server_log_dump(struct server *s);

struct resp {
    long status;
    char *body;
    size_t len;
    char *headers; /* raw header block */
    size_t headers_len;
};

/* One request. `headers` NULL-terminated "Name: value" (may be NULL). Returns 0
 * when a response arrived. */
int http(struct server *s, const char *method, const char *path, const char *ctype,
         const char *body, size_t len, const char *const *headers, struct resp *out);
int http_get(struct server *s, const char *path, struct resp *out);
/* The value of the unlabelled series `name` in GET /metrics on 127.0.0.1:`port`
 * (the server's port, or its admin_port when the API's is full); -1 when absent
 * or unanswered. */
long scrape_metric(int port, const char *name);
/* The candidate for accelerator `id` of a Recommendation body (recommended or
 * excluded), and a candidate's reason with rule id `rule_id`; NULL when none. */
const cJSON *rec_candidate(const cJSON *rec, const char *id);
const cJSON *rec_reason(const cJSON *candidate, const char *rule_id);
/* The value of the series `series` ("name{labels}", exactly as exposed) in a
 * text exposition; false when no line has it. */
bool metric_find(const char *body, const char *series, double *out);
/* Scrape `name` until it reads `want` or `timeout_ms` passed (a bound for a
 * broken server, not a timing assertion); returns the last value read. */
long metric_wait(int port, const char *name, long want, int timeout_ms);
/* The same until it reads at least `least` (a counter the server may raise a
 * moment after its client had the answer). */
long metric_wait_min(int port, const char *name, long least, int timeout_ms);
/* Scrape until the /metrics text holds `needle`, or `timeout_ms` passed. A
 * request is counted once it completes, a moment after its client has read
 * the answer: a test reads its count through this. */
bool metrics_wait(int port, const char *needle, int timeout_ms);

/* How long a test waits for what it needs (a count, a log line, an answer)
 * before it fails: a bound for a hang, never a timing assertion. An ASan build
 * beside other suites on a loaded machine takes seconds for what is otherwise
 * immediate. */
#define HANG_MS 60000

/* The per-request CPU budgets of docs/operations.md ("Per-request cost"), in
 * milliseconds: one workload, one request at the default limits. A test built
 * with AA_SANITIZED allows the sanitizers' slowdown. */
#ifdef AA_SANITIZED
#define CPU_BUDGET_SLOWDOWN 10.0
#else
#define CPU_BUDGET_SLOWDOWN 1.0
#endif
#define WORKLOAD_CPU_MS (10.0 * CPU_BUDGET_SLOWDOWN)
#define REQUEST_CPU_MS  (1000.0 * CPU_BUDGET_SLOWDOWN)
int http_post_json(struct server *s, const char *path, const char *body, struct resp *out);
/* Header value (case-insensitive name) copied into buf; false when absent. */
bool resp_header(const struct resp *r, const char *name, char *buf, size_t len);
cJSON *resp_json(const struct resp *r); /* parsed body or NULL */
void resp_free(struct resp *r);

/* Check the response against openapi.yaml: the schema of operation `method` of
 * `path_template` for its status (or `default`) and its media type. Bodies of
 * paths or methods the contract does not have are checked against Problem.
 * Fails the test (cmocka) on any violation. */
void check_contract(const struct resp *r, const char *method, const char *path_template);
/* Validate `json` against component schema `name` ("Recommendation"). */
void check_component(const cJSON *json, const char *name);

/* The string member `key` of `o`, or NULL. */
const char *str_field(const cJSON *o, const char *key);
/* Status, problem type, X-Request-Id echo and contract of a problem response
 * (operation `method` of `path`); fails the test (cmocka) otherwise. */
void expect_problem(const struct resp *r, long status, const char *type, const char *method,
                    const char *path);

/* Run `promtool check metrics` (Debian package prometheus) on a /metrics body;
 * fails the test (cmocka) when promtool rejects it. */
void check_promtool(const struct resp *r);

/* Read a whole file (NUL-terminated, owned); NULL on failure. */
char *read_file(const char *path, size_t *len);
int write_file(const char *path, const char *data, size_t len);
/* A fresh temporary directory (owned string). */
char *make_temp_dir(void);
/* Copy every *.yaml of the source tree's rules/ into dir. */
int copy_rules(const char *dir);
/* Change rules.yaml in dir so its canonical content (and version) changes; `n`
 * makes each change distinct. */
int touch_rules(const char *dir, int n);
/* Remove a directory tree (test temporaries only). */
void remove_tree(const char *dir);

/* A raw TCP connection to the server (for partial requests). -1 on failure. */
int raw_connect(struct server *s);
int raw_send(int fd, const char *data, size_t len);
/* Read until the peer closes or a full response (headers + Content-Length body)
 * arrives, up to `timeout_ms`. Returns the bytes read (NUL-terminated, owned). */
char *raw_read_response(int fd, int timeout_ms);

#endif /* AA_TEST_HARNESS_H */
