/* tests/deploy/test_k8s_consistency.c -- the Kubernetes manifests of docker/k8s/
 * agree with each other, with docker/Dockerfile and with the server itself.
 *
 * usage: deploy_k8s_consistency BINARY SOURCE_DIR
 *
 * Every .yaml file in docker/k8s is read with the project's own YAML loader (dc/yaml.h:
 * one document per file). The checks, each reported as one problem line:
 *   Deployment   >= 2 replicas, selector matches the pod labels, no `command`
 *                (the image's ENTRYPOINT is `accel-advisor serve`), every flag in
 *                `args` and every ACCEL_ADVISOR_* variable in `env` is a setting of
 *                `BINARY serve --help`, --listen binds all interfaces on a declared
 *                containerPort (also the Dockerfile's EXPOSE), probes GET /readyz
 *                and /healthz (paths of openapi.yaml) on the --admin-listen port
 *                (all interfaces, a containerPort) or without one on that port,
 *                explicit
 *                --threads no larger than the CPU limit, requests <= limits,
 *                security context (non-root, uid of the Dockerfile's USER,
 *                read-only root, no privilege escalation, ALL capabilities dropped,
 *                RuntimeDefault seccomp), no service links into ACCEL_ADVISOR_*,
 *                terminationGracePeriodSeconds > shutdown_grace_s + preStop sleep
 *   Service      selector matches the pod labels, targetPort names or numbers the
 *                listening container port
 *   HPA          scaleTargetRef names the Deployment, CPU metric, the container
 *                requests CPU, 2 <= minReplicas <= maxReplicas
 *   PDB          selector matches the pod labels, minAvailable below the replicas
 *   NetworkPolicy  selects the pod labels, restricts Ingress, lets anyone reach the
 *                listening port, and the admin port only from named peers
 *   ConfigMap    a volume names it, mounted (whole, read-only, no subPath) at the
 *                --rules directory; its data is rules/ byte for byte
 * The mutation tests change one thing in the parsed manifests and expect the
 * checker to report it, so the checker itself is tested. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "dc/yaml.h"
#include "k8s_manifests.h"

#define MAX_DOCS 32

static const char *g_binary;
static const char *g_source;

/* The manifests, one document per file, and what they are checked against. */
struct world {
    size_t n;
    cJSON *doc[MAX_DOCS];
    char file[MAX_DOCS][256];
    char *help;       /* `BINARY serve --help` */
    cJSON *openapi;   /* openapi.yaml */
    char *dockerfile; /* docker/Dockerfile */
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int world_load(struct world *w)
{
    memset(w, 0, sizeof(*w));
    char dir[4096], path[4400];
    snprintf(dir, sizeof(dir), "%s/docker/k8s", g_source);
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "cannot open %s: %s\n", dir, strerror(errno));
        return -1;
    }
    char *names[MAX_DOCS];
    size_t n = 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || l < 6 || strcmp(e->d_name + l - 5, ".yaml") != 0)
            continue;
        if (n == MAX_DOCS) {
            closedir(d);
            return -1;
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof(names[0]), cmp_str);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        cJSON *doc = parse_yaml_file(path);
        if (doc == NULL || !cJSON_IsObject(doc)) {
            fprintf(stderr, "%s: not one YAML mapping\n", path);
            cJSON_Delete(doc);
            rc = -1;
        } else {
            snprintf(w->file[w->n], sizeof(w->file[0]), "docker/k8s/%s", names[i]);
            w->doc[w->n++] = doc;
        }
        free(names[i]);
    }
    snprintf(path, sizeof(path), "%s/openapi.yaml", g_source);
    w->openapi = parse_yaml_file(path);
    snprintf(path, sizeof(path), "%s/docker/Dockerfile", g_source);
    w->dockerfile = slurp(path, NULL);
    w->help = command_help(g_binary, "serve");
    if (w->openapi == NULL || w->dockerfile == NULL || w->help == NULL) {
        fprintf(stderr, "missing openapi.yaml, docker/Dockerfile or `serve --help` output\n");
        rc = -1;
    }
    return rc;
}

static void world_free(struct world *w)
{
    for (size_t i = 0; i < w->n; i++)
        cJSON_Delete(w->doc[i]);
    cJSON_Delete(w->openapi);
    free(w->dockerfile);
    free(w->help);
    memset(w, 0, sizeof(*w));
}

/* ---- small helpers over cJSON --------------------------------------------------- */

/* The node agent's manifests (its DaemonSet and NetworkPolicy) are checked by
 * deploy.k8s_agent, not here. */
static bool agent_doc(const cJSON *doc)
{
    const cJSON *labels = at(doc, "metadata.labels");
    const cJSON *comp = cJSON_GetObjectItemCaseSensitive(labels, "app.kubernetes.io/component");
    return cJSON_IsString(comp) && strcmp(comp->valuestring, "agent") == 0;
}

static cJSON *find_kind(const struct world *w, const char *kind, const char **file)
{
    cJSON *found = NULL;
    for (size_t i = 0; i < w->n; i++) {
        const char *k = str_at(w->doc[i], "kind");
        if (k != NULL && strcmp(k, kind) == 0 && found == NULL && !agent_doc(w->doc[i])) {
            found = w->doc[i];
            if (file != NULL)
                *file = w->file[i];
        }
    }
    return found;
}

static size_t count_kind(const struct world *w, const char *kind)
{
    size_t n = 0;
    for (size_t i = 0; i < w->n; i++) {
        const char *k = str_at(w->doc[i], "kind");
        if (k != NULL && strcmp(k, kind) == 0 && !agent_doc(w->doc[i]))
            n++;
    }
    return n;
}

/* Every key of `sel` is in `labels` with the same string value; `sel` non-empty. */
static bool selects(const cJSON *sel, const cJSON *labels)
{
    if (!cJSON_IsObject(sel) || sel->child == NULL || !cJSON_IsObject(labels))
        return false;
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, sel)
    {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(labels, it->string);
        if (!cJSON_IsString(it) || !cJSON_IsString(l) ||
            strcmp(it->valuestring, l->valuestring) != 0)
            return false;
    }
    return true;
}

