/* service/src/cmd_agent.c -- `accel-advisor agent`: the node agent. It probes
 * this host's accelerators (the probe of `serve --probe`: server_probe.c, with
 * the catalog of the configured rule set) and serves only GET /metrics (the
 * probe's families, and one series per device labelled with the node, the PCI
 * address, the vendor and the catalog id, with whether it is free) and GET
 * /healthz, for Prometheus to scrape; the service reads the fleet back from
 * Prometheus (fleet.h). docker/k8s/daemonset.yaml runs it on every node.
 * Requests go through the server's own handling (server.c): its framing
 * checks, 414, request time limit and connection budget with eviction, as on
 * the admin listener (svc__agent_listen); `admin_listen` adds a port of its own
 * for the kubelet's probes.
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
        rc = svc__agent_listen(s, err);
    if (rc != DC_OK)
        goto fail;
    struct svc_log_line l;
    svc_log_begin(&l, "info", "listening");
    svc_log_str(&l, "listen", s->cfg.listen);
    svc_log_uint(&l, "port", s->api.port);
    if (s->admin.daemon != NULL) {
        svc_log_str(&l, "admin_listen", s->cfg.admin_listen);
        svc_log_uint(&l, "admin_port", s->admin.port);
    }
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
    while ((sig = svc_signals_wait(&set, svc_reload_retry_ms(s, &cfg))) == SIGHUP || sig == 0) {
        if (sig == 0) {
            (void)svc_server_reload(s, "signal_retry", NULL);
            continue;
        }
        svc_log_msg("info", "signal", "SIGHUP: probing now and reloading the rule set");
        (void)svc_server_reload(s, "signal", NULL); /* a failure is logged */
    }
    svc_log_msg("info", "signal", "%s: stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    svc_server_free(s);
    svc_log_msg("info", "stopped", "agent stopped");
    return 0;
}
