/* service/src/fleet_model.c -- from the series of both sources to one snapshot:
 * every device once (a node's agent over dcgm-exporter for the same node), each
 * mapped to a catalog id, counted per accelerator, per node (for whole-node
 * shapes) and per cluster; and the snapshot as the core's availability.
 * Owner: the fleet availability work (issue 19). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fleet.h"
#include "probe/probe.h"

/* dcgm-exporter's fields (MiB for the frame buffer, percent for utilisation):
 * https://docs.nvidia.com/datacenter/dcgm/latest/dcgm-api/dcgm-api-field-ids.html */
#define DCGM_UTIL    "DCGM_FI_DEV_GPU_UTIL"
#define DCGM_FB_USED "DCGM_FI_DEV_FB_USED"
#define DCGM_FB_FREE "DCGM_FI_DEV_FB_FREE"
/* A model name's stated memory may differ from the catalog's by this much and
 * still name it (the H100 NVL states 94GB for the catalog's 80 GB part). */
#define MEMORY_TOLERANCE 0.25

/* One device while a snapshot is built: views into the answers and the rule set. */
struct dev {
    const char *cluster; /* "" when none */
    const char *node;
    const char *device; /* the agent's device label; NULL for dcgm-exporter's */
    const char *id;     /* catalog id (view into rs), NULL when unmapped */
    const char *name;   /* what the source called it, for the unmapped list */
    enum svc_fleet_source src;
    bool free;
};

/* A dcgm-exporter GPU: its series folded together (a GPU split into MIG
 * instances has several; the busiest figures count). */
struct gpu {
    const char *cluster, *node, *key, *model_name;
    bool busy_pod;
    bool has_util, has_used, has_free;
    double util, used_mib, free_mib;
};

static const char *nz(const char *s)
{
    return s != NULL ? s : "";
}

/* ---- model names --------------------------------------------------------------- */

/* The memory a word states ("80GB", "141gb"), or NAN. */
static double stated_gb(const char *word)
{
    char *end = NULL;
    double v = strtod(word, &end);
    if (end == word || !isdigit((unsigned char)word[0]) || strcasecmp(end, "GB") != 0)
        return NAN;
    return v;
}

const char *svc_fleet_map_model_name(const dc_ruleset *rs, const char *model_name)
{
    char buf[SVC_FLEET_LABEL_MAX + 1];
    const char *words[32];
    size_t n = 0;
    double gb = NAN;
    if (rs == NULL || model_name == NULL)
        return NULL;
    snprintf(buf, sizeof(buf), "%s", model_name);
    for (char *save = NULL, *w = strtok_r(buf, " -_", &save); w != NULL && n < 32;
         w = strtok_r(NULL, " -_", &save)) {
        words[n++] = w;
        if (isfinite(stated_gb(w)))
            gb = stated_gb(w);
    }
    for (size_t i = 0; i < dc_ruleset_accelerator_count(rs); i++) {
        const struct dc_accelerator *a = dc_ruleset_accelerator(rs, i);
        if (strcmp(a->vendor, "nvidia") != 0)
            continue;
        const char *shortn = a->short_name != NULL ? a->short_name : a->id;
        bool named = false;
        for (size_t k = 0; k < n && !named; k++)
            named = strcasecmp(words[k], shortn) == 0 || strcasecmp(words[k], a->id) == 0;
        if (named && (!isfinite(gb) || !(a->memory_gb > 0) ||
                      fabs(gb - a->memory_gb) <= MEMORY_TOLERANCE * a->memory_gb))
            return a->id;
    }
    return NULL;
}

/* ---- devices of each source ---------------------------------------------------- */

static const char *catalog_id(const dc_ruleset *rs, const char *id)
{
    const struct dc_accelerator *a = id != NULL ? dc_ruleset_find_accelerator(rs, id) : NULL;
    return a != NULL ? a->id : NULL;
}

/* Agent devices by cluster, node and device, then model name (so the one kept
 * of a repeated device does not depend on the answer's order). */
