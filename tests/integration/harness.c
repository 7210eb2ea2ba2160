/* tests/integration/harness.c -- see harness.h. */
#include "harness.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>

#include "api/openapi.h"
#include "api/schema.h"
#include "dc/embedded.h"

const char *h_binary;
const char *h_source_dir;

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- the server process ------------------------------------------------------- */

/* What the reader thread writes and the clean-up of a failed test needs. It
 * lives on the heap, never in the caller's struct server: a cmocka assertion
 * leaves the test's frame with longjmp, and a reader thread still writing into
 * a `struct server` on that dead frame corrupted the stack of the tests after
 * it. */
struct server_proc {
    pid_t pid;
    int err_fd;
    pthread_t reader;
    bool reader_started;
    pthread_mutex_t mu;
    char *log;
    size_t log_len;
    size_t log_cap;
    /* server_start_filtered: the line filter and the reader's partial line. */
    bool (*keep)(void *cls, const char *line, size_t len);
    void *keep_cls;
    char *line;
    size_t line_len;
    size_t line_cap;
    unsigned test; /* the serial of the test that started it; 0 outside a test */
    bool reaped;   /* ended by reap_failed_test; freed at the end of harness_run */
    struct server_proc *next;
};

/* Every server started and not yet released (`live`), and those reap_failed_test
 * ended (`reaped`, which their callers may still name). Tests start and stop
 * servers on the main thread; the lock is for the odd helper thread. */
static pthread_mutex_t procs_mu = PTHREAD_MUTEX_INITIALIZER;
static struct server_proc *live, *reaped;
/* The test running now (harness_run's wrappers): its serial, 0 between tests. */
static unsigned current_test;

static void proc_unlink(struct server_proc **list, struct server_proc *p)
{
    for (struct server_proc **at = list; *at != NULL; at = &(*at)->next) {
        if (*at == p) {
            *at = p->next;
            p->next = NULL;
            return;
        }
    }
}

static void log_append(struct server_proc *p, const char *buf, size_t n)
{
    pthread_mutex_lock(&p->mu);
    if (p->log_len + n + 1 > p->log_cap) {
        size_t cap = p->log_cap * 2 + n + 1;
        char *q = realloc(p->log, cap);
        if (q != NULL) {
            p->log = q;
            p->log_cap = cap;
        }
    }
    if (p->log_len + n + 1 <= p->log_cap) {
        memcpy(p->log + p->log_len, buf, n);
        p->log_len += n;
        p->log[p->log_len] = '\0';
    }
    pthread_mutex_unlock(&p->mu);
}

/* server_start_filtered: offer the completed line in p->line to the filter. */
static void line_done(struct server_proc *p)
{
    p->line[p->line_len] = '\0';
    if (p->keep(p->keep_cls, p->line, p->line_len)) {
        p->line[p->line_len] = '\n';
        log_append(p, p->line, p->line_len + 1);
    }
    p->line_len = 0;
}

/* Split `buf` into lines for the filter (a line over 1 MiB is cut there). */
static void filter_lines(struct server_proc *p, const char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p->line_len + 2 > p->line_cap) {
            size_t cap = p->line_cap > 0 ? p->line_cap * 2 : 8192;
            char *q = cap <= (1u << 20) ? realloc(p->line, cap) : NULL;
            if (q != NULL) {
                p->line = q;
                p->line_cap = cap;
            } else if (p->line != NULL) {
                line_done(p); /* too long: cut here */
            } else {
                continue; /* out of memory: the byte is lost */
            }
        }
        if (buf[i] == '\n')
            line_done(p);
        else
            p->line[p->line_len++] = buf[i];
    }
}