/* A Kubernetes quantity ("250m", "2", "64Mi", "1G") as a double; -1 if unparsable. */
static double quantity(const cJSON *q)
{
    if (cJSON_IsNumber(q))
        return q->valuedouble;
    if (!cJSON_IsString(q))
        return -1;
    char *end = NULL;
    double v = strtod(q->valuestring, &end);
    if (end == q->valuestring)
        return -1;
    static const struct {
        const char *suf;
        double mul;
    } sufs[] = {{"", 1},    {"m", 1e-3},    {"k", 1e3},        {"M", 1e6},
                {"G", 1e9}, {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}};
    for (size_t i = 0; i < sizeof(sufs) / sizeof(sufs[0]); i++) {
        if (strcmp(end, sufs[i].suf) == 0)
            return v * sufs[i].mul;
    }
    return -1;
}

/* ---- the server's settings, from `serve --help` ---------------------------------- */

/* The default of setting `--flag` as the help prints it ("default \"30\""). */
static bool help_default(const char *help, const char *flag, char *out, size_t len)
{
    char pat[160];
    snprintf(pat, sizeof(pat), "\n  --%s ", flag);
    const char *p = strstr(help, pat);
    if (p == NULL)
        return false;
    const char *d = strstr(p, "default \"");
    const char *next = strstr(p + 1, "\n  --");
    if (d == NULL || (next != NULL && d > next))
        return false;
    d += 9;
    const char *q = strchr(d, '"');
    if (q == NULL || (size_t)(q - d) >= len)
        return false;
    memcpy(out, d, (size_t)(q - d));
    out[q - d] = '\0';
    return true;
}

/* The container's serve settings: args flags, then env, then the help default
 * (the flag wins over the variable, as in the server). */
struct settings {
    size_t n;
    char name[64][64]; /* flag name without the dashes */
    char value[64][512];
};

static const char *setting(const struct settings *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++) {
        if (strcmp(s->name[i], name) == 0)
            return s->value[i];
    }
    return NULL;
}

static void env_name_of(const char *flag, char *out, size_t len)
{
    snprintf(out, len, "ACCEL_ADVISOR_%s", flag);
    for (char *p = out; *p != '\0'; p++)
        *p = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
}

/* The effective value of setting `flag` for the container: its flag, else its
 * variable in `env`, else the image's ENV in the Dockerfile, else the default. */
static bool effective(const struct settings *args, const cJSON *env, const char *dockerfile,
                      const char *help, const char *flag, char *out, size_t len)
{
    const char *v = setting(args, flag);
    if (v != NULL) {
        snprintf(out, len, "%s", v);
        return true;
    }
    char en[128];
    env_name_of(flag, en, sizeof(en));
    const cJSON *e = NULL;
    cJSON_ArrayForEach(e, env)
    {
        const char *n = str_at(e, "name");
        const char *val = str_at(e, "value");
        if (n != NULL && val != NULL && strcmp(n, en) == 0) {
            snprintf(out, len, "%s", val);
            return true;
        }
    }
    char pat[160];
    snprintf(pat, sizeof(pat), "\nENV %s=", en);
    const char *p = strstr(dockerfile, pat);
    if (p != NULL) {
        p += strlen(pat);
        size_t l = strcspn(p, " \n");
        if (l < len) {
            memcpy(out, p, l);
            out[l] = '\0';
            return true;
        }
    }
    return help_default(help, flag, out, len);
}

/* ---- the checks ----------------------------------------------------------------- */

/* The port named or numbered by `ref` among the container's ports; 0 if none. */
static int resolve_port(const cJSON *ports, const cJSON *ref)
{
    const cJSON *p = NULL;
    cJSON_ArrayForEach(p, ports)
    {
        double num = 0;
        if (!num_at(p, "containerPort", &num))
            continue;
        const char *name = str_at(p, "name");
        if (cJSON_IsNumber(ref) && ref->valuedouble == num)
            return (int)num;
        if (cJSON_IsString(ref) && name != NULL && strcmp(ref->valuestring, name) == 0)
            return (int)num;
    }
    return 0;
}

static bool openapi_has_get(const cJSON *openapi, const char *path)
{
    const cJSON *paths = at(openapi, "paths");
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(paths, path);
    return cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(p, "get"));
}

static void check_probe(struct problems *P, const struct world *w, const cJSON *c,
                        const char *which, const char *want_path, int probe_port)
{
    const cJSON *probe = cJSON_GetObjectItemCaseSensitive(c, which);
    if (probe == NULL) {
        problem(P, "Deployment: the container has no %s", which);
        return;
    }
    const char *path = str_at(probe, "httpGet.path");
    if (path == NULL || strcmp(path, want_path) != 0)
        problem(P, "Deployment: %s must GET %s (has %s)", which, want_path,
                path != NULL ? path : "no httpGet.path");
    else if (!openapi_has_get(w->openapi, path))
        problem(P, "Deployment: %s path %s is not a GET operation of openapi.yaml", which, path);
    int port = resolve_port(at(c, "ports"), at(probe, "httpGet.port"));
    if (port == 0 || port != probe_port)
        problem(P, "Deployment: %s port is not the probes' listening port %d", which, probe_port);
}

/* The port of a listening address `addr` (HOST:PORT) of setting `what`, checked
 * to bind all interfaces on a declared container port; 0 when it does not. */