static int cmp_agent_dev(const void *x, const void *y)
{
    const struct dev *a = x, *b = y;
    int c = strcmp(a->cluster, b->cluster);
    if (c == 0)
        c = strcmp(a->node, b->node);
    if (c == 0)
        c = strcmp(a->device, b->device);
    return c != 0 ? c : strcmp(a->name, b->name);
}

/* The agents' series: one device for each cluster, node and device. The query
 * takes the least free of repeated reports, but a Prometheus that answers one
 * series 10,000 times made 10,000 devices of it: series that name one device
 * are that device, free only when every one of them says so, counted as
 * duplicates. Returns the devices. */
static size_t agent_devices(const dc_ruleset *rs, const struct svc_fleet_vector *v, struct dev *out,
                            struct svc_fleet_source_count *count)
{
    size_t k = 0;
    for (size_t i = 0; i < v->n; i++) {
        const char *const *l = v->series[i].label;
        if (l[SVC_FL_NODE] == NULL || l[SVC_FL_DEVICE] == NULL || l[SVC_FL_MODEL] == NULL) {
            count->dropped++;
            continue;
        }
        out[k++] = (struct dev){nz(l[SVC_FL_CLUSTER]),           l[SVC_FL_NODE],  l[SVC_FL_DEVICE],
                                catalog_id(rs, l[SVC_FL_MODEL]), l[SVC_FL_MODEL], SVC_FLEET_AGENT,
                                v->series[i].value >= 0.5};
    }
    qsort(out, k, sizeof(*out), cmp_agent_dev);
    size_t n = 0;
    for (size_t i = 0; i < k; i++) {
        if (n > 0 && strcmp(out[n - 1].cluster, out[i].cluster) == 0 &&
            strcmp(out[n - 1].node, out[i].node) == 0 &&
            strcmp(out[n - 1].device, out[i].device) == 0) {
            out[n - 1].free = out[n - 1].free && out[i].free;
            count->duplicates++;
            continue;
        }
        out[n++] = out[i];
    }
    return n;
}

static int cmp_str(const char *a, const char *b)
{
    return strcmp(nz(a), nz(b));
}

/* Order of dcgm series: by GPU (cluster, host, key). */
static const char *gpu_key(const struct svc_fleet_series *s)
{
    const char *const *l = s->label;
    return l[SVC_FL_UUID] != NULL         ? l[SVC_FL_UUID]
           : l[SVC_FL_PCI_BUS_ID] != NULL ? l[SVC_FL_PCI_BUS_ID]
                                          : l[SVC_FL_GPU];
}

static int cmp_series(const void *x, const void *y)
{
    const struct svc_fleet_series *a = *(const struct svc_fleet_series *const *)x;
    const struct svc_fleet_series *b = *(const struct svc_fleet_series *const *)y;
    int c = cmp_str(a->label[SVC_FL_CLUSTER], b->label[SVC_FL_CLUSTER]);
    if (c == 0)
        c = cmp_str(a->label[SVC_FL_HOSTNAME], b->label[SVC_FL_HOSTNAME]);
    return c != 0 ? c : cmp_str(gpu_key(a), gpu_key(b));
}

/* Fold series `s` into GPU `g`. */
static void fold(struct gpu *g, const struct svc_fleet_series *s)
{
    const char *field = nz(s->label[SVC_FL_NAME]);
    if (g->model_name == NULL)
        g->model_name = s->label[SVC_FL_MODEL_NAME];
    if (s->label[SVC_FL_POD] != NULL && s->label[SVC_FL_POD][0] != '\0')
        g->busy_pod = true;
    if (strcmp(field, DCGM_UTIL) == 0) {
        g->util = g->has_util ? fmax(g->util, s->value) : s->value;
        g->has_util = true;
    } else if (strcmp(field, DCGM_FB_USED) == 0) {
        g->used_mib = g->has_used ? fmax(g->used_mib, s->value) : s->value;
        g->has_used = true;
    } else if (strcmp(field, DCGM_FB_FREE) == 0) {
        g->free_mib = g->has_free ? fmin(g->free_mib, s->value) : s->value;
        g->has_free = true;
    }
}

