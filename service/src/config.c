/* service/src/config.c -- settings from flags, environment and file, one table. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dc/yaml.h"
#include "fleet.h"
#include "http.h"
#include "log.h"
#include "rulesrc.h"

extern char **environ;

#define ENV_PREFIX     "ACCEL_ADVISOR_"
#define CONFIG_ENV     ENV_PREFIX "CONFIG"
#define MAX_FILE_BYTES (1u << 20)

/* T_MS: a duration stored in milliseconds, written N (seconds) or with a unit:
 * 500ms, 10s, 5m, 1h. */
enum type { T_STR, T_UINT, T_BYTES, T_BOOL, T_MS };

struct setting {
    const char *name; /* file key; the flag and variable are derived from it */
    enum type type;
    size_t off;
    unsigned long min, max;
    const char *dflt;
    const char *meta;
    const char *help;
};

#define OFF(f)  offsetof(struct svc_config, f)
#define STR(x)  #x
#define XSTR(x) STR(x)

static const struct setting settings[] = {
    {"listen", T_STR, OFF(listen), 0, 0, SVC_DEFAULT_LISTEN, "HOST:PORT",
     "address to listen on; port 0 picks a free port (logged at start-up); [::1]:8080 for IPv6"},
    {"threads", T_UINT, OFF(threads), 0, SVC_MAX_THREADS, "0", "N",
     "HTTP worker threads (epoll each); 0 = one per online CPU"},
    {"rules", T_STR, OFF(rules), 0, 0, "", "DIR",
     "rule-set directory (catalog.yaml, sizing.yaml, rule files); empty = the built-in rules"},
    {"rules_watch", T_BOOL, OFF(rules_watch), 0, 0, "true", "BOOL",
     "reload when the rules directory changes (inotify, ConfigMap ..data swaps included)"},
    {"rules_poll_interval_ms", T_UINT, OFF(rules_poll_interval_ms), 100, 3600000, "5000", "MS",
     "how often to poll the rules directory when inotify is unavailable or lost"},
    {"rules_debounce_ms", T_UINT, OFF(rules_debounce_ms), 0, 60000, "500", "MS",
     "quiet time after the last change before reloading"},
    {"max_body_bytes", T_BYTES, OFF(max_body_bytes), 64, SVC_MAX_BODY_BYTES_LIMIT, "1MiB", "BYTES",
     "largest request body (413 past it); suffixes KiB, MiB allowed"},
    {"max_json_depth", T_UINT, OFF(max_json_depth), 2, 256, XSTR(SVC_DEFAULT_MAX_JSON_DEPTH), "N",
     "deepest nesting of arrays and objects in a body (400 past it)"},
    {"max_batch", T_UINT, OFF(max_batch), 1, SVC_MAX_BATCH_LIMIT, XSTR(SVC_DEFAULT_MAX_BATCH), "N",
     "most workloads in one POST /v1/recommendations:batch (413 past it)"},
    {"max_connections", T_UINT, OFF(max_connections), 1, SVC_MAX_CONNECTIONS_LIMIT,
     XSTR(SVC_DEFAULT_MAX_CONNECTIONS), "N",
     "open client connections served; requests on connections past it get 503"},
    {"connection_timeout_s", T_UINT, OFF(connection_timeout_s), 1, 86400,
     XSTR(SVC_DEFAULT_CONNECTION_TIMEOUT_S), "SECONDS",
     "idle time after which a client connection is closed"},
    {"request_timeout_s", T_UINT, OFF(request_timeout_s), 1, 86400,
     XSTR(SVC_DEFAULT_REQUEST_TIMEOUT_S), "SECONDS",
     "longest a client may take to send one request, headers and body, counted from the "
     "connection's accept or the end of its previous response; then the connection is closed"},
    {"admin_listen", T_STR, OFF(admin_listen), 0, 0, "", "HOST:PORT",
     "also serve /healthz and /metrics (and for serve /readyz; only those) on this address, with "
     "connections of its own, so probes and scrapes are answered under a connection flood; "
     "empty = off"},
    {"max_buffered_body_bytes", T_BYTES, OFF(max_buffered_body_bytes), 64 * 1024,
     SVC_MAX_BUFFERED_BYTES_LIMIT, "64MiB", "BYTES",
     "request bodies held in memory at once, all requests together (503 with Retry-After "
     "past it)"},
    {"max_queued_response_bytes", T_BYTES, OFF(max_queued_response_bytes), 64 * 1024,
     SVC_MAX_BUFFERED_BYTES_LIMIT, "64MiB", "BYTES",
     "response bodies waiting for slow clients to read them, all requests together (503 with "
     "Retry-After past it)"},
    {"send_buffer_bytes", T_BYTES, OFF(send_buffer_bytes), 0, SVC_MAX_SEND_BUFFER_BYTES, "64KiB",
     "BYTES",
     "kernel send buffer of each client connection (SO_SNDBUF): a client that does not read "
     "makes the kernel hold at most twice it and one segment (64 KiB); 0 = the kernel's "
     "autotuning"},
    {"shutdown_grace_s", T_UINT, OFF(shutdown_grace_s), 0, 3600, XSTR(SVC_DEFAULT_SHUTDOWN_GRACE_S),
     "SECONDS", "on SIGTERM/SIGINT, how long in-flight requests may take to finish"},
    {"api_keys_file", T_STR, OFF(api_keys_file), 0, 0, "", "FILE",
     "SHA-256 digests of the API keys, one per line; empty = no authentication"},
    {"cors_origins", T_STR, OFF(cors_origins), 0, 0, "", "LIST",
     "comma-separated origins allowed by CORS (\"*\" = any); empty = CORS off"},
    {"cors_max_age_s", T_UINT, OFF(cors_max_age_s), 0, 86400, "600", "SECONDS",
     "how long browsers may cache a preflight answer"},
    {"access_log", T_BOOL, OFF(access_log), 0, 0, "true", "BOOL",
     "one JSON line per request on stderr"},
    {"log_level", T_STR, OFF(log_level), 0, 0, "info", "debug|info|warn|error",
     "the least severe log lines written (the access log is info)"},
    {"openapi_file", T_STR, OFF(openapi_file), 0, 0, "", "FILE",
     "serve and enforce this contract instead of the built-in openapi.yaml"},
    {"prefer_available", T_BOOL, OFF(prefer_available), 0, 0, "false", "BOOL",
     "default of the workloads' prefer_available (with a probe)"},
    {"cache_entries", T_UINT, OFF(cache_entries), 0, 1000000, XSTR(SVC_DEFAULT_CACHE_ENTRIES), "N",
     "recommendation bodies memoised by exact request bytes and rules version; 0 = off"},
    {"cache_max_bytes", T_BYTES, OFF(cache_max_bytes), 0, 1u << 30, "8MiB", "BYTES",
     "memory the recommendation cache may hold"},
    {"probe", T_BOOL, OFF(probe), 0, 0, "false", "BOOL",
     "probe the accelerators attached to this host (GET /v1/inventory, availability)"},
    {"probe_interval", T_MS, OFF(probe_interval_ms), SVC_PROBE_INTERVAL_MIN_MS,
     SVC_PROBE_INTERVAL_MAX_MS, "10s", "DURATION",
     "time between probes (N seconds, or with a unit: 500ms, 10s, 5m)"},
    {"probe_timeout", T_MS, OFF(probe_timeout_ms), SVC_PROBE_INTERVAL_MIN_MS,
     SVC_PROBE_INTERVAL_MAX_MS, "5s", "DURATION",
     "a probe running longer counts as an error (source \"timeout\") and marks the "
     "inventory stale"},
    {"sysfs_root", T_STR, OFF(sysfs_root), 0, 0, "/sys", "DIR",
     "the directory the probe reads as /sys"},
    {"dev_root", T_STR, OFF(dev_root), 0, 0, "/dev", "DIR",
     "the directory the probe reads as /dev"},
    {"proc_root", T_STR, OFF(proc_root), 0, 0, "/proc", "DIR",
     "the directory the probe reads as /proc"},
    {"nvml", T_STR, OFF(nvml), 0, 0, "auto", "auto|off|PATH",
     "NVML: auto (libnvidia-ml.so.1 when present), off, or the library to load"},
    {"node_name", T_STR, OFF(node_name), 0, 0, "", "NAME",
     "the node label of the probe's device series on /metrics (the Kubernetes node name, "
     "from the downward API); empty = this host's name"},
    {"fleet_prometheus", T_STR, OFF(fleet_prometheus), 0, 0, "", "URL",
     "read what is free across the fleet from the Prometheus HTTP API at URL (http or https; "
     "node agents and dcgm-exporter scraped by it): GET /v1/fleet and availability in "
     "answers; empty = off"},
    {"fleet_bearer_token_file", T_STR, OFF(fleet_bearer_token_file), 0, 0, "", "FILE",
     "send the token in FILE as Authorization: Bearer to Prometheus (read at every refresh, so "
     "a rotated token is used; never logged); empty = none"},
    {"fleet_ca_file", T_STR, OFF(fleet_ca_file), 0, 0, "", "FILE",
     "PEM certificates to verify Prometheus's https certificate with; empty = the system's"},
    {"fleet_timeout", T_MS, OFF(fleet_timeout_ms), SVC_FLEET_TIMEOUT_MIN_MS,
     SVC_FLEET_TIMEOUT_MAX_MS, "5s", "DURATION",
     "longest one Prometheus query may take, connecting included; a slower one is an error and "
     "the last snapshot stays"},
    {"fleet_interval", T_MS, OFF(fleet_interval_ms), SVC_FLEET_INTERVAL_MIN_MS,
     SVC_PROBE_INTERVAL_MAX_MS, "15s", "DURATION", "time between fleet refreshes"},
    {"fleet_stale_after", T_MS, OFF(fleet_stale_after_ms), SVC_FLEET_INTERVAL_MIN_MS,
     SVC_FLEET_STALE_MAX_MS, "2m", "DURATION",
     "a fleet snapshot older than this is stale: answers go on using it, marked stale with a "
     "warning"},
    {"fleet_max_response_bytes", T_BYTES, OFF(fleet_max_response_bytes),
     SVC_FLEET_RESPONSE_BYTES_MIN, SVC_FLEET_RESPONSE_BYTES_LIMIT, "8MiB", "BYTES",
     "largest Prometheus answer read; a larger one is an error and the last snapshot stays"},
    {"fleet_max_series", T_UINT, OFF(fleet_max_series), 1, SVC_FLEET_SERIES_LIMIT, "20000", "N",
     "most series one fleet query may return; more is an error (a series storm) and the last "
     "snapshot stays"},
    {"fleet_cluster_label", T_STR, OFF(fleet_cluster_label), 0, 0, "cluster", "LABEL",
     "the series label naming a device's cluster, for per-cluster counts in GET /v1/fleet; "
     "empty = none"},
};