static int listening_port(struct problems *P, const cJSON *c, const char *what, const char *addr)
{
    const char *colon = strrchr(addr, ':');
    int port = colon != NULL ? atoi(colon + 1) : 0;
    size_t hl = colon != NULL ? (size_t)(colon - addr) : 0;
    if (!((hl == 7 && strncmp(addr, "0.0.0.0", 7) == 0) ||
          (hl == 4 && strncmp(addr, "[::]", 4) == 0)))
        problem(P,
                "Deployment: %s on %s: not on all interfaces (loopback is unreachable for the "
                "kubelet's probes and the Service)",
                what, addr);
    cJSON port_ref = {0};
    port_ref.type = cJSON_Number;
    port_ref.valuedouble = port;
    if (port <= 0 || resolve_port(at(c, "ports"), &port_ref) != port)
        problem(P, "Deployment: %s port %d is not a containerPort", what, port);
    return port;
}

/* The Dockerfile's final-stage instruction `word` (the last occurrence). */
static const char *dockerfile_last(const char *df, const char *word)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\n%s ", word);
    const char *last = NULL;
    for (const char *p = strstr(df, pat); p != NULL; p = strstr(p + 1, pat))
        last = p + strlen(pat);
    return last;
}

static void check_args(struct problems *P, const struct world *w, const cJSON *c,
                       struct settings *out)
{
    const cJSON *args = at(c, "args");
    out->n = 0;
    if (at(c, "command") != NULL)
        problem(P, "Deployment: the container sets `command`, replacing the image's "
                   "`accel-advisor serve` entrypoint");
    const cJSON *a = args != NULL ? args->child : NULL;
    for (; a != NULL; a = a->next) {
        if (!cJSON_IsString(a) || strncmp(a->valuestring, "--", 2) != 0) {
            problem(P, "Deployment: argument %s is not a --flag",
                    cJSON_IsString(a) ? a->valuestring : "(not a string)");
            continue;
        }
        char name[64];
        const char *v = NULL;
        const char *eq = strchr(a->valuestring, '=');
        size_t l = eq != NULL ? (size_t)(eq - a->valuestring - 2) : strlen(a->valuestring + 2);
        if (l >= sizeof(name)) {
            problem(P, "Deployment: unknown flag %s", a->valuestring);
            continue;
        }
        memcpy(name, a->valuestring + 2, l);
        name[l] = '\0';
        enum flag_kind k = help_flag(w->help, name);
        if (k == FLAG_UNKNOWN)
            problem(P, "Deployment: unknown flag --%s (not in `accel-advisor serve --help`)", name);
        if (eq != NULL)
            v = eq + 1;
        else if (k == FLAG_BOOL)
            v = "true";
        else if (a->next != NULL && cJSON_IsString(a->next)) {
            a = a->next;
            v = a->valuestring;
        } else {
            problem(P, "Deployment: flag --%s has no value", name);
            continue;
        }
        if (out->n < 64) {
            snprintf(out->name[out->n], sizeof(out->name[0]), "%s", name);
            snprintf(out->value[out->n], sizeof(out->value[0]), "%s", v);
            out->n++;
        }
    }
    const cJSON *e = NULL;
    cJSON_ArrayForEach(e, at(c, "env"))
    {
        const char *n = str_at(e, "name");
        if (n != NULL && strncmp(n, "ACCEL_ADVISOR_", 14) == 0 && !help_env(w->help, n))
            problem(P,
                    "Deployment: environment variable %s is not a setting of "
                    "`accel-advisor serve --help`",
                    n);
    }
}

static void check_security(struct problems *P, const struct world *w, const cJSON *pod,
                           const cJSON *c)
{
    const cJSON *psc = at(pod, "securityContext");
    const cJSON *csc = at(c, "securityContext");
    if (!true_at(csc, "runAsNonRoot") && !true_at(psc, "runAsNonRoot"))
        problem(P, "Deployment: runAsNonRoot is not true");
    if (!true_at(csc, "readOnlyRootFilesystem"))
        problem(P, "Deployment: readOnlyRootFilesystem is not true");
    if (!false_at(csc, "allowPrivilegeEscalation"))
        problem(P, "Deployment: allowPrivilegeEscalation is not false");
    if (true_at(csc, "privileged"))
        problem(P, "Deployment: the container is privileged");
    bool all = false;
    const cJSON *cap = NULL;
    cJSON_ArrayForEach(cap, at(csc, "capabilities.drop"))
    {
        if (cJSON_IsString(cap) && strcmp(cap->valuestring, "ALL") == 0)
            all = true;
    }
    if (!all)
        problem(P, "Deployment: capabilities.drop does not hold ALL");
    if (at(csc, "capabilities.add") != NULL)
        problem(P, "Deployment: capabilities.add is set");
    const char *sc = str_at(csc, "seccompProfile.type");
    if (sc == NULL)
        sc = str_at(psc, "seccompProfile.type");
    if (sc == NULL || strcmp(sc, "RuntimeDefault") != 0)
        problem(P, "Deployment: seccompProfile is not RuntimeDefault");
    /* A numeric uid, the one the image runs as (Dockerfile USER uid:gid). */
    double uid = -1;
    if (!num_at(csc, "runAsUser", &uid))
        num_at(psc, "runAsUser", &uid);
    const char *user = dockerfile_last(w->dockerfile, "USER");
    if (user == NULL || !isdigit((unsigned char)user[0]))
        problem(P, "docker/Dockerfile: the final USER is not a numeric uid");
    else if (uid >= 0 && (long)uid != strtol(user, NULL, 10))
        problem(P, "Deployment: runAsUser %.0f is not the image's USER %ld", uid,
                strtol(user, NULL, 10));
    if (uid == 0)
        problem(P, "Deployment: runAsUser is 0");
}

