/* service/src/config.h -- the configuration of `accel-advisor serve`.
 *
 * Every setting has a flag (--max-body-bytes), an environment variable
 * (ACCEL_ADVISOR_MAX_BODY_BYTES), a key in the optional configuration file
 * (max_body_bytes), a default and a valid range. Precedence: flag, then
 * environment, then file, then default. The file is named by --config or
 * ACCEL_ADVISOR_CONFIG; it is YAML when its name ends in .yaml, .yml or .json
 * (a mapping of settings), otherwise lines of `key = value` with # comments.
 * Every error names its source: "flag --threads", "environment
 * ACCEL_ADVISOR_THREADS", "file /etc/accel-advisor.conf:12". */
#ifndef SVC_CONFIG_H
#define SVC_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "dc/common.h"

/* Defaults of the named limits (docs/operations.md). */
#define SVC_DEFAULT_LISTEN                    "127.0.0.1:8080"
#define SVC_DEFAULT_MAX_BODY_BYTES            (1u << 20)
#define SVC_DEFAULT_MAX_JSON_DEPTH            32
#define SVC_DEFAULT_MAX_BATCH                 100 /* openapi.yaml: BatchRequest.workloads.maxItems */
#define SVC_DEFAULT_MAX_CONNECTIONS           4096 /* idle slowloris connections (tests/fault) */
#define SVC_DEFAULT_CONNECTION_TIMEOUT_S      30
#define SVC_DEFAULT_REQUEST_TIMEOUT_S         60
#define SVC_DEFAULT_MAX_BUFFERED_BODY_BYTES   (64u << 20)
#define SVC_DEFAULT_MAX_QUEUED_RESPONSE_BYTES (64u << 20)
#define SVC_DEFAULT_SHUTDOWN_GRACE_S          30
#define SVC_DEFAULT_CACHE_ENTRIES             1024
#define SVC_DEFAULT_CACHE_MAX_BYTES           (8u << 20)
/* The kernel's send buffer of each connection (SO_SNDBUF): what a client that
 * does not read can hold in kernel memory is twice it (socket(7)) and the
 * segment the kernel was filling, at most 64 KiB (docs/operations.md,
 * "send_buffer_bytes"). At 32 KiB
 * (64 KiB in the kernel, less than two of loopback's 65,483-byte segments) the
 * receiver's delayed ACK paced every buffer: an 8.4 MB answer took 5 s to
 * reach a loopback client (a sidecar proxy is one) instead of 0.4 s
 * (bench/README.md, "Send buffers"). */
#define SVC_DEFAULT_SEND_BUFFER_BYTES (64u << 10)
#define SVC_MAX_SEND_BUFFER_BYTES     (4u << 20)

/* Probe intervals and timeouts accepted, in milliseconds. */
#define SVC_PROBE_INTERVAL_MIN_MS 100u
#define SVC_PROBE_INTERVAL_MAX_MS 86400000u

/* The node agent's address when none is configured (`accel-advisor agent`). */
#define SVC_AGENT_DEFAULT_LISTEN "127.0.0.1:9402"

/* The fleet (docs/operations.md, "Fleet"): accepted ranges, in milliseconds and
 * bytes. */
#define SVC_FLEET_TIMEOUT_MIN_MS       100u
#define SVC_FLEET_TIMEOUT_MAX_MS       600000u
#define SVC_FLEET_INTERVAL_MIN_MS      1000u
#define SVC_FLEET_STALE_MAX_MS         604800000u /* a week */
#define SVC_FLEET_RESPONSE_BYTES_MIN   (64u << 10)
#define SVC_FLEET_RESPONSE_BYTES_LIMIT (256u << 20)
#define SVC_FLEET_SERIES_LIMIT         1000000u
/* Longest fleet_cluster_label: it is written into the fleet's PromQL. */
#define SVC_FLEET_LABEL_NAME_MAX 64

/* Hard ceilings a configuration may not pass. */
#define SVC_MAX_BODY_BYTES_LIMIT     (64u << 20)
#define SVC_MAX_BATCH_LIMIT          10000
#define SVC_MAX_CONNECTIONS_LIMIT    100000
#define SVC_MAX_BUFFERED_BYTES_LIMIT (1u << 31) /* each memory budget: 2 GiB */
#define SVC_MAX_THREADS              256

#define SVC_CONFIG_STR_MAX      1024
#define SVC_CONFIG_MAX_WARNINGS 16

enum svc_config_source { SVC_SRC_DEFAULT, SVC_SRC_FILE, SVC_SRC_ENV, SVC_SRC_FLAG };

/* The commands that read these settings: `serve` takes them all, `agent` (the
 * node agent: /metrics and /healthz only) the few it uses, some with defaults of
 * its own (listen: SVC_AGENT_DEFAULT_LISTEN). */
enum svc_config_scope { SVC_SCOPE_SERVE, SVC_SCOPE_AGENT };