/* The settings of `accel-advisor agent`, and the defaults it changes (NULL: the
 * server's); every other setting is the server's alone. */
static const struct {
    const char *name;
    const char *dflt;
} agent_settings[] = {
    {"listen", SVC_AGENT_DEFAULT_LISTEN},
    {"admin_listen", NULL},
    /* Probes and scrapes send their request at once: a client that has not
     * within 5 s is slow or hostile (the admin listener's ADMIN_REQUEST_TIMEOUT_S). */
    {"connection_timeout_s", "5"},
    {"request_timeout_s", "5"},
    {"access_log", NULL},
    {"rules", NULL},
    {"log_level", NULL},
    {"probe_interval", NULL},
    {"probe_timeout", NULL},
    {"sysfs_root", NULL},
    {"dev_root", NULL},
    {"proc_root", NULL},
    {"nvml", NULL},
    {"node_name", NULL},
};

#define N_SETTINGS (sizeof(settings) / sizeof(settings[0]))

_Static_assert(N_SETTINGS <= sizeof(((struct svc_config *)0)->source) /
                                 sizeof(((struct svc_config *)0)->source[0]),
               "struct svc_config.source has a slot per setting");

size_t svc_config_setting_count(void)
{
    return N_SETTINGS;
}

/* The agent's row for setting i, or -1 when the agent does not take it. */
static int agent_row(size_t i)
{
    for (size_t k = 0; k < sizeof(agent_settings) / sizeof(agent_settings[0]); k++) {
        if (i < N_SETTINGS && strcmp(agent_settings[k].name, settings[i].name) == 0)
            return (int)k;
    }
    return -1;
}