static void *reader_main(void *arg)
{
    struct server_proc *p = arg;
    char buf[8192];
    for (;;) {
        ssize_t n = read(p->err_fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (p->keep != NULL)
            filter_lines(p, buf, (size_t)n);
        else
            log_append(p, buf, (size_t)n);
    }
    if (p->keep != NULL && p->line_len > 0)
        line_done(p);
    free(p->line);
    p->line = NULL;
    p->line_len = p->line_cap = 0;
    return NULL;
}

/* The log of `s` locked, or NULL (unlocked) when it has none. */
static struct server_proc *log_lock(struct server *s)
{
    struct server_proc *p = s->proc;
    if (p == NULL)
        return NULL;
    pthread_mutex_lock(&p->mu);
    if (p->log != NULL)
        return p;
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

size_t server_log_len(struct server *s)
{
    struct server_proc *p = log_lock(s);
    if (p == NULL)
        return 0;
    size_t n = p->log_len;
    pthread_mutex_unlock(&p->mu);
    return n;
}

bool server_log_find(struct server *s, size_t from, const char *needle, size_t *at)
{
    bool found = false;
    struct server_proc *p = log_lock(s);
    if (p == NULL)
        return false;
    if (from <= p->log_len) {
        const char *q = strstr(p->log + from, needle);
        if (q != NULL) {
            found = true;
            if (at != NULL)
                *at = (size_t)(q - p->log);
        }
    }
    pthread_mutex_unlock(&p->mu);
    return found;
}

bool server_log_wait(struct server *s, size_t from, const char *needle, int timeout_ms)
{
    long end = now_ms() + timeout_ms;
    while (now_ms() < end) {
        if (server_log_find(s, from, needle, NULL))
            return true;
        sleep_ms(10);
    }
    return server_log_find(s, from, needle, NULL);
}

char *server_log_copy(struct server *s, size_t from, size_t *len)
{
    struct server_proc *p = log_lock(s);
    char *copy = NULL;
    size_t n = 0;
    if (p != NULL) {
        n = from <= p->log_len ? p->log_len - from : 0;
        copy = strndup(p->log + (from <= p->log_len ? from : p->log_len), n);
        pthread_mutex_unlock(&p->mu);
    } else {
        copy = strdup("");
    }
    if (len != NULL)
        *len = copy != NULL ? n : 0;
    return copy;
}

char *server_log_line(struct server *s, size_t at)
{
    struct server_proc *p = log_lock(s);
    if (p == NULL)
        return NULL;
    char *line = NULL;
    if (at < p->log_len) {
        const char *start = p->log + at;
        while (start > p->log && start[-1] != '\n')
            start--;
        const char *end = strchr(start, '\n');
        line = strndup(start, end != NULL ? (size_t)(end - start) : strlen(start));
    }
    pthread_mutex_unlock(&p->mu);
    return line;
}

char *server_log_wait_line(struct server *s, size_t from, const char *needle, int timeout_ms)
{
    size_t at = 0;
    if (!server_log_wait(s, from, needle, timeout_ms) || !server_log_find(s, from, needle, &at))
        return NULL;
    return server_log_line(s, at);
}

static void proc_log_dump(struct server_proc *p)
{
    pthread_mutex_lock(&p->mu);
    fprintf(stderr, "---- server log ----\n%s---- end of log ----\n", p->log ? p->log : "");
    pthread_mutex_unlock(&p->mu);
}

void server_log_dump(struct server *s)
{
    if (s->proc != NULL)
        proc_log_dump(s->proc);
}

int server_start(struct server *s, const char *const *args)
{
    return server_start_filtered(s, args, NULL, NULL);
}

/* True once the server takes connections on s->port. */
static bool accepting(struct server *s)
{
    int fd = raw_connect(s);
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

static int decode_status(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return -1;
}

/* Wait for the process of `p` to exit (SIGKILL after `timeout_ms`) and for its
 * reader to drain the log; returns as server_wait. */
static int proc_wait(struct server_proc *p, int timeout_ms)
{
    int status = -1;
    if (p->pid > 0) {
        long end = now_ms() + timeout_ms;
        int st = 0;
        for (;;) {
            pid_t w = waitpid(p->pid, &st, WNOHANG);
            if (w == p->pid) {
                status = decode_status(st);
                break;
            }
            if (now_ms() >= end) {
                kill(p->pid, SIGKILL);
                waitpid(p->pid, &st, 0);
                status = -2;
                break;
            }
            sleep_ms(10);
        }
        p->pid = 0;
    }
    if (p->reader_started) {
        pthread_join(p->reader, NULL);
        p->reader_started = false;
        close(p->err_fd);
    }
    return status;
}

static void proc_free(struct server_proc *p)
{
    free(p->log);
    free(p->line);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

void server_release(struct server *s)
{
    struct server_proc *p = s->proc;
    s->proc = NULL;
    s->pid = 0;
    if (p == NULL || p->reaped)
        return; /* a reaped one is freed at the end of harness_run */
    proc_wait(p, 0);
    pthread_mutex_lock(&procs_mu);
    proc_unlink(&live, p);
    pthread_mutex_unlock(&procs_mu);
    proc_free(p);
}

/* Fork and exec `accel-advisor COMMAND` (serve, agent) with stderr on a pipe that p's reader
 * drains. */
static int spawn(struct server_proc *p, const char *command, const char *const *args, int port)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    /* Not inherited by the servers started later (the child's stderr is a dup). */
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    const char *argv[64];
    size_t n = 0;
    char listen[32];
    snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
    argv[n++] = h_binary;
    argv[n++] = command;
    argv[n++] = "--listen";
    argv[n++] = listen;
    if (strcmp(command, "serve") == 0) {
        argv[n++] = "--threads";
        argv[n++] = "2";
    }
    for (size_t i = 0; args != NULL && args[i] != NULL && n < 63; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        /* A test that fails half-way leaves no server behind: it dies with us. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(fds[1], 2);
        int devnull = open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            dup2(devnull, 0);
            dup2(devnull, 1);
        }
        close(fds[0]);
        close(fds[1]);
        execv(h_binary, (char *const *)(uintptr_t)argv);
        _exit(127);
    }
    close(fds[1]);
    p->pid = pid;
    p->err_fd = fds[0];
    if (pthread_create(&p->reader, NULL, reader_main, p) != 0)
        return -1;
    p->reader_started = true;
    return 0;
}

/* Wait until the server is ready: with `port` 0 it logs the port it took,
 * otherwise it accepts on `port`. */
static int await_ready(struct server *s, int port)
{
    struct server_proc *p = s->proc;
    long end = now_ms() + 20000;
    while (now_ms() < end) {
        size_t at = 0;
        s->port = port;
        if (port != 0 && accepting(s))
            return 0;
        if (port == 0 && server_log_find(s, 0, "\"event\":\"listening\"", &at)) {
            pthread_mutex_lock(&p->mu);
            const char *q = strstr(p->log + at, "\"port\":");
            s->port = q != NULL ? atoi(q + 7) : 0;
            q = strstr(p->log + at, "\"admin_port\":");
            s->admin_port = q != NULL ? atoi(q + 13) : 0;
            pthread_mutex_unlock(&p->mu);
            return s->port > 0 ? 0 : -1;
        }
        int st;
        if (waitpid(p->pid, &st, WNOHANG) == p->pid) {
            p->pid = 0;
            fprintf(stderr, "server_start: the server exited with status %d\n", decode_status(st));
            return -1;
        }
        sleep_ms(10);
    }
    return -1;
}

/* Start the server; with `port` 0 it listens on a free port and is ready when
 * it logs it, otherwise it listens on `port` and is ready when it accepts. */
static int start(struct server *s, const char *command, const char *const *args,
                 bool (*keep)(void *cls, const char *line, size_t len), void *cls, int port)
{
    memset(s, 0, sizeof(*s));
    struct server_proc *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return -1;
    p->keep = keep;
    p->keep_cls = cls;
    p->test = current_test;
    pthread_mutex_init(&p->mu, NULL);
    p->log_cap = 65536;
    p->log = calloc(1, p->log_cap);
    s->proc = p;
    pthread_mutex_lock(&procs_mu);
    p->next = live;
    live = p;
    pthread_mutex_unlock(&procs_mu);
    int rc = p->log != NULL ? spawn(p, command, args, port) : -1;
    if (rc == 0)
        rc = await_ready(s, port);
    if (rc == 0) {
        s->pid = p->pid;
        return 0;
    }
    if (p->pid > 0)
        kill(p->pid, SIGKILL);
    proc_wait(p, 20000);
    proc_log_dump(p);
    server_release(s);
    return -1;
}

int agent_start(struct server *s, const char *const *args)
{
    return start(s, "agent", args, NULL, NULL, 0);
}

int server_start_filtered(struct server *s, const char *const *args,
                          bool (*keep)(void *cls, const char *line, size_t len), void *cls)
{
    return start(s, "serve", args, keep, cls, 0);
}

int server_start_quiet(struct server *s, const char *const *args)
{
    /* A free port: bound by the kernel, released, then taken by the server. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    socklen_t al = sizeof(a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &al) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return start(s, "serve", args, NULL, NULL, ntohs(a.sin_port));
}

int server_wait(struct server *s, int timeout_ms)
{
    int status = s->proc != NULL ? proc_wait(s->proc, timeout_ms) : -1;
    s->pid = 0;
    return status;
}

int server_kill_if_running(struct server *s)
{
    if (s->proc != NULL)
        server_stop(s, SIGKILL);
    return 0;
}

int server_stop_clean(struct server *s)
{
    bool errors = server_log_find(s, 0, "\"level\":\"error\"", NULL);
    if (errors)
        server_log_dump(s);
    int st = server_stop(s, SIGTERM);
    if (st != 0)
        fprintf(stderr, "the server exited with status %d\n", st);
    return st == 0 && !errors ? 0 : -1;
}

int server_stop(struct server *s, int sig)
{
    struct server_proc *p = s->proc;
    if (p != NULL && p->pid > 0)
        kill(p->pid, sig);
    int st = server_wait(s, 40000);
    /* A server that did not exit 0 (a sanitizer report, a crash) shows why. */
    if (st != 0) {
        fprintf(stderr, "server_stop: the server exited with status %d\n", st);
        server_log_dump(s);
    }
    server_release(s);
    return st;
}

/* After a test that did not return (a failed assertion): end every server it
 * started and left running, without touching the `struct server` that named it
 * (it may have been on the test's stack). Its log shows what it saw. */
static void reap_failed_test(unsigned test)
{
    pthread_mutex_lock(&procs_mu);
    for (struct server_proc **at = &live; *at != NULL;) {
        struct server_proc *p = *at;
        if (p->test != test) {
            at = &p->next;
            continue;
        }
        *at = p->next;
        if (p->pid > 0) {
            fprintf(stderr, "harness: the failed test left server %d running; killed\n",
                    (int)p->pid);
            kill(p->pid, SIGKILL);
            proc_wait(p, 20000);
            proc_log_dump(p);
        } else {
            proc_wait(p, 0);
        }
        p->reaped = true;
        p->next = reaped;
        reaped = p;
    }
    pthread_mutex_unlock(&procs_mu);
}

/* The KiB of field `name` ("VmRSS:") of /proc/PID/status; -1 when unreadable. */
static long status_kib(const struct server *s, const char *name)
{
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)s->pid);
    FILE *fp = s->pid > 0 ? fopen(path, "r") : NULL;
    long kib = -1;
    while (fp != NULL && fgets(line, sizeof(line), fp) != NULL) {
        if (strncmp(line, name, strlen(name)) == 0) {
            kib = strtol(line + strlen(name), NULL, 10);
            break;
        }
    }
    if (fp != NULL)
        fclose(fp);
    return kib;
}

long server_rss_kib(const struct server *s)
{
    return status_kib(s, "VmRSS:");
}

long server_peak_rss_kib(const struct server *s)
{
    return status_kib(s, "VmHWM:");
}

long server_fd_count(const struct server *s)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd", (int)s->pid);
    DIR *d = s->pid > 0 ? opendir(path) : NULL;
    if (d == NULL)
        return -1;
    long n = 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] != '.')
            n++;
    }
    closedir(d);
    return n;
}

