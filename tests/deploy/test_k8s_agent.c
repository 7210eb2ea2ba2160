/* tests/deploy/test_k8s_agent.c -- docker/k8s/daemonset.yaml runs the node agent
 * as `accel-advisor agent --help` says it can be run, and as the fleet needs it:
 *   command      the image's entrypoint (docker/Dockerfile COPYs it there) with
 *                `agent`; every other argument a flag of `agent --help`, every
 *                ACCEL_ADVISOR_* variable one of its settings
 *   node name    ACCEL_ADVISOR_NODE_NAME from the downward API's spec.nodeName
 *   scraping     --listen on all interfaces, on a declared containerPort, which
 *                the prometheus.io annotations name with path /metrics; the
 *                probes GET /healthz on the --admin-listen port, another
 *                declared containerPort, so a flood of the metrics port
 *                cannot fail them (issue 35)
 *   network      docker/k8s/networkpolicy-agent.yaml selects the agent's pods,
 *                restricts Ingress, opens the metrics port only to named peers
 *                and the health port to none (the kubelet's probes come from
 *                the node)
 *   host trees   --sysfs-root, --dev-root and --proc-root each the mountPath of a
 *                read-only mount of the host's /sys, /dev and /proc (hostPath)
 *   safety       non-root, read-only root, no privilege escalation, ALL
 *                capabilities dropped, not privileged, no host network or PID
 *                namespace, no accelerator requested, requests within limits
 * Each mutation test changes one thing and expects its problem, so the checker
 * is tested too. (deploy.k8s_validate checks the file against the Kubernetes
 * API schemas.)
 *
 * usage: deploy_k8s_agent BINARY SOURCE_DIR
 * Owner: the fleet availability work (issue 19). */
#include "k8s_manifests.h"

#include <setjmp.h>

#include <cmocka.h>

static const char *g_binary;
static const char *g_source;

struct agent {
    cJSON *ds;
    cJSON *np;        /* docker/k8s/networkpolicy-agent.yaml */
    char *help;       /* `BINARY agent --help` */
    char *dockerfile; /* docker/Dockerfile */
};

static void load(struct agent *a)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/docker/k8s/daemonset.yaml", g_source);
    a->ds = parse_yaml_file(path);
    snprintf(path, sizeof(path), "%s/docker/k8s/networkpolicy-agent.yaml", g_source);
    a->np = parse_yaml_file(path);
    assert_non_null(a->np);
    snprintf(path, sizeof(path), "%s/docker/Dockerfile", g_source);
    a->dockerfile = slurp(path, NULL);
    a->help = command_help(g_binary, "agent");
    assert_non_null(a->ds);
    assert_non_null(a->dockerfile);
    assert_non_null(a->help);
}

static void unload(struct agent *a)
{
    cJSON_Delete(a->ds);
    cJSON_Delete(a->np);
    free(a->help);
    free(a->dockerfile);
}

static cJSON *the_container(const cJSON *ds)
{
    return cJSON_GetArrayItem(at(ds, "spec.template.spec.containers"), 0);
}

/* The value of flag --name in the container's args, or NULL. */
static const char *arg(const cJSON *c, const char *name)
{
    const cJSON *a = NULL;
    cJSON_ArrayForEach(a, at(c, "args"))
    {
        if (cJSON_IsString(a) && strncmp(a->valuestring, "--", 2) == 0 &&
            strcmp(a->valuestring + 2, name) == 0 && cJSON_IsString(a->next))
            return a->next->valuestring;
    }
    return NULL;
}

