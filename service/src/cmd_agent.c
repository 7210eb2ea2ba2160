/* service/src/cmd_agent.c -- `accel-advisor agent`: the node agent. It probes
 * this host's accelerators (the probe of `serve --probe`: server_probe.c, with
 * the catalog of the configured rule set) and serves only GET /metrics (the
 * probe's families, and one series per device labelled with the node, the PCI
 * address, the vendor and the catalog id, with whether it is free) and GET
 * /healthz, for Prometheus to scrape; the service reads the fleet back from
 * Prometheus (fleet.h). docker/k8s/daemonset.yaml runs it on every node.
 *
 * Signals are taken synchronously (sigwait) as `serve` does: SIGTERM and SIGINT
 * stop it (exit 0), SIGHUP asks for a fresh probe and reloads the rule set.
 * Owner: the fleet availability work (issue 19). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "config.h"
#include "log.h"
#include "server_internal.h"

#ifndef AA_VERSION
#define AA_VERSION "0.0.0"
#endif

/* Scrapers and health checks at once: a few per node. */
#define AGENT_MAX_CONNECTIONS 32
/* Seconds an idle scrape connection is kept. */
#define AGENT_CONNECTION_TIMEOUT_S 30

#define AGENT_JSON "application/json"
#define AGENT_TEXT "text/plain; charset=utf-8"

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *type,
                                 char *body, size_t len, enum MHD_ResponseMemoryMode mode,
                                 const char *allow)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, body, mode);
    if (resp == NULL)
        return MHD_NO;
    bool ok =
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type) == MHD_YES &&
        MHD_add_response_header(resp, "Cache-Control", "no-store") == MHD_YES &&
        (allow == NULL || MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow) == MHD_YES);
    enum MHD_Result r = ok ? MHD_queue_response(c, status, resp) : MHD_NO;
    MHD_destroy_response(resp);
    return r;
}

static enum MHD_Result agent_metrics(svc_server *s, struct MHD_Connection *c)
{
    struct svc_probe_status ps;
    struct svc_metrics_info info = {.version = AA_VERSION,
                                    .mhd_version = s->mhd_version,
                                    .contract_version = "",
                                    .node = s->cfg.node_name};
    if (svc__probe_status(s, &ps)) {
        info.probe = &ps;
        info.snapshot = svc__probe_get(s);
    }
    size_t len = 0;
    char *text = svc_metrics_render_agent(&info, &len);
    probe_snapshot_release(info.snapshot);
    if (text == NULL) {
        static char oom[] = "out of memory\n";
        return send_text(c, 500, AGENT_TEXT, oom, sizeof(oom) - 1, MHD_RESPMEM_PERSISTENT, NULL);
    }
    return send_text(c, 200, "text/plain; version=0.0.4; charset=utf-8", text, len,
                     MHD_RESPMEM_MUST_FREE, NULL);
}

/* libmicrohttpd's access handler: GET or HEAD of /metrics and /healthz, 404 for
 * any other path and 405 for any other method; a body is read and dropped. */
static enum MHD_Result agent_request(void *cls, struct MHD_Connection *c, const char *url,
                                     const char *method, const char *version,
                                     const char *upload_data, size_t *upload_size, void **req_cls)
{
    static int started;
    (void)version;
    (void)upload_data;
    if (*req_cls == NULL) {
        *req_cls = &started;
        return MHD_YES;
    }
    if (*upload_size != 0) {
        *upload_size = 0;
        return MHD_YES;
    }
    static char not_found[] = "not found: the agent serves /metrics and /healthz\n";
    static char not_allowed[] = "method not allowed\n";
    static char ok[] = "{\"status\":\"ok\"}\n";
    bool metrics = strcmp(url, "/metrics") == 0, healthz = strcmp(url, "/healthz") == 0;
    if (!metrics && !healthz)
        return send_text(c, 404, AGENT_TEXT, not_found, sizeof(not_found) - 1,
                         MHD_RESPMEM_PERSISTENT, NULL);
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return send_text(c, 405, AGENT_TEXT, not_allowed, sizeof(not_allowed) - 1,
                         MHD_RESPMEM_PERSISTENT, "GET, HEAD");
    if (metrics)
        return agent_metrics(cls, c);
    return send_text(c, 200, AGENT_JSON, ok, sizeof(ok) - 1, MHD_RESPMEM_PERSISTENT, NULL);
}