long server_fd_wait(const struct server *s, long at_most, int timeout_ms)
{
    long end = now_ms() + timeout_ms;
    long n = server_fd_count(s);
    while ((n < 0 || n > at_most) && now_ms() < end) {
        sleep_ms(20);
        n = server_fd_count(s);
    }
    return n;
}

double server_cpu_ms(const struct server *s)
{
    char path[64], stat[384];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)s->pid);
    DIR *d = s->pid > 0 ? opendir(path) : NULL;
    if (d == NULL)
        return -1;
    double ns = 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(stat, sizeof(stat), "%s/%s/schedstat", path, e->d_name);
        FILE *fp = fopen(stat, "r");
        unsigned long long run = 0;
        if (fp != NULL && fscanf(fp, "%llu", &run) == 1)
            ns += (double)run;
        if (fp != NULL)
            fclose(fp);
    }
    closedir(d);
    return ns / 1e6;
}

/* Sum a queue column of the /proc/net/tcp and tcp6 rows whose local port is
 * `port`: rx_queue (`rx_column`) or tx_queue, of LISTEN rows only (`listen`) or
 * of all; -1 when no row matched. */
static long tcp_queue(int port, bool rx_column, bool listen)
{
    static const char *const files[] = {"/proc/net/tcp", "/proc/net/tcp6"};
    long total = 0;
    bool found = false;
    for (size_t f = 0; f < 2; f++) {
        FILE *fp = fopen(files[f], "r");
        char line[512];
        while (fp != NULL && fgets(line, sizeof(line), fp) != NULL) {
            char local[64];
            unsigned state = 0;
            unsigned long tx = 0, rx = 0;
            if (sscanf(line, " %*d: %63s %*s %x %lx:%lx", local, &state, &tx, &rx) != 4)
                continue;
            const char *colon = strrchr(local, ':');
            if (colon == NULL || strtol(colon + 1, NULL, 16) != port ||
                (listen && state != 0x0A)) /* TCP_LISTEN */
                continue;
            found = true;
            total += (long)(rx_column ? rx : tx);
        }
        if (fp != NULL)
            fclose(fp);
    }
    return found ? total : -1;
}