/* The command: the image's entrypoint and `agent`; the rest are agent flags. */
static void check_command(struct problems *P, const struct agent *a, const cJSON *c)
{
    const cJSON *cmd = at(c, "command");
    const char *entry =
        cJSON_IsArray(cmd) && cJSON_GetArraySize(cmd) == 1 && cJSON_IsString(cmd->child)
            ? cmd->child->valuestring
            : NULL;
    char copy[512];
    snprintf(copy, sizeof(copy), "COPY docker/entrypoint.sh %s\n", entry != NULL ? entry : "?");
    if (entry == NULL || strstr(a->dockerfile, copy) == NULL)
        problem(P, "DaemonSet: command is not the image's entrypoint (docker/entrypoint.sh)");
    const cJSON *args = at(c, "args");
    if (!cJSON_IsString(cJSON_GetArrayItem(args, 0)) ||
        strcmp(cJSON_GetArrayItem(args, 0)->valuestring, "agent") != 0)
        problem(P, "DaemonSet: the first argument is not `agent`");
    for (const cJSON *x = args != NULL && args->child != NULL ? args->child->next : NULL; x != NULL;
         x = x->next) {
        const char *s = cJSON_IsString(x) ? x->valuestring : "";
        enum flag_kind k = strncmp(s, "--", 2) == 0 ? help_flag(a->help, s + 2) : FLAG_UNKNOWN;
        if (k == FLAG_UNKNOWN)
            problem(P, "DaemonSet: argument %s is not a flag of `accel-advisor agent --help`", s);
        else if (k == FLAG_VALUE && x->next != NULL)
            x = x->next;
    }
    bool node = false;
    const cJSON *e = NULL;
    cJSON_ArrayForEach(e, at(c, "env"))
    {
        const char *n = str_at(e, "name");
        if (n != NULL && strncmp(n, "ACCEL_ADVISOR_", 14) == 0 && !help_env(a->help, n))
            problem(P, "DaemonSet: %s is not a setting of `accel-advisor agent --help`", n);
        const char *f = str_at(e, "valueFrom.fieldRef.fieldPath");
        if (n != NULL && strcmp(n, "ACCEL_ADVISOR_NODE_NAME") == 0 && f != NULL &&
            strcmp(f, "spec.nodeName") == 0)
            node = true;
    }
    if (!node)
        problem(P, "DaemonSet: ACCEL_ADVISOR_NODE_NAME does not come from spec.nodeName");
}

/* The name of the containerPort numbered as `addr`'s port (HOST:PORT), or NULL;
 * *port is the number. */
static const char *port_name(const cJSON *c, const char *addr, int *port)
{
    const char *colon = addr != NULL ? strrchr(addr, ':') : NULL;
    *port = colon != NULL ? atoi(colon + 1) : 0;
    const cJSON *p = NULL;
    cJSON_ArrayForEach(p, at(c, "ports"))
    {
        double n = 0;
        if (*port > 0 && num_at(p, "containerPort", &n) && (int)n == *port)
            return str_at(p, "name");
    }
    return NULL;
}

/* --listen, its containerPort, the scrape annotations and the probes agree. */
static void check_scrape(struct problems *P, const cJSON *ds, const cJSON *c)
{
    const char *listen = arg(c, "listen");
    const char *colon = listen != NULL ? strrchr(listen, ':') : NULL;
    int port = colon != NULL ? atoi(colon + 1) : 0;
    if (colon == NULL || strncmp(listen, "0.0.0.0:", 8) != 0)
        problem(P, "DaemonSet: --listen %s is not on all interfaces",
                listen != NULL ? listen : "?");
    const char *pname = NULL;
    const cJSON *p = NULL;
    cJSON_ArrayForEach(p, at(c, "ports"))
    {
        double n = 0;
        if (num_at(p, "containerPort", &n) && (int)n == port)
            pname = str_at(p, "name");
    }
    if (pname == NULL)
        problem(P, "DaemonSet: the listening port %d is not a named containerPort", port);
    const cJSON *ann = at(ds, "spec.template.metadata.annotations");
    const cJSON *scrape = cJSON_GetObjectItemCaseSensitive(ann, "prometheus.io/scrape");
    const cJSON *aport = cJSON_GetObjectItemCaseSensitive(ann, "prometheus.io/port");
    const cJSON *apath = cJSON_GetObjectItemCaseSensitive(ann, "prometheus.io/path");
    if (!cJSON_IsString(scrape) || strcmp(scrape->valuestring, "true") != 0 ||
        !cJSON_IsString(aport) || atoi(aport->valuestring) != port || !cJSON_IsString(apath) ||
        strcmp(apath->valuestring, "/metrics") != 0)
        problem(P, "DaemonSet: the prometheus.io annotations do not name port %d, /metrics", port);
    int hport = 0;
    const char *hname = port_name(c, arg(c, "admin-listen"), &hport);
    if (hname == NULL || hport == port)
        problem(P, "DaemonSet: --admin-listen is not a named containerPort of its own");
    static const char *const probes[] = {"readinessProbe", "livenessProbe"};
    for (size_t i = 0; i < 2; i++) {
        const cJSON *pr = cJSON_GetObjectItemCaseSensitive(c, probes[i]);
        const char *path = str_at(pr, "httpGet.path");
        const char *pp = str_at(pr, "httpGet.port");
        if (path == NULL || strcmp(path, "/healthz") != 0 || pp == NULL || hname == NULL ||
            strcmp(pp, hname) != 0)
            problem(P, "DaemonSet: %s does not GET /healthz on the --admin-listen port", probes[i]);
    }
}