bool svc_config_setting_in_scope(size_t i, enum svc_config_scope scope)
{
    return i < N_SETTINGS && (scope == SVC_SCOPE_SERVE || agent_row(i) >= 0);
}

bool svc_config_command_scope(const char *command, enum svc_config_scope *out)
{
    if (strcmp(command, "serve") == 0)
        *out = SVC_SCOPE_SERVE;
    else if (strcmp(command, "agent") == 0)
        *out = SVC_SCOPE_AGENT;
    else
        return false;
    return true;
}

/* The default of setting i for `scope`. */
static const char *default_of(size_t i, enum svc_config_scope scope)
{
    int k = scope == SVC_SCOPE_AGENT ? agent_row(i) : -1;
    return k >= 0 && agent_settings[k].dflt != NULL ? agent_settings[k].dflt : settings[i].dflt;
}

const char *svc_config_setting_name(size_t i)
{
    return i < N_SETTINGS ? settings[i].name : NULL;
}

const char *svc_config_setting_meta(size_t i)
{
    return i < N_SETTINGS ? settings[i].meta : NULL;
}

const char *svc_config_source_name(enum svc_config_source s)
{
    switch (s) {
    case SVC_SRC_DEFAULT:
        return "default";
    case SVC_SRC_FILE:
        return "file";
    case SVC_SRC_ENV:
        return "environment";
    case SVC_SRC_FLAG:
        return "flag";
    }
    return "default";
}

static void flag_name(const struct setting *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s", s->name);
    for (char *p = buf; *p != '\0'; p++) {
        if (*p == '_')
            *p = '-';
    }
}

static void env_name(const struct setting *s, char *buf, size_t len)
{
    snprintf(buf, len, ENV_PREFIX "%s", s->name);
    for (char *p = buf; *p != '\0'; p++)
        *p = (char)toupper((unsigned char)*p);
}

/* The setting named `key` in a file ("max_body_bytes" or "max-body-bytes"). */
static const struct setting *find_key(const char *key, size_t len)
{
    for (size_t i = 0; i < N_SETTINGS; i++) {
        const char *n = settings[i].name;
        if (strlen(n) != len)
            continue;
        bool eq = true;
        for (size_t k = 0; k < len && eq; k++)
            eq = n[k] == key[k] || (n[k] == '_' && key[k] == '-');
        if (eq)
            return &settings[i];
    }
    return NULL;
}