/* Free by the probe's limits: measured idle, memory mostly unused, no pod. A
 * memory figure that cannot be a measurement (negative) makes the GPU not
 * known free; a total past the catalog's memory for the part by more than
 * MEMORY_TOLERANCE (an overflowing FB_FREE, which made any use look small) is
 * taken as the catalog's. */
static bool gpu_free(const dc_ruleset *rs, const struct gpu *g, const char *id)
{
    if (!g->has_util || g->util > PROBE_FREE_UTILIZATION_MAX || g->util < 0 || g->busy_pod)
        return false;
    if ((g->has_used && !(g->used_mib >= 0)) || (g->has_free && !(g->free_mib >= 0)))
        return false;
    if (!g->has_used)
        return true;
    double total = g->has_free ? g->used_mib + g->free_mib : NAN;
    const struct dc_accelerator *a = id != NULL ? dc_ruleset_find_accelerator(rs, id) : NULL;
    double catalog = a != NULL && a->memory_gb > 0 ? a->memory_gb * 1024.0 : NAN; /* GiB in MiB */
    if (catalog > 0 && !(total > 0 && total <= catalog * (1 + MEMORY_TOLERANCE)))
        total = catalog;
    return !(total > 0) || g->used_mib * 100.0 <= total * PROBE_FREE_MEMORY_USED_MAX;
}

/* dcgm-exporter's series: one device per GPU, mapped by model name. */
static size_t dcgm_devices(const dc_ruleset *rs, const struct svc_fleet_vector *v,
                           const struct svc_fleet_series **order, struct dev *out,
                           struct svc_fleet_source_count *count)
{
    size_t n = 0, k = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (v->series[i].label[SVC_FL_HOSTNAME] != NULL && gpu_key(&v->series[i]) != NULL)
            order[n++] = &v->series[i];
        else
            count->dropped++;
    }
    qsort(order, n, sizeof(*order), cmp_series);
    for (size_t i = 0; i < n;) {
        struct gpu g = {.cluster = nz(order[i]->label[SVC_FL_CLUSTER]),
                        .node = order[i]->label[SVC_FL_HOSTNAME],
                        .key = gpu_key(order[i])};
        for (; i < n && strcmp(nz(order[i]->label[SVC_FL_CLUSTER]), g.cluster) == 0 &&
               strcmp(order[i]->label[SVC_FL_HOSTNAME], g.node) == 0 &&
               strcmp(gpu_key(order[i]), g.key) == 0;
             i++)
            fold(&g, order[i]);
        const char *id = svc_fleet_map_model_name(rs, g.model_name);
        out[k++] = (struct dev){g.cluster,
                                g.node,
                                NULL,
                                id,
                                g.model_name != NULL ? g.model_name : "(no modelName)",
                                SVC_FLEET_DCGM,
                                gpu_free(rs, &g, id)};
    }
    return k;
}

/* ---- one device once: a node's agent over dcgm-exporter ------------------------ */

static int cmp_node(const struct dev *a, const struct dev *b)
{
    int c = strcmp(a->cluster, b->cluster);
    return c != 0 ? c : strcmp(a->node, b->node);
}

static int cmp_node_q(const void *x, const void *y)
{
    return cmp_node(x, y);
}

/* Drop the dcgm-exporter devices (devs[from..n)) on nodes an agent reports
 * (devs[0..from), sorted here by node): the agent sees every accelerator of its
 * node and knows who holds it. Returns the devices left. */
static size_t drop_duplicates(struct dev *devs, size_t from, size_t n,
                              struct svc_fleet_source_count *count)
{
    qsort(devs, from, sizeof(*devs), cmp_node_q);
    size_t k = from;
    for (size_t i = from; i < n; i++) {
        if (from > 0 && bsearch(&devs[i], devs, from, sizeof(*devs), cmp_node_q) != NULL) {
            count->duplicates++;
            continue;
        }
        devs[k++] = devs[i];
    }
    return k;
}

/* ---- counting ------------------------------------------------------------------ */

/* Mapped devices first, by catalog id; then the unmapped, by name; each by node. */
static int cmp_dev(const void *x, const void *y)
{
    const struct dev *a = x, *b = y;
    if ((a->id == NULL) != (b->id == NULL))
        return a->id == NULL ? 1 : -1;
    int c = a->id != NULL ? strcmp(a->id, b->id) : strcmp(a->name, b->name);
    return c != 0 ? c : cmp_node(a, b);
}