/* Each root flag is a read-only mount of the host's tree. */
static void check_host_trees(struct problems *P, const cJSON *ds, const cJSON *c)
{
    static const char *const flags[3][2] = {
        {"sysfs-root", "/sys"}, {"dev-root", "/dev"}, {"proc-root", "/proc"}};
    const cJSON *vols = at(ds, "spec.template.spec.volumes");
    for (size_t i = 0; i < 3; i++) {
        const char *root = arg(c, flags[i][0]);
        bool ok = false;
        const cJSON *m = NULL;
        cJSON_ArrayForEach(m, at(c, "volumeMounts"))
        {
            const char *mp = str_at(m, "mountPath"), *name = str_at(m, "name");
            if (root == NULL || mp == NULL || name == NULL || strcmp(mp, root) != 0)
                continue;
            const cJSON *v = NULL;
            cJSON_ArrayForEach(v, vols)
            {
                const char *hp = str_at(v, "hostPath.path"), *vn = str_at(v, "name");
                if (vn != NULL && strcmp(vn, name) == 0 && hp != NULL &&
                    strcmp(hp, flags[i][1]) == 0 && true_at(m, "readOnly"))
                    ok = true;
            }
        }
        if (!ok)
            problem(P, "DaemonSet: --%s is not a read-only mount of the host's %s", flags[i][0],
                    flags[i][1]);
    }
    const cJSON *m = NULL;
    cJSON_ArrayForEach(m, at(c, "volumeMounts"))
    {
        if (!true_at(m, "readOnly"))
            problem(P, "DaemonSet: volume %s is mounted writable", str_at(m, "name"));
    }
}

static void check_safety(struct problems *P, const cJSON *ds, const cJSON *c)
{
    const cJSON *pod = at(ds, "spec.template.spec");
    const cJSON *csc = at(c, "securityContext");
    if (!true_at(csc, "runAsNonRoot") || !true_at(csc, "readOnlyRootFilesystem") ||
        !false_at(csc, "allowPrivilegeEscalation") || true_at(csc, "privileged"))
        problem(P, "DaemonSet: not non-root, read-only, unprivileged, without escalation");
    const cJSON *drop = at(csc, "capabilities.drop");
    if (!cJSON_IsString(cJSON_GetArrayItem(drop, 0)) ||
        strcmp(cJSON_GetArrayItem(drop, 0)->valuestring, "ALL") != 0 ||
        at(csc, "capabilities.add") != NULL)
        problem(P, "DaemonSet: capabilities are not all dropped");
    if (true_at(pod, "hostNetwork") || true_at(pod, "hostPID") || true_at(pod, "hostIPC"))
        problem(P, "DaemonSet: the pod shares a host namespace");
    static const char *const res[] = {"cpu", "memory"};
    for (size_t i = 0; i < 2; i++) {
        char rp[64], lp[64];
        snprintf(rp, sizeof(rp), "resources.requests.%s", res[i]);
        snprintf(lp, sizeof(lp), "resources.limits.%s", res[i]);
        const cJSON *rq = at(c, rp), *lm = at(c, lp);
        if (!cJSON_IsString(rq) || !cJSON_IsString(lm))
            problem(P, "DaemonSet: no %s request and limit", res[i]);
    }
    const cJSON *r = NULL;
    cJSON_ArrayForEach(r, at(c, "resources.limits"))
    {
        if (strchr(r->string, '/') != NULL)
            problem(P, "DaemonSet: it asks for %s: the agent must hold no device", r->string);
    }
}

/* networkpolicy-agent.yaml: the agent's pods, Ingress restricted, the metrics
 * port open only to named peers, the health port to none. */