static bool parse_uint(const char *v, unsigned long long *out, bool bytes)
{
    if (v[0] < '0' || v[0] > '9')
        return false;
    errno = 0;
    char *end = NULL;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno != 0)
        return false;
    if (bytes && *end != '\0') {
        unsigned long long mul = 0;
        if (strcmp(end, "KiB") == 0)
            mul = 1ull << 10;
        else if (strcmp(end, "MiB") == 0)
            mul = 1ull << 20;
        else if (strcmp(end, "GiB") == 0)
            mul = 1ull << 30;
        if (mul == 0 || n > UINT64_MAX / mul)
            return false;
        n *= mul;
        end += strlen(end);
    }
    if (*end != '\0')
        return false;
    *out = n;
    return true;
}

/* "N" (seconds), "Nms", "Ns", "Nm" or "Nh" to milliseconds. */
static bool parse_duration_ms(const char *v, unsigned long long *out)
{
    if (v[0] < '0' || v[0] > '9')
        return false;
    errno = 0;
    char *end = NULL;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno != 0)
        return false;
    unsigned long long mul = 0;
    if (*end == '\0' || strcmp(end, "s") == 0)
        mul = 1000;
    else if (strcmp(end, "ms") == 0)
        mul = 1;
    else if (strcmp(end, "m") == 0)
        mul = 60000;
    else if (strcmp(end, "h") == 0)
        mul = 3600000;
    if (mul == 0 || n > UINT64_MAX / mul)
        return false;
    *out = n * mul;
    return true;
}

static bool parse_bool(const char *v, bool *out)
{
    static const char *const yes[] = {"true", "yes", "on", "1"};
    static const char *const no[] = {"false", "no", "off", "0"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0) {
            *out = true;
            return true;
        }
        if (strcasecmp(v, no[i]) == 0) {
            *out = false;
            return true;
        }
    }
    return false;
}

/* HOST:PORT with a non-empty host ([v6] in brackets) and a port 0..65535. */
static bool valid_listen(const char *v, struct dc_error *err)
{
    const char *colon = NULL;
    if (v[0] == '[') {
        const char *close = strchr(v, ']');
        if (close == NULL || close == v + 1 || close[1] != ':') {
            dc_error_set(err, DC_EINVAL, NULL, "\"%s\" is not [IPV6]:PORT", v);
            return false;
        }
        colon = close + 1;
    } else {
        colon = strrchr(v, ':');
        if (colon == NULL || colon == v || strchr(v, ':') != colon) {
            dc_error_set(err, DC_EINVAL, NULL, "\"%s\" is not HOST:PORT", v);
            return false;
        }
    }
    unsigned long long port = 0;
    if (!parse_uint(colon + 1, &port, false) || port > 65535) {
        dc_error_set(err, DC_EINVAL, NULL, "\"%s\": the port must be 0 to 65535", v);
        return false;
    }
    return true;
}

/* The settings whose text has a form (empty is always allowed): the fleet's
 * Prometheus URL (its query is appended), the label named in the fleet's
 * queries (it is written into PromQL, so it must be a label name and nothing
 * more), the node name written into label values. */
static bool text_valid(const char *name, const char *v, struct dc_error *err)
{
    if (v[0] == '\0')
        return true;
    if (strcmp(name, "fleet_prometheus") == 0) {
        /* Parsed as libcurl parses it; the error never quotes the URL, which
         * may hold a password. */
        char why[256];
        if (!svc_fleet_url_check(v, why, sizeof(why))) {
            dc_error_set(err, DC_EINVAL, NULL, "%s", why);
            return false;
        }
    } else if (strcmp(name, "fleet_cluster_label") == 0) {
        bool ok = (isalpha((unsigned char)v[0]) || v[0] == '_') && strncmp(v, "__", 2) != 0 &&
                  strlen(v) <= SVC_FLEET_LABEL_NAME_MAX;
        for (const char *p = v; *p != '\0' && ok; p++)
            ok = isalnum((unsigned char)*p) || *p == '_';
        if (!ok) {
            dc_error_set(err, DC_EINVAL, NULL,
                         "\"%.80s\" is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, "
                         "not starting with __, at most %d characters)",
                         v, SVC_FLEET_LABEL_NAME_MAX);
            return false;
        }
        /* The labels the fleet's queries group by already (fleet_parse.c). */
        static const char *const taken[] = {"node", "device", "model",      "vendor",    "Hostname",
                                            "UUID", "gpu",    "pci_bus_id", "modelName", "pod"};
        for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
            if (strcmp(v, taken[i]) == 0) {
                dc_error_set(err, DC_EINVAL, NULL,
                             "\"%s\" is a label the fleet's queries read already", v);
                return false;
            }
        }
    } else if (strcmp(name, "node_name") == 0) {
        bool ok = strlen(v) <= 253;
        for (const char *p = v; *p != '\0' && ok; p++)
            ok = isalnum((unsigned char)*p) || *p == '.' || *p == '-' || *p == '_';
        if (!ok) {
            dc_error_set(err, DC_EINVAL, NULL,
                         "\"%s\" is not a node name (at most 253 letters, digits, '.', "
                         "'-' and '_')",
                         v);
            return false;
        }
    }
    return true;
}