/* Load the rules, start the probe, listen and serve. On DC_OK *out is the
 * agent; errors as svc_server_start's, with the reason in err->msg (nothing
 * left running). */
static enum dc_status agent_start(const struct svc_config *cfg, svc_server **out,
                                  struct dc_error *err)
{
    struct svc_config c = *cfg;
    c.probe = true; /* the agent is its probe */
    *out = NULL;
    svc_server *s = svc__server_new(&c);
    if (s == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    enum dc_status rc = svc__rules_initial(s, err);
    if (rc == DC_OK)
        rc = svc__rules_start_probe(s, err);
    if (rc == DC_OK)
        rc = svc__listen(&s->api, s->cfg.listen, err);
    if (rc != DC_OK)
        goto fail;
    /* libmicrohttpd owns the socket from here (and closes it when stopped). */
    int fd = atomic_exchange(&s->api.fd, -1);
    s->api.daemon = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG, 0, NULL, NULL,
        agent_request, s, MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)AGENT_MAX_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)AGENT_CONNECTION_TIMEOUT_S, MHD_OPTION_END);
    if (s->api.daemon == NULL) {
        close(fd);
        rc =
            dc_error_set(err, DC_EIO, NULL, "libmicrohttpd did not start on %.200s", s->cfg.listen);
        goto fail;
    }
    struct svc_log_line l;
    svc_log_begin(&l, "info", "listening");
    svc_log_str(&l, "listen", s->cfg.listen);
    svc_log_uint(&l, "port", s->api.port);
    svc_log_str(&l, "node", s->cfg.node_name);
    svc_log_str(&l, "version", AA_VERSION);
    svc_log_end_msg(&l, "agent listening on %s (port %u) for node %s", s->cfg.listen,
                    (unsigned)s->api.port, s->cfg.node_name);
    *out = s;
    return DC_OK;
fail:
    svc_server_free(s);
    return rc;
}

int cmd_agent(int argc, char **argv)
{
    struct svc_config cfg;
    struct dc_error err;
    if (svc_config_load_scope(SVC_SCOPE_AGENT, argc, argv, NULL, &cfg, &err) != DC_OK) {
        fprintf(stderr, "agent: %s\n", err.msg);
        fprintf(stderr, "Run `accel-advisor agent --help` for the settings.\n");
        return 2;
    }
    if (cfg.help) {
        svc_config_help_scope(SVC_SCOPE_AGENT, stdout);
        return 0;
    }
    enum svc_log_level level = SVC_LOG_INFO;
    if (svc_log_level_parse(cfg.log_level, &level)) /* checked by svc_config_load_scope */
        svc_log_set_level(level);
    sigset_t set;
    svc_signals_block(&set);
    svc_config_log(&cfg);
    svc_server *s = NULL;
    if (agent_start(&cfg, &s, &err) != DC_OK) {
        svc_log_msg("error", "start_failed", "%s", err.msg);
        return 1;
    }
    int sig;
    while ((sig = svc_signals_wait(&set)) == SIGHUP) {
        svc_log_msg("info", "signal", "SIGHUP: probing now and reloading the rule set");
        (void)svc_server_reload(s, "signal", NULL); /* a failure is logged */
    }
    svc_log_msg("info", "signal", "%s: stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    svc_server_free(s);
    svc_log_msg("info", "stopped", "agent stopped");
    return 0;
}