static void check_network_policy(struct problems *P, const struct agent *a, const cJSON *c)
{
    const cJSON *np = a->np;
    const char *kind = str_at(np, "kind");
    if (kind == NULL || strcmp(kind, "NetworkPolicy") != 0)
        problem(P, "networkpolicy-agent.yaml: kind is not NetworkPolicy");
    const cJSON *labels = at(a->ds, "spec.template.metadata.labels");
    const cJSON *l = NULL;
    cJSON_ArrayForEach(l, at(np, "spec.podSelector.matchLabels"))
    {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(labels, l->string);
        if (!cJSON_IsString(l) || !cJSON_IsString(v) || strcmp(v->valuestring, l->valuestring) != 0)
            problem(P, "NetworkPolicy: its podSelector does not match the agent's pods");
    }
    if (cJSON_GetArraySize(at(np, "spec.podSelector.matchLabels")) == 0)
        problem(P, "NetworkPolicy: its podSelector does not match the agent's pods");
    bool ingress = false;
    const cJSON *t = NULL;
    cJSON_ArrayForEach(t, at(np, "spec.policyTypes"))
    {
        ingress = ingress || (cJSON_IsString(t) && strcmp(t->valuestring, "Ingress") == 0);
    }
    if (!ingress)
        problem(P, "NetworkPolicy: policyTypes has no Ingress");
    int mport = 0, hport = 0;
    const char *mname = port_name(c, arg(c, "listen"), &mport);
    const char *hname = port_name(c, arg(c, "admin-listen"), &hport);
    const cJSON *rule = NULL;
    cJSON_ArrayForEach(rule, at(np, "spec.ingress"))
    {
        bool anyone = cJSON_GetArraySize(at(rule, "from")) == 0;
        if (cJSON_GetArraySize(at(rule, "ports")) == 0)
            problem(P, "NetworkPolicy: a rule opens every port, the health port included");
        const cJSON *port = NULL;
        cJSON_ArrayForEach(port, at(rule, "ports"))
        {
            const cJSON *pv = at(port, "port");
            bool is_m =
                (cJSON_IsString(pv) && mname != NULL && strcmp(pv->valuestring, mname) == 0) ||
                (cJSON_IsNumber(pv) && (int)pv->valuedouble == mport);
            if (!is_m)
                problem(P, "NetworkPolicy: a rule opens a port other than the metrics port");
            else if (anyone)
                problem(P, "NetworkPolicy: the metrics port is open to anyone");
        }
    }
    (void)hname;
    (void)hport;
}

static void check_agent(struct problems *P, const struct agent *a)
{
    const cJSON *ds = a->ds;
    const char *kind = str_at(ds, "kind");
    if (kind == NULL || strcmp(kind, "DaemonSet") != 0)
        problem(P, "docker/k8s/daemonset.yaml: kind is not DaemonSet");
    const cJSON *sel = at(ds, "spec.selector.matchLabels");
    const cJSON *labels = at(ds, "spec.template.metadata.labels");
    const cJSON *l = NULL;
    cJSON_ArrayForEach(l, sel)
    {
        /* Label keys hold dots: looked up whole, not as a dotted path. */
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(labels, l->string);
        if (!cJSON_IsString(l) || !cJSON_IsString(v) || strcmp(v->valuestring, l->valuestring) != 0)
            problem(P, "DaemonSet: spec.selector does not match the pod template's labels");
    }
    if (cJSON_GetArraySize(at(ds, "spec.template.spec.containers")) != 1) {
        problem(P, "DaemonSet: not exactly one container");
        return;
    }
    const cJSON *c = the_container(ds);
    check_command(P, a, c);
    check_scrape(P, ds, c);
    check_host_trees(P, ds, c);
    check_safety(P, ds, c);
    check_network_policy(P, a, c);
}

/* ---- tests ---------------------------------------------------------------------- */

static void test_daemonset(void **state)
{
    (void)state;
    struct agent a;
    load(&a);
    struct problems P = {0};
    check_agent(&P, &a);
    print_problems(&P);
    assert_int_equal(P.n, 0);
    unload(&a);
}

/* One mutation of the manifest (`np`: of the NetworkPolicy), and the problem it
 * must cause. */
static void expect_in(bool np, void (*mutate)(cJSON *ds), const char *needle)
{
    struct agent a;
    load(&a);
    mutate(np ? a.np : a.ds);
    struct problems P = {0};
    check_agent(&P, &a);
    if (!has_problem(&P, needle)) {
        print_problems(&P);
        fail_msg("a mutation went unnoticed: expected \"%s\"", needle);
    }
    unload(&a);
}