/* Set setting `s` from text `v`; on failure write "what is wrong" to err. */
static bool set_value(struct svc_config *cfg, const struct setting *s, const char *v,
                      struct dc_error *err)
{
    char *base = (char *)cfg;
    switch (s->type) {
    case T_STR: {
        size_t n = strlen(v);
        if (n >= SVC_CONFIG_STR_MAX) {
            dc_error_set(err, DC_EINVAL, NULL, "longer than %d characters", SVC_CONFIG_STR_MAX - 1);
            return false;
        }
        if ((strcmp(s->name, "listen") == 0 || (strcmp(s->name, "admin_listen") == 0 && n > 0)) &&
            !valid_listen(v, err))
            return false;
        if (strcmp(s->name, "cors_origins") == 0 && svc_cors_origins_check(v, err) != DC_OK)
            return false;
        enum svc_log_level level;
        if (strcmp(s->name, "log_level") == 0 && !svc_log_level_parse(v, &level)) {
            dc_error_set(err, DC_EINVAL, NULL, "\"%s\" is not debug, info, warn or error", v);
            return false;
        }
        if (!text_valid(s->name, v, err))
            return false;
        if (n == 0 && (strcmp(s->name, "nvml") == 0 || strstr(s->name, "_root") != NULL)) {
            dc_error_set(err, DC_EINVAL, NULL, "must not be empty");
            return false;
        }
        memcpy(base + s->off, v, n + 1);
        return true;
    }
    case T_UINT:
    case T_BYTES:
    case T_MS: {
        /* A count, a byte count or a duration; the range check is shared. */
        static const char *const what[] = {[T_UINT] = "non-negative integer",
                                           [T_BYTES] = "byte count (N, NKiB, NMiB)",
                                           [T_MS] = "duration (N seconds, Nms, Ns, Nm, Nh)"};
        const char *unit = s->type == T_MS ? "ms" : "";
        unsigned long long n = 0;
        bool ok =
            s->type == T_MS ? parse_duration_ms(v, &n) : parse_uint(v, &n, s->type == T_BYTES);
        if (!ok) {
            dc_error_set(err, DC_EINVAL, NULL, "\"%s\" is not a %s", v, what[s->type]);
            return false;
        }
        if (n < s->min || n > s->max) {
            dc_error_set(err, DC_EINVAL, NULL, "%llu%s is out of range (%lu%s to %lu%s)", n, unit,
                         s->min, unit, s->max, unit);
            return false;
        }
        unsigned u = (unsigned)n;
        memcpy(base + s->off, &u, sizeof(u));
        return true;
    }
    case T_BOOL: {
        bool b = false;
        if (!parse_bool(v, &b)) {
            dc_error_set(err, DC_EINVAL, NULL,
                         "\"%s\" is not a boolean (true/false, yes/no, on/off, 1/0)", v);
            return false;
        }
        memcpy(base + s->off, &b, sizeof(b));
        return true;
    }
    }
    return false;
}

void svc_config_setting_value(const struct svc_config *cfg, size_t i, char *buf, size_t len)
{
    if (i >= N_SETTINGS) {
        snprintf(buf, len, "?");
        return;
    }
    const struct setting *s = &settings[i];
    const char *base = (const char *)cfg;
    switch (s->type) {
    case T_STR:
        snprintf(buf, len, "%s", base + s->off);
        break;
    case T_UINT:
    case T_BYTES: {
        unsigned u;
        memcpy(&u, base + s->off, sizeof(u));
        snprintf(buf, len, "%u", u);
        break;
    }
    case T_BOOL: {
        bool b;
        memcpy(&b, base + s->off, sizeof(b));
        snprintf(buf, len, "%s", b ? "true" : "false");
        break;
    }
    case T_MS: {
        unsigned u;
        memcpy(&u, base + s->off, sizeof(u));
        if (u % 1000 == 0)
            snprintf(buf, len, "%us", u / 1000);
        else
            snprintf(buf, len, "%ums", u);
        break;
    }
    }
}

static void warn(struct svc_config *cfg, const char *fmt, ...) DC_PRINTF(2, 3);

static void warn(struct svc_config *cfg, const char *fmt, ...)
{
    if (cfg->n_warnings >= SVC_CONFIG_MAX_WARNINGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cfg->warnings[cfg->n_warnings++], sizeof(cfg->warnings[0]), fmt, ap);
    va_end(ap);
}

/* ---- file ------------------------------------------------------------------------ */

static bool has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        e--;
    *e = '\0';
    return s;
}

static bool apply(struct svc_config *cfg, const struct setting *s, const char *v,
                  enum svc_config_source src, struct dc_error *err, const char *where)
{
    struct dc_error inner;
    if (!set_value(cfg, s, v, &inner)) {
        dc_error_set(err, DC_EINVAL, NULL, "%s: %s: %s", where, s->name, inner.msg);
        return false;
    }
    cfg->source[s - settings] = src;
    return true;
}

/* True when `st` is a setting of the command being configured. The image's
 * environment and a configuration file may serve both commands, so the other
 * command's settings there are passed over without a word (a flag is an error). */
