/* tests/integration/harness.c -- see harness.h: the server process and its log,
 * files, and the test runner; the HTTP client and the contract checks are in
 * harness_http.c. */
#include "harness.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>

const char *h_binary;
const char *h_source_dir;

long h_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

void h_sleep_ms(long ms)
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
    long end = h_now_ms() + timeout_ms;
    while (h_now_ms() < end) {
        if (server_log_find(s, from, needle, NULL))
            return true;
        h_sleep_ms(10);
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
        long end = h_now_ms() + timeout_ms;
        int st = 0;
        for (;;) {
            pid_t w = waitpid(p->pid, &st, WNOHANG);
            if (w == p->pid) {
                status = decode_status(st);
                break;
            }
            if (h_now_ms() >= end) {
                kill(p->pid, SIGKILL);
                waitpid(p->pid, &st, 0);
                status = -2;
                break;
            }
            h_sleep_ms(10);
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
    long end = h_now_ms() + 20000;
    while (h_now_ms() < end) {
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
        h_sleep_ms(10);
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
    long end = h_now_ms() + timeout_ms;
    long n = server_fd_count(s);
    while ((n < 0 || n > at_most) && h_now_ms() < end) {
        h_sleep_ms(20);
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
 * of all; -1 when no row matched. The largest single row in *most. */
static long tcp_queue(int port, bool rx_column, bool listen, long *most)
{
    static const char *const files[] = {"/proc/net/tcp", "/proc/net/tcp6"};
    long total = 0, top = 0;
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
            long v = (long)(rx_column ? rx : tx);
            total += v;
            top = v > top ? v : top;
        }
        if (fp != NULL)
            fclose(fp);
    }
    if (most != NULL)
        *most = top;
    return found ? total : -1;
}

long tcp_send_queue_bytes(int port, long *most)
{
    long v = tcp_queue(port, false, false, most);
    return v < 0 ? 0 : v;
}

long kernel_send_bound(long send_buffer_bytes)
{
    return 2 * send_buffer_bytes + 65536;
}

long tcp_accept_queue(int port)
{
    return tcp_queue(port, true, true, NULL);
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