static void expect(void (*mutate)(cJSON *ds), const char *needle)
{
    expect_in(false, mutate, needle);
}

static cJSON *args_of(cJSON *ds)
{
    return at(the_container(ds), "args");
}

static void m_server_flag(cJSON *ds)
{
    cJSON_AddItemToArray(args_of(ds), cJSON_CreateString("--fleet-prometheus"));
    cJSON_AddItemToArray(args_of(ds), cJSON_CreateString("http://p:9090"));
}

static void m_serve(cJSON *ds)
{
    cJSON_ReplaceItemInArray(args_of(ds), 0, cJSON_CreateString("serve"));
}

static void m_scrape_port(cJSON *ds)
{
    cJSON *ann = at(ds, "spec.template.metadata.annotations");
    cJSON_ReplaceItemInObjectCaseSensitive(ann, "prometheus.io/port", cJSON_CreateString("9090"));
}

static void m_loopback(cJSON *ds)
{
    cJSON *a = args_of(ds);
    for (cJSON *x = a->child; x != NULL; x = x->next) {
        if (cJSON_IsString(x) && strcmp(x->valuestring, "--listen") == 0 && x->next != NULL)
            cJSON_SetValuestring(x->next, "127.0.0.1:9402");
    }
}

static void m_writable_sys(cJSON *ds)
{
    cJSON *m = cJSON_GetArrayItem(at(the_container(ds), "volumeMounts"), 0);
    cJSON_ReplaceItemInObjectCaseSensitive(m, "readOnly", cJSON_CreateFalse());
}

static void m_no_node_name(cJSON *ds)
{
    cJSON_DeleteItemFromObjectCaseSensitive(the_container(ds), "env");
}

static void m_host_pid(cJSON *ds)
{
    cJSON_AddTrueToObject(at(ds, "spec.template.spec"), "hostPID");
}

static void m_gpu(cJSON *ds)
{
    cJSON_AddStringToObject(at(the_container(ds), "resources.limits"), "nvidia.com/gpu", "1");
}

static void m_liveness_path(cJSON *ds)
{
    cJSON_SetValuestring(at(the_container(ds), "livenessProbe.httpGet.path"), "/readyz");
}

static void m_liveness_metrics_port(cJSON *ds)
{
    cJSON_SetValuestring(at(the_container(ds), "livenessProbe.httpGet.port"), "metrics");
}

static void m_metrics_open(cJSON *np)
{
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetArrayItem(at(np, "spec.ingress"), 0), "from");
}

static void m_health_open(cJSON *np)
{
    cJSON *port = cJSON_GetArrayItem(at(cJSON_GetArrayItem(at(np, "spec.ingress"), 0), "ports"), 0);
    cJSON_SetValuestring(at(port, "port"), "health");
}

static void m_selector(cJSON *ds)
{
    cJSON_SetValuestring(cJSON_GetObjectItemCaseSensitive(at(ds, "spec.template.metadata.labels"),
                                                          "app.kubernetes.io/component"),
                         "api");
}

static void test_mutations(void **state)
{
    (void)state;
    expect(m_server_flag, "--fleet-prometheus is not a flag of `accel-advisor agent --help`");
    expect(m_serve, "the first argument is not `agent`");
    expect(m_scrape_port, "annotations do not name port 9402");
    expect(m_loopback, "not on all interfaces");
    expect(m_writable_sys, "--sysfs-root is not a read-only mount of the host's /sys");
    expect(m_no_node_name, "ACCEL_ADVISOR_NODE_NAME does not come from spec.nodeName");
    expect(m_host_pid, "shares a host namespace");
    expect(m_gpu, "it asks for nvidia.com/gpu");
    expect(m_liveness_path, "livenessProbe does not GET /healthz");
    expect(m_selector, "spec.selector does not match");
    expect(m_liveness_metrics_port, "livenessProbe does not GET /healthz on the --admin-listen");
    expect_in(true, m_metrics_open, "the metrics port is open to anyone");
    expect_in(true, m_health_open, "a port other than the metrics port");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: deploy_k8s_agent BINARY SOURCE_DIR\n");
        return 2;
    }
    g_binary = argv[1];
    g_source = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_daemonset),
        cmocka_unit_test(test_mutations),
    };
    return cmocka_run_group_tests_name("deploy.k8s_agent", tests, NULL, NULL);
}