long tcp_send_queue_bytes(int port)
{
    long v = tcp_queue(port, false, false);
    return v < 0 ? 0 : v;
}

long tcp_accept_queue(int port)
{
    return tcp_queue(port, true, true);
}

bool server_running(const struct server *s)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)s->pid);
    FILE *fp = s->pid > 0 ? fopen(path, "r") : NULL;
    if (fp == NULL)
        return false;
    size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the state follows the command name */
    return p != NULL && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X' && p[2] != '\0';
}

long raise_nofile_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return -1;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            getrlimit(RLIMIT_NOFILE, &rl);
    }
    return rl.rlim_cur == RLIM_INFINITY ? LONG_MAX : (long)rl.rlim_cur;
}

/* ---- HTTP --------------------------------------------------------------------- */

struct sink {
    char *p;
    size_t len;
};

static size_t sink_write(char *data, size_t size, size_t n, void *cls)
{
    struct sink *k = cls;
    size_t add = size * n;
    char *p = realloc(k->p, k->len + add + 1);
    if (p == NULL)
        return 0;
    memcpy(p + k->len, data, add);
    k->p = p;
    k->len += add;
    k->p[k->len] = '\0';
    return add;
}

int http(struct server *s, const char *method, const char *path, const char *ctype,
         const char *body, size_t len, const char *const *headers, struct resp *out)
{
    char url[512], ct[256];
    memset(out, 0, sizeof(*out));
    CURL *c = curl_easy_init();
    if (c == NULL)
        return -1;
    snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", s->port, path);
    struct sink b = {NULL, 0}, h = {NULL, 0};
    struct curl_slist *hl = NULL;
    if (ctype != NULL) {
        snprintf(ct, sizeof(ct), "Content-Type: %s", ctype);
        hl = curl_slist_append(hl, ct);
    } else if (body != NULL) {
        hl = curl_slist_append(hl, "Content-Type:"); /* no Content-Type at all */
    }
    hl = curl_slist_append(hl, "Expect:");
    for (size_t i = 0; headers != NULL && headers[i] != NULL; i++)
        hl = curl_slist_append(hl, headers[i]);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (strcmp(method, "HEAD") == 0)
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    if (body != NULL) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    }
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, sink_write);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &h);
    /* A bound for a hang, not a timing assertion: an ASan build on a loaded
     * machine can take seconds for an explained request. */
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
    CURLcode rc = curl_easy_perform(c);
    if (rc == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
    curl_slist_free_all(hl);
    curl_easy_cleanup(c);
    out->body = b.p != NULL ? b.p : calloc(1, 1);
    out->len = b.len;
    out->headers = h.p != NULL ? h.p : calloc(1, 1);
    out->headers_len = h.len;
    if (rc != CURLE_OK)
        fprintf(stderr, "http %s %s: %s\n", method, path, curl_easy_strerror(rc));
    return rc == CURLE_OK ? 0 : -1;
}