static char *dup_str(const char *s, bool *oom)
{
    char *d = strdup(s != NULL ? s : "");
    if (d == NULL)
        *oom = true;
    return d;
}

/* Count the devices d[s..e) of one catalog accelerator into *m. */
static bool count_model(const dc_ruleset *rs, const struct dev *d, size_t s, size_t e,
                        struct svc_fleet_model *m)
{
    bool oom = false;
    const struct dc_accelerator *a = dc_ruleset_find_accelerator(rs, d[s].id);
    m->id = dup_str(d[s].id, &oom);
    m->name = dup_str(a != NULL && a->short_name != NULL ? a->short_name : d[s].id, &oom);
    m->vendor = dup_str(a != NULL ? a->vendor : "", &oom);
    size_t nc = 0;
    for (size_t i = s; i < e; i++)
        nc += i == s || strcmp(d[i].cluster, d[i - 1].cluster) != 0;
    m->clusters = calloc(nc, sizeof(*m->clusters));
    if (oom || m->clusters == NULL)
        return false;
    for (size_t i = s; i < e;) {
        unsigned nd = 0, nf = 0;
        size_t j = i;
        for (; j < e && cmp_node(&d[j], &d[i]) == 0; j++) {
            nd++;
            nf += d[j].free;
            m->from[d[j].src]++;
        }
        m->devices += nd;
        m->free += nf;
        m->nodes++;
        m->free_nodes += nf > 0;
        m->nodes_by_free[nf < DC_AVAILABILITY_NODE_MAX ? nf : DC_AVAILABILITY_NODE_MAX]++;
        if (nf == nd) {
            m->whole_free_nodes++;
            m->whole_node_free += nd;
        }
        if (m->n_clusters == 0 || strcmp(m->clusters[m->n_clusters - 1].name, d[i].cluster) != 0) {
            m->clusters[m->n_clusters].name = dup_str(d[i].cluster, &oom);
            if (oom)
                return false;
            m->n_clusters++;
        }
        struct svc_fleet_cluster *c = &m->clusters[m->n_clusters - 1];
        c->devices += nd;
        c->free += nf;
        c->nodes++;
        i = j;
    }
    return true;
}

/* Count the sorted devices into the snapshot's models and unmapped names. */
static bool count_all(const dc_ruleset *rs, const struct dev *d, size_t n,
                      struct svc_fleet_snapshot *snap)
{
    /* Models are catalog ids: no more than the catalog holds. */
    size_t n_acc = dc_ruleset_accelerator_count(rs);
    snap->models = calloc(n_acc > 0 ? n_acc : 1, sizeof(*snap->models));
    snap->unmapped = calloc(SVC_FLEET_UNMAPPED_MAX, sizeof(*snap->unmapped));
    if (snap->models == NULL || snap->unmapped == NULL)
        return false;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && (d[j].id != NULL) == (d[i].id != NULL) &&
               strcmp(d[j].id != NULL ? d[j].id : d[j].name,
                      d[i].id != NULL ? d[i].id : d[i].name) == 0)
            j++;
        if (d[i].id != NULL) {
            if (!count_model(rs, d, i, j, &snap->models[snap->n_models++]))
                return false;
        } else if (snap->n_unmapped == SVC_FLEET_UNMAPPED_MAX) {
            snap->unmapped_dropped++;
        } else {
            bool oom = false;
            struct svc_fleet_unmapped *u = &snap->unmapped[snap->n_unmapped++];
            *u = (struct svc_fleet_unmapped){dup_str(d[i].name, &oom), d[i].src, (unsigned)(j - i)};
            if (oom)
                return false;
        }
        i = j;
    }
    return true;
}

/* ---- library-wide functions below ---- */