static bool in_scope(const struct svc_config *cfg, const struct setting *st)
{
    return svc_config_setting_in_scope((size_t)(st - settings), cfg->scope);
}

/* A NUL byte in `len` bytes of a key = value file: an error naming its line
 * (the line was cut there, and every line after it silently dropped). */
static bool kv_nul(const char *path, const char *text, size_t len, struct dc_error *err)
{
    const char *nul = memchr(text, '\0', len);
    if (nul == NULL)
        return false;
    unsigned line = 1;
    for (const char *p = text; p < nul; p++)
        line += *p == '\n';
    dc_error_set(err, DC_EINVAL, NULL, "file %s:%u: a NUL byte", path, line);
    return true;
}

static bool load_kv(struct svc_config *cfg, const char *path, char *text, size_t len,
                    struct dc_error *err)
{
    unsigned lineno = 0;
    char where[SVC_CONFIG_STR_MAX + 64];
    if (kv_nul(path, text, len, err))
        return false;
    for (char *line = text; line != NULL;) {
        char *next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        lineno++;
        snprintf(where, sizeof(where), "file %s:%u", path, lineno);
        char *s = trim(line);
        line = next;
        if (*s == '\0' || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (eq == NULL) {
            dc_error_set(err, DC_EINVAL, NULL, "%s: expected key = value", where);
            return false;
        }
        *eq = '\0';
        char *k = trim(s);
        char *v = trim(eq + 1);
        size_t vl = strlen(v);
        if (vl >= 2 && ((v[0] == '"' && v[vl - 1] == '"') || (v[0] == '\'' && v[vl - 1] == '\''))) {
            v[vl - 1] = '\0';
            v++;
        } else {
            /* An unquoted value ends at a " #" comment. */
            char *hash = strstr(v, " #");
            if (hash != NULL)
                *hash = '\0';
            v = trim(v);
        }
        const struct setting *st = find_key(k, strlen(k));
        if (st == NULL) {
            dc_error_set(err, DC_EINVAL, NULL, "%s: unknown setting \"%s\"", where, k);
            return false;
        }
        if (!in_scope(cfg, st))
            continue;
        if (!apply(cfg, st, v, SVC_SRC_FILE, err, where))
            return false;
    }
    return true;
}

static bool load_yaml(struct svc_config *cfg, const char *path, const char *text, size_t len,
                      struct dc_error *err)
{
    dc_yaml_doc *doc = NULL;
    struct dc_error yerr;
    dc_error_clear(&yerr);
    if (dc_yaml_parse(text, len, path, &doc, &yerr) != DC_OK) {
        dc_error_set(err, DC_EINVAL, NULL, "file %s: %s", yerr.where[0] != '\0' ? yerr.where : path,
                     yerr.msg);
        return false;
    }
    bool ok = true;
    char where[SVC_CONFIG_STR_MAX + 64];
    const cJSON *root = dc_yaml_root(doc);
    if (cJSON_IsNull(root)) {
        dc_yaml_doc_free(doc);
        return true; /* an empty file sets nothing */
    }
    if (!cJSON_IsObject(root)) {
        dc_error_set(err, DC_EINVAL, NULL, "file %s:%u: expected a mapping of settings", path,
                     dc_yaml_line(doc, root));
        dc_yaml_doc_free(doc);
        return false;
    }
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, root)
    {
        snprintf(where, sizeof(where), "file %s:%u", path, dc_yaml_line(doc, it));
        const struct setting *st = find_key(it->string, strlen(it->string));
        if (st == NULL) {
            dc_error_set(err, DC_EINVAL, NULL, "%s: unknown setting \"%s\"", where, it->string);
            ok = false;
            break;
        }
        if (!in_scope(cfg, st))
            continue;
        char val[SVC_CONFIG_STR_MAX + 1];
        val[0] = '\0';
        if (cJSON_IsString(it)) {
            snprintf(val, sizeof(val), "%s", it->valuestring);
        } else if (cJSON_IsBool(it)) {
            snprintf(val, sizeof(val), "%s", cJSON_IsTrue(it) ? "true" : "false");
        } else if (cJSON_IsNumber(it)) {
            snprintf(val, sizeof(val), "%.17g", it->valuedouble);
        } else if (cJSON_IsArray(it)) {
            /* A list (cors_origins) is joined with commas. */
            size_t n = 0;
            const cJSON *e = NULL;
            cJSON_ArrayForEach(e, it)
            {
                if (!cJSON_IsString(e)) {
                    dc_error_set(err, DC_EINVAL, NULL, "%s: %s: list items must be strings", where,
                                 it->string);
                    ok = false;
                    break;
                }
                int w =
                    snprintf(val + n, sizeof(val) - n, "%s%s", n > 0 ? "," : "", e->valuestring);
                if (w < 0 || (size_t)w >= sizeof(val) - n)
                    break;
                n += (size_t)w;
            }
            if (!ok)
                break;
        } else {
            dc_error_set(err, DC_EINVAL, NULL, "%s: %s: expected a value", where, it->string);
            ok = false;
            break;
        }
        if (!apply(cfg, st, val, SVC_SRC_FILE, err, where)) {
            ok = false;
            break;
        }
    }
    dc_yaml_doc_free(doc);
    return ok;
}