static void check_resources(struct problems *P, const cJSON *c, const struct settings *args)
{
    static const char *const res[] = {"cpu", "memory"};
    for (size_t i = 0; i < 2; i++) {
        char rp[64], lp[64];
        snprintf(rp, sizeof(rp), "resources.requests.%s", res[i]);
        snprintf(lp, sizeof(lp), "resources.limits.%s", res[i]);
        double rq = quantity(at(c, rp)), lm = quantity(at(c, lp));
        if (rq <= 0)
            problem(P, "Deployment: no %s request", res[i]);
        if (lm <= 0 && strcmp(res[i], "memory") == 0)
            problem(P, "Deployment: no memory limit");
        if (rq > 0 && lm > 0 && rq > lm)
            problem(P, "Deployment: the %s request is above its limit", res[i]);
    }
    /* Worker threads: the default (0) counts the node's CPUs, not the container's. */
    const char *t = setting(args, "threads");
    double cpu = quantity(at(c, "resources.limits.cpu"));
    if (t == NULL || atoi(t) <= 0)
        problem(P, "Deployment: --threads is not set (the default counts the node's CPUs)");
    else if (cpu > 0 && atoi(t) > (int)(cpu + 0.999))
        problem(P, "Deployment: --threads %s is above the CPU limit", t);
}

static void check_grace(struct problems *P, const struct world *w, const cJSON *pod, const cJSON *c,
                        const struct settings *args)
{
    char grace[64];
    if (!effective(args, at(c, "env"), w->dockerfile, w->help, "shutdown-grace-s", grace,
                   sizeof(grace))) {
        problem(P, "Deployment: cannot tell the server's shutdown_grace_s");
        return;
    }
    double sleep_s = -1;
    const cJSON *pre = at(c, "lifecycle.preStop");
    const cJSON *cmd = at(pre, "exec.command");
    if (cJSON_IsArray(cmd) && cJSON_GetArraySize(cmd) == 2 &&
        cJSON_IsString(cJSON_GetArrayItem(cmd, 0)) &&
        strcmp(cJSON_GetArrayItem(cmd, 0)->valuestring, "sleep") == 0 &&
        cJSON_IsString(cJSON_GetArrayItem(cmd, 1)))
        sleep_s = atof(cJSON_GetArrayItem(cmd, 1)->valuestring);
    else
        (void)num_at(pre, "sleep.seconds", &sleep_s); /* the native sleep action */
    if (sleep_s < 0) {
        problem(P, "Deployment: no preStop sleep (exec [sleep, N] or sleep.seconds) before "
                   "SIGTERM: the pod would stop accepting while still in the endpoints");
        sleep_s = 0;
    }
    double tgps = 30; /* the Kubernetes default */
    num_at(pod, "terminationGracePeriodSeconds", &tgps);
    double need = atof(grace) + sleep_s;
    if (!(tgps > need))
        problem(P,
                "Deployment: terminationGracePeriodSeconds %.0f is not above "
                "shutdown_grace_s %s + preStop sleep %.0f",
                tgps, grace, sleep_s);
}

static void check_configmap(struct problems *P, const cJSON *pod, const cJSON *c, const cJSON *cm,
                            const struct settings *args)
{
    const char *cm_name = str_at(cm, "metadata.name");
    const cJSON *vol = NULL, *v = NULL;
    cJSON_ArrayForEach(v, at(pod, "volumes"))
    {
        const char *n = str_at(v, "configMap.name");
        if (n != NULL && cm_name != NULL && strcmp(n, cm_name) == 0)
            vol = v;
    }
    if (vol == NULL) {
        problem(P, "ConfigMap %s: no volume of the Deployment names it",
                cm_name != NULL ? cm_name : "?");
        return;
    }
    if (at(vol, "configMap.items") != NULL)
        problem(P, "ConfigMap %s: the volume lists items: every key must be mounted", cm_name);
    const char *vname = str_at(vol, "name");
    const cJSON *mount = NULL, *m = NULL;
    cJSON_ArrayForEach(m, at(c, "volumeMounts"))
    {
        const char *n = str_at(m, "name");
        if (n != NULL && vname != NULL && strcmp(n, vname) == 0)
            mount = m;
    }
    if (mount == NULL) {
        problem(P, "ConfigMap %s: volume %s is not mounted in the container", cm_name,
                vname != NULL ? vname : "?");
        return;
    }
    const char *path = str_at(mount, "mountPath");
    const char *rules = setting(args, "rules");
    if (path == NULL || rules == NULL || strcmp(path, rules) != 0)
        problem(P, "ConfigMap %s: mounted at %s but --rules is %s", cm_name,
                path != NULL ? path : "?", rules != NULL ? rules : "not set");
    if (at(mount, "subPath") != NULL || at(mount, "subPathExpr") != NULL)
        problem(P, "ConfigMap %s: mounted with subPath, which never receives updates", cm_name);
    if (!true_at(mount, "readOnly"))
        problem(P, "ConfigMap %s: the mount is not readOnly", cm_name);
    const char *watch = setting(args, "rules-watch");
    if (watch != NULL && (strcmp(watch, "false") == 0 || strcmp(watch, "0") == 0 ||
                          strcmp(watch, "no") == 0 || strcmp(watch, "off") == 0))
        problem(P, "ConfigMap %s: --rules-watch is off: edits would need a restart", cm_name);

    /* The data is rules/, byte for byte, one key per *.yaml file. */
    char dir[4096], path2[4400];
    snprintf(dir, sizeof(dir), "%s/rules", g_source);
    DIR *d = opendir(dir);
    size_t files = 0;
    const struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || l < 6 || strcmp(e->d_name + l - 5, ".yaml") != 0)
            continue;
        files++;
        snprintf(path2, sizeof(path2), "%s/%s", dir, e->d_name);
        char *want = slurp(path2, NULL);
        /* Keys have dots: look them up directly, not as a dotted path. */
        const cJSON *gv = cJSON_GetObjectItemCaseSensitive(at(cm, "data"), e->d_name);
        const char *got = cJSON_IsString(gv) ? gv->valuestring : NULL;
        if (want == NULL || got == NULL)
            problem(P, "ConfigMap %s: no key %s (rules/%s)", cm_name, e->d_name, e->d_name);
        else if (strcmp(want, got) != 0)
            problem(P, "ConfigMap %s: %s differs from rules/%s (run docker/k8s/make-configmap.sh)",
                    cm_name, e->d_name, e->d_name);
        free(want);
    }
    if (d != NULL)
        closedir(d);
    if (files == 0 || (size_t)cJSON_GetArraySize(at(cm, "data")) != files)
        problem(P, "ConfigMap %s: its keys are not exactly the %zu files of rules/", cm_name,
                files);
}