struct svc_config {
    char listen[SVC_CONFIG_STR_MAX]; /* HOST:PORT; port 0 picks a free one */
    unsigned threads;                /* 0 = one per online CPU */
    char rules[SVC_CONFIG_STR_MAX];  /* rule directory; "" = embedded default */
    bool rules_watch;                /* reload when the directory changes */
    unsigned rules_poll_interval_ms; /* polling when inotify is unavailable */
    unsigned rules_debounce_ms;      /* quiet time before a reload */
    unsigned max_body_bytes;
    unsigned max_json_depth;
    unsigned max_batch;
    unsigned max_connections;
    unsigned connection_timeout_s;
    unsigned request_timeout_s;            /* headers and body of one request, in all */
    char admin_listen[SVC_CONFIG_STR_MAX]; /* HOST:PORT of /healthz, /readyz, /metrics; "" off */
    unsigned max_buffered_body_bytes;      /* request bodies held at once, all requests */
    unsigned max_queued_response_bytes;    /* response bodies not yet sent, all requests */
    unsigned send_buffer_bytes;            /* SO_SNDBUF of each connection; 0: the kernel's */
    unsigned shutdown_grace_s;
    char api_keys_file[SVC_CONFIG_STR_MAX]; /* "" = no authentication */
    char cors_origins[SVC_CONFIG_STR_MAX];  /* comma-separated, "*" any, "" off */
    unsigned cors_max_age_s;
    bool access_log;
    char log_level[SVC_CONFIG_STR_MAX];    /* debug | info | warn | error */
    char openapi_file[SVC_CONFIG_STR_MAX]; /* "" = the built-in contract */
    bool prefer_available;
    unsigned cache_entries; /* memoised recommendation bodies; 0 = off */
    unsigned cache_max_bytes;
    bool probe; /* run the accelerator probe */
    unsigned probe_interval_ms;
    unsigned probe_timeout_ms;           /* a longer probe is an error */
    char sysfs_root[SVC_CONFIG_STR_MAX]; /* plays /sys for the probe */
    char dev_root[SVC_CONFIG_STR_MAX];
    char proc_root[SVC_CONFIG_STR_MAX];
    char nvml[SVC_CONFIG_STR_MAX];      /* auto | off | library path */
    char node_name[SVC_CONFIG_STR_MAX]; /* node label of the device series; "" = host name */
    /* The fleet read from Prometheus (fleet.h); fleet_prometheus "" = off. */
    char fleet_prometheus[SVC_CONFIG_STR_MAX]; /* base URL of the HTTP API */
    char fleet_bearer_token_file[SVC_CONFIG_STR_MAX];
    char fleet_ca_file[SVC_CONFIG_STR_MAX];
    unsigned fleet_timeout_ms;
    unsigned fleet_interval_ms;
    unsigned fleet_stale_after_ms;
    unsigned fleet_max_response_bytes;
    unsigned fleet_max_series;
    char fleet_cluster_label[SVC_CONFIG_STR_MAX]; /* "" = no per-cluster counts */

    /* Which command's settings these are (svc_config_load_scope). */
    enum svc_config_scope scope;
    /* --help or -h was given: the command prints its settings and exits; the
     * flags after it were not read. */
    bool help;
    /* Where each setting came from (index: svc_config_setting_count order). */
    enum svc_config_source source[64];
    char config_file[SVC_CONFIG_STR_MAX]; /* "" when none */
    /* Unknown ACCEL_ADVISOR_* variables and similar: logged, not fatal. */
    char warnings[SVC_CONFIG_MAX_WARNINGS][256];
    size_t n_warnings;
};

/* Fill *cfg from defaults, the file, the environment (`envp`, NULL-terminated
 * "NAME=value" strings; NULL means the process environment) and the flags in
 * argv[1..argc) (argv[0] is the command name). --help sets cfg->help and
 * returns DC_OK at once. Errors: DC_EINVAL (a bad value, flag, variable or
 * file), with one message naming the source in err->msg. */
DC_NODISCARD enum dc_status svc_config_load(int argc, char **argv, char **envp,
                                            struct svc_config *cfg, struct dc_error *err);

/* svc_config_load for the settings of `scope`: a flag of another command's
 * setting is an error; its variable, or its key in the file (the image's
 * environment and a file may serve both commands), is ignored. Every field of
 * *cfg is set (settings outside the scope to their defaults). */
DC_NODISCARD enum dc_status svc_config_load_scope(enum svc_config_scope scope, int argc,
                                                  char **argv, char **envp, struct svc_config *cfg,
                                                  struct dc_error *err);

/* Print every setting: flag, environment variable, file key, default, meaning. */
void svc_config_help(FILE *fp);
/* The same for the settings of `scope`. */
void svc_config_help_scope(enum svc_config_scope scope, FILE *fp);

/* The scope of the command named `command` ("serve", "agent"); false for a
 * command that does not read these settings. */
bool svc_config_command_scope(const char *command, enum svc_config_scope *out);
/* True when setting i is one of `scope`'s. */
bool svc_config_setting_in_scope(size_t i, enum svc_config_scope scope);

/* The settings, for logs and docs: count, and name/value of setting i. */
size_t svc_config_setting_count(void);
const char *svc_config_setting_name(size_t i);
/* What setting i's value is, as --help shows it: "N", "DIR", "FILE", "BOOL",
 * "auto|off|PATH", "debug|info|warn|error"... */
const char *svc_config_setting_meta(size_t i);
/* Current value of setting i as text into buf. */
void svc_config_setting_value(const struct svc_config *cfg, size_t i, char *buf, size_t len);
const char *svc_config_source_name(enum svc_config_source s);

/* Log the effective configuration of cfg's scope (one line, every setting; file
 * paths, never a file's content) and the warnings of its loading. */
void svc_config_log(const struct svc_config *cfg);

#endif /* SVC_CONFIG_H */