void svc_fleet_snapshot_release(const struct svc_fleet_snapshot *cs)
{
    struct svc_fleet_snapshot *s = (struct svc_fleet_snapshot *)(uintptr_t)cs;
    if (s == NULL || atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    for (size_t i = 0; s->models != NULL && i < s->n_models; i++) {
        free(s->models[i].id);
        free(s->models[i].name);
        free(s->models[i].vendor);
        for (size_t c = 0; c < s->models[i].n_clusters; c++)
            free(s->models[i].clusters[c].name);
        free(s->models[i].clusters);
    }
    for (size_t i = 0; s->unmapped != NULL && i < s->n_unmapped; i++)
        free(s->unmapped[i].name);
    free(s->models);
    free(s->unmapped);
    free(s);
}

const struct svc_fleet_snapshot *svc_fleet_snapshot_retain(const struct svc_fleet_snapshot *cs)
{
    struct svc_fleet_snapshot *s = (struct svc_fleet_snapshot *)(uintptr_t)cs;
    if (s != NULL)
        atomic_fetch_add(&s->refs, 1);
    return cs;
}

double svc_fleet_snapshot_age_seconds(const struct svc_fleet_snapshot *s)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double age = (double)(now.tv_sec - s->finished_mono.tv_sec) +
                 (double)(now.tv_nsec - s->finished_mono.tv_nsec) / 1e9;
    return age > 0 ? age : 0;
}

struct svc_fleet_snapshot *svc_fleet_snapshot_build(const dc_ruleset *rs,
                                                    const struct svc_fleet_vector *agent,
                                                    const struct svc_fleet_vector *dcgm)
{
    struct svc_fleet_snapshot *snap = calloc(1, sizeof(*snap));
    size_t n_all = agent->n + dcgm->n;
    struct dev *devs = calloc(n_all > 0 ? n_all : 1, sizeof(*devs));
    const struct svc_fleet_series **order = calloc(dcgm->n > 0 ? dcgm->n : 1, sizeof(*order));
    bool ok = snap != NULL && devs != NULL && order != NULL;
    if (ok) {
        atomic_init(&snap->refs, 1);
        clock_gettime(CLOCK_REALTIME, &snap->taken_at);
        snprintf(snap->rules_version, sizeof(snap->rules_version), "%s", dc_ruleset_version(rs));
        struct svc_fleet_source_count *ca = &snap->sources[SVC_FLEET_AGENT];
        struct svc_fleet_source_count *cd = &snap->sources[SVC_FLEET_DCGM];
        ca->series = agent->n + agent->dropped;
        ca->dropped = agent->dropped;
        cd->series = dcgm->n + dcgm->dropped;
        cd->dropped = dcgm->dropped;
        size_t na = agent_devices(rs, agent, devs, ca);
        size_t nd = dcgm_devices(rs, dcgm, order, devs + na, cd);
        size_t n = drop_duplicates(devs, na, na + nd, cd);
        ca->devices = na;
        cd->devices = n - na;
        qsort(devs, n, sizeof(*devs), cmp_dev);
        ok = count_all(rs, devs, n, snap);
        clock_gettime(CLOCK_MONOTONIC, &snap->finished_mono);
    }
    free(devs);
    free(order);
    if (!ok && snap != NULL) {
        atomic_init(&snap->refs, 1);
        svc_fleet_snapshot_release(snap);
        snap = NULL;
    }
    return snap;
}

enum dc_status svc_fleet_availability(const struct svc_fleet_snapshot *s, const dc_ruleset *rs,
                                      struct dc_availability **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (s == NULL || s->n_models == 0)
        return DC_OK;
    struct dc_availability *av = calloc(s->n_models, sizeof(*av));
    if (av == NULL)
        return DC_ENOMEM;
    for (size_t i = 0; i < s->n_models; i++) {
        const struct svc_fleet_model *m = &s->models[i];
        const struct dc_accelerator *a = dc_ruleset_find_accelerator(rs, m->id);
        if (a == NULL) /* a reload dropped it since the snapshot was taken */
            continue;
        struct dc_availability *e = &av[(*n)++];
        e->accelerator_id = a->id;
        e->attached = m->devices;
        e->free = m->free;
        e->memory_free_gb = NAN;
        memcpy(e->nodes_by_free, m->nodes_by_free, sizeof(e->nodes_by_free));
        e->whole_node_free = m->whole_node_free;
    }
    *out = av;
    return DC_OK;
}