static bool load_file(struct svc_config *cfg, const char *path, struct dc_error *err)
{
    char *text = NULL;
    size_t n = 0;
    struct dc_error ferr;
    if (svc_read_regular_file(path, MAX_FILE_BYTES, &text, &n, &ferr) != DC_OK) {
        dc_error_set(err, DC_EINVAL, NULL, "file %s", ferr.msg);
        return false;
    }
    bool ok = false;
    if (has_suffix(path, ".yaml") || has_suffix(path, ".yml") || has_suffix(path, ".json"))
        ok = load_yaml(cfg, path, text, n, err);
    else
        ok = load_kv(cfg, path, text, n, err);
    free(text);
    return ok;
}

/* ---- environment and flags ---------------------------------------------------------- */

static bool load_env(struct svc_config *cfg, char **envp, struct dc_error *err)
{
    char name[128], where[160];
    for (char **e = envp; e != NULL && *e != NULL; e++) {
        if (strncmp(*e, ENV_PREFIX, strlen(ENV_PREFIX)) != 0)
            continue;
        const char *eq = strchr(*e, '=');
        if (eq == NULL)
            continue;
        size_t nlen = (size_t)(eq - *e);
        if (nlen >= sizeof(name))
            continue;
        memcpy(name, *e, nlen);
        name[nlen] = '\0';
        if (strcmp(name, CONFIG_ENV) == 0)
            continue;
        const struct setting *st = NULL;
        for (size_t i = 0; i < N_SETTINGS && st == NULL; i++) {
            char en[128];
            env_name(&settings[i], en, sizeof(en));
            if (strcmp(en, name) == 0)
                st = &settings[i];
        }
        if (st == NULL) {
            warn(cfg, "environment variable %s is not %s setting (ignored)", name,
                 cfg->scope == SVC_SCOPE_AGENT ? "an agent" : "a serve");
            continue;
        }
        snprintf(where, sizeof(where), "environment %s", name);
        if (!in_scope(cfg, st))
            continue;
        if (!apply(cfg, st, eq + 1, SVC_SRC_ENV, err, where))
            return false;
    }
    return true;
}

static const char *env_lookup(char **envp, const char *name)
{
    size_t n = strlen(name);
    for (char **e = envp; e != NULL && *e != NULL; e++) {
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    }
    return NULL;
}

#define OPT_HELP   1000
#define OPT_CONFIG 1001

enum dc_status svc_config_load(int argc, char **argv, char **envp, struct svc_config *cfg,
                               struct dc_error *err)
{
    return svc_config_load_scope(SVC_SCOPE_SERVE, argc, argv, envp, cfg, err);
}

enum dc_status svc_config_load_scope(enum svc_config_scope scope, int argc, char **argv,
                                     char **envp, struct svc_config *cfg, struct dc_error *err)
{
    char flag[N_SETTINGS][64];
    struct option opts[N_SETTINGS + 3];
    size_t n_opts = 0;
    char where[128];
    if (envp == NULL)
        envp = environ;
    memset(cfg, 0, sizeof(*cfg));
    cfg->scope = scope;
    for (size_t i = 0; i < N_SETTINGS; i++) {
        if (!set_value(cfg, &settings[i], default_of(i, scope), err))
            return DC_EINVAL; /* a bad default is a bug; tests catch it */
        cfg->source[i] = SVC_SRC_DEFAULT;
        flag_name(&settings[i], flag[i], sizeof(flag[i]));
        if (!svc_config_setting_in_scope(i, scope))
            continue;
        opts[n_opts].name = flag[i];
        opts[n_opts].has_arg = settings[i].type == T_BOOL ? optional_argument : required_argument;
        opts[n_opts].flag = NULL;
        opts[n_opts++].val = (int)i;
    }
    opts[n_opts] = (struct option){"help", no_argument, NULL, OPT_HELP};
    opts[n_opts + 1] = (struct option){"config", required_argument, NULL, OPT_CONFIG};
    opts[n_opts + 2] = (struct option){NULL, 0, NULL, 0};

    /* The file comes first in precedence order but is named by a flag or a
     * variable, so find it before anything else is applied. */
    const char *file = env_lookup(envp, CONFIG_ENV);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            file = argv[i + 1];
        else if (strncmp(argv[i], "--config=", 9) == 0)
            file = argv[i] + 9;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            cfg->help = true;
            return DC_OK;
        }
    }
    if (file != NULL && file[0] != '\0') {
        snprintf(cfg->config_file, sizeof(cfg->config_file), "%s", file);
        if (!load_file(cfg, file, err))
            return DC_EINVAL;
    }
    if (!load_env(cfg, envp, err))
        return DC_EINVAL;

    optind = 1;
    opterr = 0;
    for (;;) {
        int idx = -1;
        int c = getopt_long(argc, argv, ":h", opts, &idx);
        if (c == -1)
            break;
        if (c == OPT_HELP || c == 'h') {
            cfg->help = true;
            return DC_OK;
        }
        if (c == OPT_CONFIG)
            continue;
        if (c == '?' || c == ':') {
            const char *arg = optind - 1 < argc ? argv[optind - 1] : "?";
            if (c == ':')
                dc_error_set(err, DC_EINVAL, NULL, "flag %s needs a value", arg);
            else
                dc_error_set(err, DC_EINVAL, NULL, "unknown flag %s", arg);
            return DC_EINVAL;
        }
        if (c < 0 || (size_t)c >= N_SETTINGS)
            continue;
        const struct setting *st = &settings[c];
        const char *v = optarg;
        if (v == NULL)
            v = "true"; /* a bare boolean flag */
        snprintf(where, sizeof(where), "flag --%s", flag[c]);
        if (!apply(cfg, st, v, SVC_SRC_FLAG, err, where))
            return DC_EINVAL;
    }
    if (optind < argc) {
        dc_error_set(err, DC_EINVAL, NULL, "unexpected argument \"%s\"", argv[optind]);
        return DC_EINVAL;
    }
    return DC_OK;
}