/* NetworkPolicy: the API port open, the admin listener's only to named peers. */
static void check_network_policy(struct problems *P, const cJSON *np, const cJSON *pod_labels,
                                 const cJSON *c, int listen_port, int admin_port)
{
    if (!selects(at(np, "spec.podSelector.matchLabels"), pod_labels))
        problem(P, "NetworkPolicy: its podSelector does not match the Deployment's pod labels");
    bool ingress = false, api_open = false;
    const cJSON *t = NULL;
    cJSON_ArrayForEach(t, at(np, "spec.policyTypes"))
    {
        ingress = ingress || (cJSON_IsString(t) && strcmp(t->valuestring, "Ingress") == 0);
    }
    if (!ingress)
        problem(P, "NetworkPolicy: policyTypes has no Ingress");
    const cJSON *rule = NULL;
    cJSON_ArrayForEach(rule, at(np, "spec.ingress"))
    {
        bool anyone = cJSON_GetArraySize(at(rule, "from")) == 0;
        const cJSON *port = NULL;
        cJSON_ArrayForEach(port, at(rule, "ports"))
        {
            int n = resolve_port(at(c, "ports"), at(port, "port"));
            if (n == 0)
                problem(P, "NetworkPolicy: a port is not a containerPort of the Deployment");
            if (n == listen_port && anyone)
                api_open = true;
            if (n == admin_port && admin_port != listen_port && anyone)
                problem(P, "NetworkPolicy: the admin port %d is open to anyone", admin_port);
        }
        if (cJSON_GetArraySize(at(rule, "ports")) == 0 && anyone && admin_port != listen_port)
            problem(P, "NetworkPolicy: a rule opens every port, the admin port %d included",
                    admin_port);
    }
    if (!api_open)
        problem(P, "NetworkPolicy: the listening port %d is not open to every client", listen_port);
}

/* docker/Dockerfile's ENTRYPOINT (exec form) ends in `serve`, so the
 * Deployment's args are serve flags. */
static void check_entrypoint(struct problems *P, const struct world *w)
{
    const char *ep = dockerfile_last(w->dockerfile, "ENTRYPOINT");
    cJSON *epj = ep != NULL ? cJSON_Parse(ep) : NULL;
    const cJSON *last =
        cJSON_IsArray(epj) ? cJSON_GetArrayItem(epj, cJSON_GetArraySize(epj) - 1) : NULL;
    if (!cJSON_IsString(last) || strcmp(last->valuestring, "serve") != 0)
        problem(P, "docker/Dockerfile: the ENTRYPOINT (exec form) does not end in `serve`, so "
                   "the Deployment's args would not be serve flags");
    cJSON_Delete(epj);
}

/* Service links (<NAME>_SERVICE_HOST, <NAME>_PORT...) stay out of the
 * server's ACCEL_ADVISOR_* namespace. */
static void check_service_links(struct problems *P, const cJSON *pod, const cJSON *svc)
{
    if (!false_at(pod, "enableServiceLinks")) {
        /* Service links are <NAME>_SERVICE_HOST, <NAME>_PORT...: inside the
         * server's ACCEL_ADVISOR_* namespace for a Service named accel-advisor*. */
        char env[128];
        const char *sname = str_at(svc, "metadata.name");
        snprintf(env, sizeof(env), "%s_SERVICE_HOST", sname != NULL ? sname : "");
        for (char *q = env; *q != '\0'; q++)
            *q = *q == '-' ? '_' : (char)toupper((unsigned char)*q);
        if (strncmp(env, "ACCEL_ADVISOR_", 14) == 0)
            problem(P,
                    "Deployment: enableServiceLinks is not false: Service %s would inject "
                    "ACCEL_ADVISOR_* variables the server warns about",
                    sname);
    }
}

/* The Service selects the pods and targets the listening port. */
static void check_service(struct problems *P, const cJSON *svc, const cJSON *pod_labels,
                          const cJSON *c, int listen_port)
{
    if (!selects(at(svc, "spec.selector"), pod_labels))
        problem(P, "Service: its selector does not match the Deployment's pod labels");
    const cJSON *sp = NULL;
    size_t nports = 0;
    cJSON_ArrayForEach(sp, at(svc, "spec.ports"))
    {
        nports++;
        const cJSON *tp = at(sp, "targetPort");
        double port = 0;
        int target = tp != NULL ? resolve_port(at(c, "ports"), tp)
                                : (num_at(sp, "port", &port) ? (int)port : 0);
        if (target == 0 || target != listen_port)
            problem(P,
                    "Service: targetPort of port %s does not name the listening container "
                    "port %d",
                    str_at(sp, "name") != NULL ? str_at(sp, "name") : "?", listen_port);
    }
    if (nports == 0)
        problem(P, "Service: no ports");
}

/* The HorizontalPodAutoscaler scales the Deployment on CPU, from at least two
 * replicas. Returns its minReplicas. */