int http_get(struct server *s, const char *path, struct resp *out)
{
    return http(s, "GET", path, NULL, NULL, 0, NULL, out);
}

const cJSON *rec_candidate(const cJSON *rec, const char *id)
{
    static const char *const lists[] = {"recommendations", "excluded"};
    for (size_t l = 0; l < 2; l++) {
        const cJSON *c = NULL;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(rec, lists[l]))
        {
            const char *aid = str_field(c, "accelerator");
            if (aid != NULL && strcmp(aid, id) == 0)
                return c;
        }
    }
    return NULL;
}

const cJSON *rec_reason(const cJSON *candidate, const char *rule_id)
{
    const cJSON *r = NULL;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(candidate, "reasons"))
    {
        const char *id = str_field(r, "rule_id");
        if (id != NULL && strcmp(id, rule_id) == 0)
            return r;
    }
    return NULL;
}

bool metric_find(const char *body, const char *series, double *out)
{
    size_t n = strlen(series);
    for (const char *p = body; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p ? p + 1 : p) {
        if (strncmp(p, series, n) == 0 && p[n] == ' ') {
            *out = strtod(p + n + 1, NULL);
            return true;
        }
    }
    return false;
}

long scrape_metric(int port, const char *name)
{
    struct server at;
    struct resp m;
    char needle[160];
    long v = -1;
    memset(&at, 0, sizeof(at));
    at.port = port;
    snprintf(needle, sizeof(needle), "\n%s ", name);
    if (http_get(&at, "/metrics", &m) == 0 && m.status == 200) {
        const char *p = strstr(m.body, needle);
        v = p != NULL ? strtol(p + strlen(needle), NULL, 10) : -1;
    }
    resp_free(&m);
    return v;
}

/* Scrape `name` until it reads `want` (or at least `want`, `at_least`). */
static long wait_metric(int port, const char *name, long want, bool at_least, int timeout_ms)
{
    long end = now_ms() + timeout_ms;
    long v = scrape_metric(port, name);
    while ((at_least ? v < want : v != want) && now_ms() < end) {
        sleep_ms(10);
        v = scrape_metric(port, name);
    }
    return v;
}

long metric_wait(int port, const char *name, long want, int timeout_ms)
{
    return wait_metric(port, name, want, false, timeout_ms);
}

long metric_wait_min(int port, const char *name, long least, int timeout_ms)
{
    return wait_metric(port, name, least, true, timeout_ms);
}

bool metrics_wait(int port, const char *needle, int timeout_ms)
{
    struct server at;
    memset(&at, 0, sizeof(at));
    at.port = port;
    long end = now_ms() + timeout_ms;
    for (;;) {
        struct resp m;
        bool found =
            http_get(&at, "/metrics", &m) == 0 && m.status == 200 && strstr(m.body, needle) != NULL;
        resp_free(&m);
        if (found || now_ms() >= end)
            return found;
        sleep_ms(10);
    }
}

int http_post_json(struct server *s, const char *path, const char *body, struct resp *out)
{
    return http(s, "POST", path, "application/json", body, strlen(body), NULL, out);
}

bool resp_header(const struct resp *r, const char *name, char *buf, size_t len)
{
    size_t nl = strlen(name);
    const char *p = r->headers;
    while (p != NULL && *p != '\0') {
        const char *eol = strstr(p, "\r\n");
        size_t ll = eol != NULL ? (size_t)(eol - p) : strlen(p);
        if (ll > nl && strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
            const char *v = p + nl + 1;
            while (*v == ' ')
                v++;
            size_t vl = ll - (size_t)(v - p);
            if (vl >= len)
                vl = len - 1;
            memcpy(buf, v, vl);
            buf[vl] = '\0';
            return true;
        }
        p = eol != NULL ? eol + 2 : NULL;
    }
    return false;
}

cJSON *resp_json(const struct resp *r)
{
    return r->body != NULL ? cJSON_ParseWithLength(r->body, r->len) : NULL;
}

void resp_free(struct resp *r)
{
    free(r->body);
    free(r->headers);
    memset(r, 0, sizeof(*r));
}

/* ---- the contract ---------------------------------------------------------------- */