void svc_config_help(FILE *fp)
{
    svc_config_help_scope(SVC_SCOPE_SERVE, fp);
}

void svc_config_help_scope(enum svc_config_scope scope, FILE *fp)
{
    if (scope == SVC_SCOPE_AGENT)
        fprintf(fp, "usage: accel-advisor agent [--config FILE] [--SETTING VALUE]...\n\n"
                    "The node agent: probes this host's accelerators and serves only GET /metrics\n"
                    "(the probe's series, each device labelled with its node, PCI address, vendor\n"
                    "and catalog id, and whether it is free) and GET /healthz, for Prometheus to\n"
                    "scrape (docs/probe.md, \"Agent\"). ");
    else
        fprintf(fp, "usage: accel-advisor serve [--config FILE] [--SETTING VALUE]...\n\n"
                    "Serves the HTTP API (openapi.yaml) on libmicrohttpd. ");
    fprintf(fp,
            "Every setting below is a\n"
            "flag, an environment variable and a key of the configuration file; the flag\n"
            "wins over the variable, the variable over the file, the file over the default.\n"
            "The file (--config FILE or %s) is YAML when named *.yaml, *.yml\n"
            "or *.json, otherwise lines of `key = value` (# comments).\n\n",
            CONFIG_ENV);
    if (scope == SVC_SCOPE_AGENT)
        fprintf(fp, "Signals: SIGTERM/SIGINT stop the agent, exit 0; SIGHUP asks for a fresh\n"
                    "probe.\n\nsettings:\n");
    else
        fprintf(fp, "Signals: SIGTERM/SIGINT stop accepting, finish in-flight requests, exit 0;\n"
                    "SIGHUP reloads the rule set and the API keys (a set that fails to load is\n"
                    "logged and the last good one keeps serving) and asks for a fresh probe.\n\n"
                    "settings:\n");
    for (size_t i = 0; i < N_SETTINGS; i++) {
        const struct setting *s = &settings[i];
        char fl[64], en[128], arg[80];
        if (!svc_config_setting_in_scope(i, scope))
            continue;
        flag_name(s, fl, sizeof(fl));
        env_name(s, en, sizeof(en));
        if (s->type == T_BOOL)
            snprintf(arg, sizeof(arg), "--%s[=%s]", fl, s->meta);
        else
            snprintf(arg, sizeof(arg), "--%s %s", fl, s->meta);
        fprintf(fp, "  %s\n      %s\n      env %s, file key %s, default \"%s\"", arg, s->help, en,
                s->name, default_of(i, scope));
        if (s->type == T_UINT || s->type == T_BYTES)
            fprintf(fp, ", range %lu..%lu", s->min, s->max);
        else if (s->type == T_MS)
            fprintf(fp, ", range %lums..%lums", s->min, s->max);
        fprintf(fp, "\n");
    }
    fprintf(fp,
            "  --config FILE\n      configuration file (env %s)\n"
            "  -h, --help\n      this help\n",
            CONFIG_ENV);
}

void svc_config_log(const struct svc_config *cfg)
{
    struct svc_log_line l;
    char val[SVC_CONFIG_STR_MAX];
    svc_log_begin(&l, "info", "config");
    svc_log_str(&l, "file", cfg->config_file[0] != '\0' ? cfg->config_file : NULL);
    for (size_t i = 0; i < N_SETTINGS; i++) {
        if (!svc_config_setting_in_scope(i, cfg->scope))
            continue;
        svc_config_setting_value(cfg, i, val, sizeof(val));
        svc_log_str(&l, settings[i].name, val);
    }
    svc_log_end_msg(&l, "effective configuration%s%s",
                    cfg->config_file[0] != '\0' ? " with file " : "", cfg->config_file);
    for (size_t i = 0; i < cfg->n_warnings; i++)
        svc_log_msg("warn", "config", "%s", cfg->warnings[i]);
}