static double check_hpa(struct problems *P, const cJSON *hpa, const char *dep_name)
{
    const char *tk = str_at(hpa, "spec.scaleTargetRef.kind");
    const char *tn = str_at(hpa, "spec.scaleTargetRef.name");
    const char *ta = str_at(hpa, "spec.scaleTargetRef.apiVersion");
    if (tk == NULL || strcmp(tk, "Deployment") != 0 || tn == NULL || dep_name == NULL ||
        strcmp(tn, dep_name) != 0 || ta == NULL || strcmp(ta, "apps/v1") != 0)
        problem(P, "HorizontalPodAutoscaler: scaleTargetRef is not apps/v1 Deployment %s",
                dep_name != NULL ? dep_name : "?");
    double minr = 1, maxr = 0;
    num_at(hpa, "spec.minReplicas", &minr);
    num_at(hpa, "spec.maxReplicas", &maxr);
    if (minr < 2 || maxr < minr)
        problem(P, "HorizontalPodAutoscaler: replicas %.0f..%.0f (want 2 <= min <= max)", minr,
                maxr);
    bool cpu = false;
    const cJSON *m = NULL;
    cJSON_ArrayForEach(m, at(hpa, "spec.metrics"))
    {
        const char *t = str_at(m, "type"), *n = str_at(m, "resource.name");
        if (t != NULL && strcmp(t, "Resource") == 0 && n != NULL && strcmp(n, "cpu") == 0)
            cpu = true;
    }
    if (!cpu)
        problem(P, "HorizontalPodAutoscaler: no CPU resource metric");
    return minr;
}

/* The PodDisruptionBudget selects the pods and leaves room for a disruption. */
static void check_pdb(struct problems *P, const cJSON *pdb, const cJSON *pod_labels,
                      double replicas, double minr)
{
    if (!selects(at(pdb, "spec.selector.matchLabels"), pod_labels))
        problem(P, "PodDisruptionBudget: its selector does not match the Deployment's pod labels");
    double mina = 0;
    if (num_at(pdb, "spec.minAvailable", &mina) && (mina >= replicas || mina >= minr))
        problem(P,
                "PodDisruptionBudget: minAvailable %.0f leaves no disruption at %.0f "
                "replicas",
                mina, replicas < minr ? replicas : minr);
    if (at(pdb, "spec.minAvailable") == NULL && at(pdb, "spec.maxUnavailable") == NULL)
        problem(P, "PodDisruptionBudget: neither minAvailable nor maxUnavailable");
}

static void check_all(const struct world *w, struct problems *P)
{
    static const char *const kinds[] = {
        "Deployment",          "Service",   "HorizontalPodAutoscaler",
        "PodDisruptionBudget", "ConfigMap", "NetworkPolicy"};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        if (count_kind(w, kinds[i]) != 1)
            problem(P, "docker/k8s: %zu %s manifests (want exactly one)", count_kind(w, kinds[i]),
                    kinds[i]);
    }
    const cJSON *dep = find_kind(w, "Deployment", NULL);
    const cJSON *svc = find_kind(w, "Service", NULL);
    const cJSON *hpa = find_kind(w, "HorizontalPodAutoscaler", NULL);
    const cJSON *pdb = find_kind(w, "PodDisruptionBudget", NULL);
    const cJSON *cm = find_kind(w, "ConfigMap", NULL);
    const cJSON *np = find_kind(w, "NetworkPolicy", NULL);
    if (dep == NULL || svc == NULL || hpa == NULL || pdb == NULL || cm == NULL || np == NULL)
        return;

    /* Deployment. */
    const char *dep_name = str_at(dep, "metadata.name");
    double replicas = 1;
    num_at(dep, "spec.replicas", &replicas);
    if (replicas < 2)
        problem(P, "Deployment: %.0f replicas (want at least 2)", replicas);
    const cJSON *pod_labels = at(dep, "spec.template.metadata.labels");
    if (!selects(at(dep, "spec.selector.matchLabels"), pod_labels))
        problem(P, "Deployment: spec.selector does not match the pod template's labels");
    const cJSON *pod = at(dep, "spec.template.spec");
    const cJSON *containers = at(pod, "containers");
    if (cJSON_GetArraySize(containers) != 1) {
        problem(P, "Deployment: %d containers (want the one accel-advisor container)",
                cJSON_GetArraySize(containers));
        return;
    }
    const cJSON *c = cJSON_GetArrayItem(containers, 0);
    struct settings args;
    check_args(P, w, c, &args);

    check_entrypoint(P, w);

    /* Listening address: all interfaces, on a declared container port. */
    char listen[256];
    int listen_port = 0;
    if (!effective(&args, at(c, "env"), w->dockerfile, w->help, "listen", listen, sizeof(listen))) {
        problem(P, "Deployment: cannot tell the listening address");
    } else {
        listen_port = listening_port(P, c, "--listen", listen);
        const char *expose = dockerfile_last(w->dockerfile, "EXPOSE");
        if (expose == NULL || atoi(expose) != listen_port)
            problem(P, "docker/Dockerfile: EXPOSE is not the listening port %d", listen_port);
    }
    /* The probes: on the admin listener when there is one (answered while the
     * API port is flooded), else on the API's. */
    char admin[256];
    int probe_port = listen_port;
    if (effective(&args, at(c, "env"), w->dockerfile, w->help, "admin-listen", admin,
                  sizeof(admin)) &&
        admin[0] != '\0')
        probe_port = listening_port(P, c, "--admin-listen", admin);
    check_probe(P, w, c, "readinessProbe", "/readyz", probe_port);
    check_probe(P, w, c, "livenessProbe", "/healthz", probe_port);
    check_security(P, w, pod, c);
    check_resources(P, c, &args);
    check_grace(P, w, pod, c, &args);
    check_service_links(P, pod, svc);

    check_service(P, svc, pod_labels, c, listen_port);
    double minr = check_hpa(P, hpa, dep_name);
    check_pdb(P, pdb, pod_labels, replicas, minr);
    /* ConfigMap. */
    check_configmap(P, pod, c, cm, &args);
    check_network_policy(P, np, pod_labels, c, listen_port, probe_port);
}

/* ---- tests ---------------------------------------------------------------------- */

static struct world W;

static int setup(void **state)
{
    (void)state;
    return world_load(&W);
}

static int teardown(void **state)
{
    (void)state;
    world_free(&W);
    return 0;
}

static void test_manifests_consistent(void **state)
{
    (void)state;
    struct problems P = {0};
    check_all(&W, &P);
    print_problems(&P);
    assert_int_equal(P.n, 0);
}

