/* service/src/fleet_json.c -- the body of GET /v1/fleet (openapi.yaml: Fleet):
 * per catalog accelerator the devices seen, how many are free, on how many
 * nodes (and how many of them wholly free), per cluster; the names no catalog
 * id matched; what each source gave; the snapshot's time, age and staleness.
 * Owner: the fleet availability work (issue 19). */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "fleet.h"

/* Builder state: the first failed allocation sets oom; later calls do nothing. */
struct jb {
    bool oom;
};

static cJSON *add(struct jb *b, cJSON *parent, const char *key, cJSON *item)
{
    if (item == NULL || b->oom ||
        (key != NULL ? !cJSON_AddItemToObject(parent, key, item)
                     : !cJSON_AddItemToArray(parent, item))) {
        cJSON_Delete(item);
        b->oom = true;
        return NULL;
    }
    return item;
}

static void num(struct jb *b, cJSON *o, const char *key, double v)
{
    add(b, o, key, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

static void str(struct jb *b, cJSON *o, const char *key, const char *v)
{
    add(b, o, key, v != NULL ? cJSON_CreateString(v) : cJSON_CreateNull());
}

static void model_json(struct jb *b, cJSON *arr, const struct svc_fleet_model *m)
{
    cJSON *o = add(b, arr, NULL, cJSON_CreateObject());
    if (o == NULL)
        return;
    char summary[192];
    snprintf(summary, sizeof(summary), "%u of %u %s free on %u node%s", m->free, m->devices,
             m->name, m->free_nodes, m->free_nodes == 1 ? "" : "s");
    str(b, o, "accelerator", m->id);
    str(b, o, "vendor", m->vendor);
    num(b, o, "devices", m->devices);
    num(b, o, "free", m->free);
    num(b, o, "nodes", m->nodes);
    num(b, o, "free_nodes", m->free_nodes);
    num(b, o, "whole_free_nodes", m->whole_free_nodes);
    str(b, o, "summary", summary);
    cJSON *from = add(b, o, "devices_by_source", cJSON_CreateObject());
    for (int s = 0; s < SVC_FLEET_SOURCE_COUNT && from != NULL; s++)
        num(b, from, svc_fleet_source_name((enum svc_fleet_source)s), m->from[s]);
    cJSON *cl = add(b, o, "clusters", cJSON_CreateArray());
    for (size_t i = 0; i < m->n_clusters && cl != NULL; i++) {
        const struct svc_fleet_cluster *c = &m->clusters[i];
        cJSON *co = add(b, cl, NULL, cJSON_CreateObject());
        if (co == NULL)
            break;
        str(b, co, "cluster", c->name[0] != '\0' ? c->name : NULL);
        num(b, co, "devices", c->devices);
        num(b, co, "free", c->free);
        num(b, co, "nodes", c->nodes);
    }
}

static void sources_json(struct jb *b, cJSON *o, const struct svc_fleet_snapshot *s,
                         const struct svc_fleet_view *v)
{
    cJSON *arr = add(b, o, "sources", cJSON_CreateArray());
    for (int i = 0; i < SVC_FLEET_SOURCE_COUNT && arr != NULL; i++) {
        const struct svc_fleet_source_count *c = &s->sources[i];
        char q[512];
        cJSON *so = add(b, arr, NULL, cJSON_CreateObject());
        if (so == NULL)
            break;
        str(b, so, "name", svc_fleet_source_name((enum svc_fleet_source)i));
        str(b, so, "query",
            svc_fleet_promql((enum svc_fleet_source)i, v->cluster_label, q, sizeof(q)));
        num(b, so, "series", (double)c->series);
        num(b, so, "dropped", (double)c->dropped);
        num(b, so, "devices", (double)c->devices);
        num(b, so, "duplicates", (double)c->duplicates);
        str(b, so, "last_error",
            v->last_errors[i] != SVC_FLEET_OK ? svc_fleet_error_name(v->last_errors[i]) : NULL);
    }
}

cJSON *svc_fleet_to_json(const struct svc_fleet_snapshot *s, const struct svc_fleet_view *v)
{
    struct jb b = {false};
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    char when[40];
    struct tm tm;
    gmtime_r(&s->taken_at.tv_sec, &tm);
    size_t n = strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(when + n, sizeof(when) - n, ".%03ldZ", s->taken_at.tv_nsec / 1000000L);
    double age = svc_fleet_snapshot_age_seconds(s);
    str(&b, o, "prometheus", v->url);
    str(&b, o, "taken_at", when);
    num(&b, o, "age_seconds", round(age * 1000.0) / 1000.0);
    add(&b, o, "stale", cJSON_CreateBool(age > v->stale_after_seconds));
    add(&b, o, "warming", cJSON_CreateBool(s->warming));
    num(&b, o, "stale_after_seconds", v->stale_after_seconds);
    num(&b, o, "interval_seconds", v->interval_seconds);
    str(&b, o, "rules_version", s->rules_version);
    str(&b, o, "cluster_label", v->cluster_label[0] != '\0' ? v->cluster_label : NULL);
    cJSON *accs = add(&b, o, "accelerators", cJSON_CreateArray());
    for (size_t i = 0; i < s->n_models && accs != NULL; i++)
        model_json(&b, accs, &s->models[i]);
    cJSON *un = add(&b, o, "unmapped", cJSON_CreateArray());
    for (size_t i = 0; i < s->n_unmapped && un != NULL; i++) {
        cJSON *u = add(&b, un, NULL, cJSON_CreateObject());
        if (u == NULL)
            break;
        str(&b, u, "name", s->unmapped[i].name);
        str(&b, u, "source", svc_fleet_source_name(s->unmapped[i].source));
        num(&b, u, "devices", s->unmapped[i].devices);
    }
    num(&b, o, "unmapped_dropped", (double)s->unmapped_dropped);
    sources_json(&b, o, s, v);
    cJSON *r = add(&b, o, "refresh", cJSON_CreateObject());
    if (r != NULL) {
        num(&b, r, "refreshes", (double)v->refreshes);
        num(&b, r, "failures", (double)v->failures);
        str(&b, r, "last_error", v->last_error[0] != '\0' ? v->last_error : NULL);
    }
    str(&b, o, "request_id", v->request_id);
    if (b.oom) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}