static api_contract *contract;
static struct {
    char entry[512];
    api_schema *schema;
} compiled[64];
static size_t n_compiled;
static pthread_mutex_t contract_mu = PTHREAD_MUTEX_INITIALIZER;

static const api_schema *schema_at(const char *entry)
{
    struct dc_error err;
    pthread_mutex_lock(&contract_mu);
    if (contract == NULL && api_contract_load_embedded(aa_embedded_files, &contract, &err) != DC_OK)
        fail_msg("contract: %s", err.msg);
    for (size_t i = 0; i < n_compiled; i++) {
        if (strcmp(compiled[i].entry, entry) == 0) {
            pthread_mutex_unlock(&contract_mu);
            return compiled[i].schema;
        }
    }
    api_schema *sch = NULL;
    if (n_compiled == 64 ||
        api_schema_compile(api_contract_root(contract), entry, &sch, &err) != DC_OK)
        fail_msg("cannot compile %s: %s", entry, err.msg);
    snprintf(compiled[n_compiled].entry, sizeof(compiled[0].entry), "%s", entry);
    compiled[n_compiled++].schema = sch;
    pthread_mutex_unlock(&contract_mu);
    return sch;
}

static void validate_at(const cJSON *json, const char *entry, const char *what)
{
    struct api_schema_result vr = {0};
    struct dc_error err;
    const api_schema *sch = schema_at(entry);
    if (api_schema_validate(sch, json, 20, &vr, &err) != DC_OK)
        fail_msg("%s: validator error %s", what, err.msg);
    if (!vr.valid) {
        char *text = cJSON_PrintUnformatted(json);
        fprintf(stderr, "%s: body does not match %s:\n", what, entry);
        for (size_t i = 0; i < vr.count; i++)
            fprintf(stderr, "  %s: %s (%s)\n", vr.items[i].pointer, vr.items[i].message,
                    vr.items[i].keyword);
        fprintf(stderr, "  body: %.2000s\n", text != NULL ? text : "?");
        cJSON_free(text);
        api_schema_result_cleanup(&vr);
        fail_msg("%s: response does not match the contract", what);
    }
    api_schema_result_cleanup(&vr);
}

void check_component(const cJSON *json, const char *name)
{
    char entry[256];
    snprintf(entry, sizeof(entry), "#/components/schemas/%s", name);
    validate_at(json, entry, name);
}

/* The headers the contract declares for response `resp` (at `rptr`): each one
 * marked required is present, and every one present has a value its schema
 * accepts (a number for integer and number schemas, as the simple style reads). */
static void check_headers(const struct resp *r, const cJSON *root, const cJSON *resp,
                          const char *rptr, const char *what)
{
    const cJSON *h = NULL;
    cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(resp, "headers"))
    {
        char entry[900], value[1024];
        const cJSON *def = h;
        const cJSON *ref = cJSON_GetObjectItemCaseSensitive(h, "$ref");
        if (cJSON_IsString(ref)) {
            snprintf(entry, sizeof(entry), "%s", ref->valuestring);
            def = api_json_pointer_get(root, entry);
        } else {
            snprintf(entry, sizeof(entry), "%s/headers", rptr);
            api_json_pointer_append(entry, sizeof(entry), h->string);
        }
        if (!resp_header(r, h->string, value, sizeof(value))) {
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(def, "required")))
                fail_msg("%s: the required header %s is missing", what, h->string);
            continue;
        }
        const char *type = str_field(cJSON_GetObjectItemCaseSensitive(def, "schema"), "type");
        bool number = type != NULL && (strcmp(type, "integer") == 0 || strcmp(type, "number") == 0);
        cJSON *v = number ? cJSON_CreateNumber(strtod(value, NULL)) : cJSON_CreateString(value);
        char hwhat[2048];
        snprintf(hwhat, sizeof(hwhat), "%s: header %s: %s", what, h->string, value);
        strncat(entry, "/schema", sizeof(entry) - strlen(entry) - 1);
        validate_at(v, entry, hwhat);
        cJSON_Delete(v);
    }
}