static cJSON *doc_of(struct world *w, const char *kind)
{
    return find_kind(w, kind, NULL);
}

static cJSON *container(struct world *w)
{
    return cJSON_GetArrayItem(at(doc_of(w, "Deployment"), "spec.template.spec.containers"), 0);
}

static void set_str(cJSON *o, const char *path, const char *v)
{
    /* Replace the value at `path` (its parent must exist). */
    char parent[256];
    snprintf(parent, sizeof(parent), "%s", path);
    char *dot = strrchr(parent, '.');
    cJSON *obj = o;
    const char *key = path;
    if (dot != NULL) {
        *dot = '\0';
        obj = at(o, parent);
        key = dot + 1;
    }
    assert_non_null(obj);
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    cJSON_AddItemToObject(obj, key, cJSON_CreateString(v));
}

static void set_num(cJSON *o, const char *path, double v)
{
    char parent[256];
    snprintf(parent, sizeof(parent), "%s", path);
    char *dot = strrchr(parent, '.');
    assert_non_null(dot);
    *dot = '\0';
    cJSON *obj = at(o, parent);
    assert_non_null(obj);
    cJSON_DeleteItemFromObjectCaseSensitive(obj, dot + 1);
    cJSON_AddItemToObject(obj, dot + 1, cJSON_CreateNumber(v));
}

/* Replace the value following flag `flag` in the container's args. */
static void set_arg(struct world *w, const char *flag, const char *v)
{
    cJSON *args = at(container(w), "args");
    for (cJSON *a = args->child; a != NULL; a = a->next) {
        if (cJSON_IsString(a) && strcmp(a->valuestring, flag) == 0 && a->next != NULL) {
            cJSON_SetValuestring(a->next, v);
            return;
        }
    }
    fail_msg("no %s in args", flag);
}

static void m_selector(struct world *w)
{
    /* at() splits paths on dots, so the label (with dots) is set directly. */
    cJSON *sel = at(doc_of(w, "Service"), "spec.selector");
    cJSON_DeleteItemFromObjectCaseSensitive(sel, "app.kubernetes.io/name");
    cJSON_AddStringToObject(sel, "app.kubernetes.io/name", "someone-else");
}
static void m_target_port(struct world *w)
{
    cJSON *p = cJSON_GetArrayItem(at(doc_of(w, "Service"), "spec.ports"), 0);
    set_str(p, "targetPort", "metrics");
}
static void m_readiness_path(struct world *w)
{
    set_str(container(w), "readinessProbe.httpGet.path", "/ready");
}
static void m_liveness_port(struct world *w)
{
    set_num(container(w), "livenessProbe.httpGet.port", 8080);
}
static void m_admin_loopback(struct world *w)
{
    set_arg(w, "--admin-listen", "127.0.0.1:9090");
}
static void m_listen_port(struct world *w)
{
    set_arg(w, "--listen", "0.0.0.0:9000");
}
static void m_loopback(struct world *w)
{
    set_arg(w, "--listen", "127.0.0.1:8080");
}
static void m_hpa_target(struct world *w)
{
    set_str(doc_of(w, "HorizontalPodAutoscaler"), "spec.scaleTargetRef.name", "other");
}
static void m_pdb_selector(struct world *w)
{
    cJSON *sel = at(doc_of(w, "PodDisruptionBudget"), "spec.selector.matchLabels");
    cJSON_DeleteItemFromObjectCaseSensitive(sel, "app.kubernetes.io/component");
    cJSON_AddStringToObject(sel, "app.kubernetes.io/component", "rules");
}
static void m_np_admin_open(struct world *w)
{
    cJSON *rule = cJSON_GetArrayItem(at(doc_of(w, "NetworkPolicy"), "spec.ingress"), 1);
    cJSON_DeleteItemFromObjectCaseSensitive(rule, "from");
}
static void m_np_selector(struct world *w)
{
    cJSON *sel = at(doc_of(w, "NetworkPolicy"), "spec.podSelector.matchLabels");
    cJSON_DeleteItemFromObjectCaseSensitive(sel, "app.kubernetes.io/name");
    cJSON_AddStringToObject(sel, "app.kubernetes.io/name", "someone-else");
}
static void m_cm_name(struct world *w)
{
    set_str(doc_of(w, "ConfigMap"), "metadata.name", "renamed");
}
static void m_mount_path(struct world *w)
{
    set_str(cJSON_GetArrayItem(at(container(w), "volumeMounts"), 0), "mountPath", "/rules");
}
static void m_sub_path(struct world *w)
{
    cJSON_AddStringToObject(cJSON_GetArrayItem(at(container(w), "volumeMounts"), 0), "subPath",
                            "rules.yaml");
}
static void m_grace(struct world *w)
{
    set_num(doc_of(w, "Deployment"), "spec.template.spec.terminationGracePeriodSeconds", 30);
}
static void m_drain_longer(struct world *w)
{
    set_arg(w, "--shutdown-grace-s", "60");
}
static void m_no_prestop(struct world *w)
{
    cJSON_DeleteItemFromObjectCaseSensitive(container(w), "lifecycle");
}
static void m_unknown_flag(struct world *w)
{
    cJSON_AddItemToArray(at(container(w), "args"), cJSON_CreateString("--no-such-setting=1"));
}
static void m_unknown_env(struct world *w)
{
    cJSON *env = cJSON_AddArrayToObject(container(w), "env");
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "name", "ACCEL_ADVISOR_NO_SUCH_SETTING");
    cJSON_AddStringToObject(e, "value", "1");
    cJSON_AddItemToArray(env, e);
}
static void m_read_write_root(struct world *w)
{
    cJSON *sc = at(container(w), "securityContext");
    cJSON_ReplaceItemInObjectCaseSensitive(sc, "readOnlyRootFilesystem", cJSON_CreateFalse());
}
static void m_caps(struct world *w)
{
    cJSON_DeleteItemFromObjectCaseSensitive(at(container(w), "securityContext"), "capabilities");
}
static void m_uid(struct world *w)
{
    set_num(doc_of(w, "Deployment"), "spec.template.spec.securityContext.runAsUser", 1000);
}
static void m_service_links(struct world *w)
{
    cJSON_DeleteItemFromObjectCaseSensitive(at(doc_of(w, "Deployment"), "spec.template.spec"),
                                            "enableServiceLinks");
}
static void m_cm_data(struct world *w)
{
    cJSON *data = at(doc_of(w, "ConfigMap"), "data");
    cJSON *r = cJSON_GetObjectItemCaseSensitive(data, "rules.yaml");
    assert_non_null(r);
    size_t l = strlen(r->valuestring);
    char *v = malloc(l + 3);
    memcpy(v, r->valuestring, l);
    memcpy(v + l, "#\n", 3);
    cJSON_SetValuestring(r, v);
    free(v);
}
static void m_cm_missing_key(struct world *w)
{
    cJSON_DeleteItemFromObjectCaseSensitive(at(doc_of(w, "ConfigMap"), "data"), "sizing.yaml");
}
static void m_one_replica(struct world *w)
{
    set_num(doc_of(w, "Deployment"), "spec.replicas", 1);
}
static void m_threads(struct world *w)
{
    set_arg(w, "--threads", "0");
}
static void m_requests(struct world *w)
{
    set_str(container(w), "resources.requests.memory", "1Gi");
}
static void m_command(struct world *w)
{
    cJSON *cmd = cJSON_AddArrayToObject(container(w), "command");
    cJSON_AddItemToArray(cmd, cJSON_CreateString("/bin/sh"));
}
static void m_no_hpa(struct world *w)
{
    set_str(doc_of(w, "HorizontalPodAutoscaler"), "kind", "Something");
}