void check_contract(const struct resp *r, const char *method, const char *path_template)
{
    char ptr[512] = "#/paths", lower[16], what[600], ctype[256], media[256];
    snprintf(what, sizeof(what), "%s %s -> %ld", method, path_template, r->status);
    schema_at("#/components/schemas/Problem"); /* loads the contract */
    const cJSON *root = api_contract_root(contract);
    size_t i = 0;
    for (; method[i] != '\0' && i + 1 < sizeof(lower); i++)
        lower[i] = (char)(method[i] >= 'A' && method[i] <= 'Z' ? method[i] + 32 : method[i]);
    lower[i] = '\0';
    api_json_pointer_append(ptr, sizeof(ptr), path_template);
    api_json_pointer_append(ptr, sizeof(ptr), lower);
    if (!resp_header(r, "Content-Type", ctype, sizeof(ctype)))
        ctype[0] = '\0';
    snprintf(media, sizeof(media), "%s", ctype);
    char *semi = strchr(media, ';');
    if (semi != NULL)
        *semi = '\0';
    const cJSON *op = api_json_pointer_get(root, ptr);
    if (op == NULL) {
        /* No such operation: the body must be a Problem. */
        if (strcmp(media, "application/problem+json") != 0)
            fail_msg("%s: expected application/problem+json, got \"%s\"", what, ctype);
        cJSON *j = resp_json(r);
        if (j == NULL)
            fail_msg("%s: body is not JSON", what);
        validate_at(j, "#/components/schemas/Problem", what);
        cJSON_Delete(j);
        return;
    }
    char code[16], rptr[600];
    snprintf(code, sizeof(code), "%ld", r->status);
    snprintf(rptr, sizeof(rptr), "%s/responses", ptr);
    const cJSON *responses = api_json_pointer_get(root, rptr);
    const cJSON *resp = cJSON_GetObjectItemCaseSensitive(responses, code);
    if (resp == NULL) {
        resp = cJSON_GetObjectItemCaseSensitive(responses, "default");
        snprintf(code, sizeof(code), "default");
    }
    if (resp == NULL)
        fail_msg("%s: the contract declares no response %ld (and no default)", what, r->status);
    api_json_pointer_append(rptr, sizeof(rptr), code);
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(resp, "$ref");
    if (cJSON_IsString(ref)) {
        snprintf(rptr, sizeof(rptr), "%s", ref->valuestring);
        resp = api_json_pointer_get(root, rptr);
    }
    check_headers(r, root, resp, rptr, what);
    if (r->status == 204 || r->status == 304 || strcmp(method, "HEAD") == 0)
        return; /* no body */
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(resp, "content");
    if (cJSON_GetObjectItemCaseSensitive(content, media) == NULL)
        fail_msg("%s: media type \"%s\" is not declared for this response", what, media);
    char entry[900];
    snprintf(entry, sizeof(entry), "%s/content", rptr);
    api_json_pointer_append(entry, sizeof(entry), media);
    strncat(entry, "/schema", sizeof(entry) - strlen(entry) - 1);
    cJSON *j = NULL;
    if (strstr(media, "json") != NULL) {
        j = resp_json(r);
        if (j == NULL)
            fail_msg("%s: body is not JSON", what);
    } else {
        j = cJSON_CreateString(r->body);
    }
    validate_at(j, entry, what);
    cJSON_Delete(j);
}

/* ---- files ---------------------------------------------------------------------- */

char *read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf == NULL || fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        fclose(fp);
        return NULL;
    }
    fclose(fp);
    buf[n] = '\0';
    if (len != NULL)
        *len = (size_t)n;
    return buf;
}

int write_file(const char *path, const char *data, size_t len)
{
    char tmp[1024 + 32]; /* path (callers pass up to 1023 characters) + ".tmp" + pid */
    snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid());
    FILE *fp = fopen(tmp, "wb");
    if (fp == NULL)
        return -1;
    size_t w = fwrite(data, 1, len, fp);
    if (fclose(fp) != 0 || w != len)
        return -1;
    return rename(tmp, path); /* atomic, as editors and kubelet replace files */
}

char *make_temp_dir(void)
{
    char tmpl[] = "/tmp/aa-it-XXXXXX";
    char *d = mkdtemp(tmpl);
    return d != NULL ? strdup(d) : NULL;
}

int copy_rules(const char *dir)
{
    char src[1024], dst[1024];
    snprintf(src, sizeof(src), "%s/rules", h_source_dir);
    DIR *d = opendir(src);
    if (d == NULL)
        return -1;
    const struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        size_t nl = strlen(e->d_name);
        if (e->d_name[0] == '.' || nl < 6 || strcmp(e->d_name + nl - 5, ".yaml") != 0)
            continue;
        snprintf(src, sizeof(src), "%s/rules/%s", h_source_dir, e->d_name);
        snprintf(dst, sizeof(dst), "%s/%s", dir, e->d_name);
        size_t len = 0;
        char *data = read_file(src, &len);
        if (data == NULL || write_file(dst, data, len) != 0)
            rc = -1;
        free(data);
    }
    closedir(d);
    return rc;
}

int touch_rules(const char *dir, int n)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/rules.yaml", dir);
    size_t len = 0;
    char *data = read_file(path, &len);
    if (data == NULL)
        return -1;
    /* Prefix the first plain description with a marker: the canonical content,
     * and so the version, changes; the rules stay valid. */
    const char *key = "\n    description: ";
    char *p = strstr(data, key);
    if (p == NULL) {
        free(data);
        return -1;
    }
    size_t at = (size_t)(p - data) + strlen(key);
    char mark[32];
    snprintf(mark, sizeof(mark), "Reload %d, ", n);
    size_t ml = strlen(mark);
    char *out = malloc(len + ml + 1);
    memcpy(out, data, at);
    memcpy(out + at, mark, ml);
    memcpy(out + at + ml, data + at, len - at);
    int rc = write_file(path, out, len + ml);
    free(out);
    free(data);
    return rc;
}

void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    const struct dirent *e;
    char path[1024];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

/* ---- raw sockets ------------------------------------------------------------------ */

int raw_connect(struct server *s)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)s->port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int raw_send(int fd, const char *data, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t n = send(fd, data + off, len - off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        off += (size_t)n;
    }
    return 0;
}

static const char *find_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; *p != '\0'; p++) {
        if (strncasecmp(p, needle, n) == 0)
            return p;
    }
    return NULL;
}

char *raw_read_response(int fd, int timeout_ms)
{
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    long end = now_ms() + timeout_ms;
    while (buf != NULL) {
        buf[len] = '\0';
        const char *hend = strstr(buf, "\r\n\r\n");
        if (hend != NULL) {
            const char *cl = find_ci(buf, "\r\nContent-Length:");
            size_t want = cl != NULL && cl < hend ? (size_t)atol(cl + 17) : 0;
            if (len >= (size_t)(hend + 4 - buf) + want)
                break;
        }
        long left = end - now_ms();
        if (left <= 0)
            break;
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, (int)left) <= 0)
            break;
        if (len + 4096 + 1 > cap) {
            cap *= 2;
            char *p = realloc(buf, cap);
            if (p == NULL) {
                free(buf);
                return NULL;
            }
            buf = p;
        }
        ssize_t n = recv(fd, buf + len, cap - len - 1, 0);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    if (buf != NULL)
        buf[len] = '\0';
    return buf;
}

void check_promtool(const struct resp *r)
{
    char path[] = "/tmp/aa-metrics-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        fail_msg("mkstemp: %s", strerror(errno));
    if (write(fd, r->body, r->len) != (ssize_t)r->len) {
        close(fd);
        unlink(path);
        fail_msg("cannot write %s", path);
    }
    close(fd);
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "promtool check metrics < %s", path);
    int rc = system(cmd);
    unlink(path);
    if (rc != 0) {
        fprintf(stderr, "%s\n", r->body);
        fail_msg("promtool check metrics failed (%d)", rc);
    }
}

const char *str_field(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

void expect_problem(const struct resp *r, long status, const char *type, const char *method,
                    const char *path)
{
    char ct[128];
    if (r->status != status)
        fprintf(stderr, "got %ld: %s\n", r->status, r->body);
    assert_int_equal(r->status, status);
    assert_true(resp_header(r, "Content-Type", ct, sizeof(ct)));
    assert_string_equal(ct, "application/problem+json");
    cJSON *j = resp_json(r);
    assert_non_null(j);
    assert_string_equal(str_field(j, "type"), type);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(j, "status")->valueint, status);
    char id[128];
    assert_true(resp_header(r, "X-Request-Id", id, sizeof(id)));
    assert_string_equal(str_field(j, "request_id"), id);
    cJSON_Delete(j);
    check_contract(r, method, path);
}

int harness_init(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s ACCEL_ADVISOR_BINARY SOURCE_DIR\n", argv[0]);
        return 2;
    }
    h_binary = argv[1];
    h_source_dir = argv[2];
    signal(SIGPIPE, SIG_IGN);
    curl_global_init(CURL_GLOBAL_ALL);
    return 0;
}

/* harness_run runs each test through these wrappers: a test whose function did
 * not return (a failed assertion jumped out of it) gets every server it started
 * and left running killed after its own teardown, so the rest of the group runs
 * on a clean slate. cmocka runs set-up, test and teardown of one test in turn
 * on this thread. */
static const struct CMUnitTest *run_tests;
static size_t run_next;    /* the index of the next test's set-up */
static size_t run_at;      /* the index of the test running now */
static unsigned run_count; /* serials of the tests run so far */
static bool test_returned;

static int wrap_setup(void **state)
{
    run_at = run_next++;
    current_test = ++run_count;
    test_returned = false;
    CMFixtureFunction f = run_tests[run_at].setup_func;
    return f != NULL ? f(state) : 0;
}

static void wrap_test(void **state)
{
    run_tests[run_at].test_func(state);
    test_returned = true;
}

static int wrap_teardown(void **state)
{
    CMFixtureFunction f = run_tests[run_at].teardown_func;
    int rc = f != NULL ? f(state) : 0;
    if (!test_returned)
        reap_failed_test(current_test);
    current_test = 0;
    return rc;
}

int harness_run(const char *name, const struct CMUnitTest *tests, size_t n, CMFixtureFunction setup,
                CMFixtureFunction teardown)
{
    struct CMUnitTest *wrapped = calloc(n, sizeof(*wrapped));
    if (wrapped == NULL)
        return (int)n;
    for (size_t i = 0; i < n; i++) {
        wrapped[i] = tests[i];
        wrapped[i].test_func = wrap_test;
        wrapped[i].setup_func = wrap_setup;
        wrapped[i].teardown_func = wrap_teardown;
    }
    run_tests = tests;
    run_next = 0;
    int failed = _cmocka_run_group_tests(name, wrapped, n, setup, teardown);
    free(wrapped);
    run_tests = NULL;
    pthread_mutex_lock(&procs_mu);
    while (reaped != NULL) {
        struct server_proc *p = reaped;
        reaped = p->next;
        proc_free(p);
    }
    pthread_mutex_unlock(&procs_mu);
    curl_global_cleanup();
    return failed;
}