static const struct mutation {
    const char *what;
    void (*apply)(struct world *w);
    const char *expect;
} mutations[] = {
    {"Service selector", m_selector, "Service: its selector"},
    {"Service targetPort", m_target_port, "Service: targetPort"},
    {"readiness path", m_readiness_path, "readinessProbe must GET /readyz"},
    {"liveness port", m_liveness_port, "livenessProbe port"},
    {"listen port", m_listen_port, "--listen port 9000 is not a containerPort"},
    {"loopback listen", m_loopback, "not on all interfaces"},
    {"loopback admin listener", m_admin_loopback, "--admin-listen on 127.0.0.1:9090: not on all"},
    {"HPA target", m_hpa_target, "scaleTargetRef"},
    {"PDB selector", m_pdb_selector, "PodDisruptionBudget: its selector"},
    {"admin port open", m_np_admin_open, "the admin port 9090 is open to anyone"},
    {"NetworkPolicy selector", m_np_selector, "NetworkPolicy: its podSelector"},
    {"ConfigMap name", m_cm_name, "no volume of the Deployment names it"},
    {"mount path", m_mount_path, "mounted at /rules but --rules is /etc/accel-advisor/rules"},
    {"subPath", m_sub_path, "subPath"},
    {"grace period", m_grace, "terminationGracePeriodSeconds 30 is not above"},
    {"longer drain", m_drain_longer, "shutdown_grace_s 60"},
    {"no preStop", m_no_prestop, "no preStop sleep"},
    {"unknown flag", m_unknown_flag, "unknown flag --no-such-setting"},
    {"unknown env", m_unknown_env, "ACCEL_ADVISOR_NO_SUCH_SETTING is not a setting"},
    {"writable root", m_read_write_root, "readOnlyRootFilesystem"},
    {"capabilities", m_caps, "capabilities.drop"},
    {"uid", m_uid, "runAsUser 1000 is not the image's USER"},
    {"service links", m_service_links, "enableServiceLinks"},
    {"ConfigMap data", m_cm_data, "rules.yaml differs from rules/rules.yaml"},
    {"ConfigMap key", m_cm_missing_key, "no key sizing.yaml"},
    {"one replica", m_one_replica, "1 replicas"},
    {"threads", m_threads, "--threads is not set"},
    {"requests", m_requests, "memory request is above its limit"},
    {"command", m_command, "sets `command`"},
    {"no HPA", m_no_hpa, "0 HorizontalPodAutoscaler manifests"},
};

static void test_mutations_detected(void **state)
{
    (void)state;
    int missed = 0;
    for (size_t i = 0; i < sizeof(mutations) / sizeof(mutations[0]); i++) {
        struct world w = W;
        for (size_t k = 0; k < W.n; k++)
            w.doc[k] = cJSON_Duplicate(W.doc[k], true);
        mutations[i].apply(&w);
        struct problems P = {0};
        check_all(&w, &P);
        if (!has_problem(&P, mutations[i].expect)) {
            fprintf(stderr, "mutation \"%s\" not reported as \"%s\"; problems:\n",
                    mutations[i].what, mutations[i].expect);
            print_problems(&P);
            missed++;
        }
        for (size_t k = 0; k < w.n; k++)
            cJSON_Delete(w.doc[k]);
    }
    assert_int_equal(missed, 0);
}

static void test_quantities(void **state)
{
    (void)state;
    cJSON *q = cJSON_CreateString("250m");
    assert_true(quantity(q) > 0.2499 && quantity(q) < 0.2501);
    cJSON_SetValuestring(q, "64Mi");
    assert_true(quantity(q) == 64.0 * 1048576.0);
    cJSON_SetValuestring(q, "2");
    assert_true(quantity(q) == 2.0);
    cJSON_SetValuestring(q, "lots");
    assert_true(quantity(q) < 0);
    cJSON_Delete(q);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s BINARY SOURCE_DIR\n", argv[0]);
        return 2;
    }
    g_binary = argv[1];
    g_source = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_manifests_consistent),
        cmocka_unit_test(test_mutations_detected),
        cmocka_unit_test(test_quantities),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
