/* fuzz/fuzz_fleet.c -- a Prometheus answer as the fleet reads it, end to end
 * without HTTP: svc_fleet_parse (service/src/fleet_parse.c), the snapshot of
 * both sources (fleet_model.c) with the embedded catalog, its availability for
 * the core, and the body of GET /v1/fleet (fleet_json.c).
 *
 * Input: the answer's bytes. A hash of them picks the cluster label ("" or
 * "cluster"), the series limit (a few, or plenty) and which source the answer
 * stands for (the agents', dcgm-exporter's, or both at once, so a node's
 * devices meet themselves and the agent's must win).
 *
 * Invariants (each aborts when broken):
 *  - the parse returns one of the documented kinds; a refusal leaves nothing
 *    (no tree, no series) and a reason that is valid UTF-8 within its buffer;
 *  - an answer the parser accepts reads the same to an independent reference
 *    (cJSON's tree and the documented rules): the same elements, kept or dropped
 *    alike (a native histogram, an over-long label, a sample that is not a whole
 *    finite number dropped), the kept ones with the same labels, unescaped, and
 *    the same values, in order, within the series limit;
 *  - the snapshot's counts agree: per accelerator free <= devices, nodes within
 *    devices, free_nodes <= nodes, the per-node counts sum to the nodes and
 *    account for the free devices, whole free nodes among the free ones, the
 *    clusters and the sources each sum to the devices; no source counts more
 *    devices than it had series; the unmapped list is within its cap;
 *  - the availability has one entry per accelerator, each a catalog id with
 *    the snapshot's counts;
 *  - the body, as a client reads it, conforms to the contract's Fleet schema. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "fuzz_common.h"
#include "dc/utf8.h"

static bool valid_utf8(const char *s)
{
    uint32_t cp;
    for (size_t i = 0; s[i] != '\0';) {
        size_t k = dc_utf8_seq((const unsigned char *)s + i, SIZE_MAX, &cp);
        if (k == 0)
            return false;
        i += k;
    }
    return true;
}

/* The label names the fleet reads, by enum svc_fleet_label, written out again
 * here from fleet.h's list (the cluster label is the configured one). */
static const char *label_name(int k, const char *cluster)
{
    static const char *const names[SVC_FL_COUNT] = {"__name__", NULL,         "node",      "device",
                                                    "model",    "vendor",     "Hostname",  "UUID",
                                                    "gpu",      "pci_bus_id", "modelName", "pod"};
    return k == SVC_FL_CLUSTER ? cluster : names[k];
}

/* The reference reading of an answer the parser accepted: cJSON's tree, each
 * element kept when it has a "value" (a native histogram has none), every label
 * the fleet reads within SVC_FLEET_LABEL_MAX bytes and a sample that is a whole
 * finite number; the kept series must be the parser's, label by label, in order.
 * Returns the elements seen. */
static size_t check_against_reference(const char *body, size_t len,
                                      const struct svc_fleet_vector *v, const char *cluster)
{
    cJSON *root = cJSON_ParseWithLength(body, len);
    FUZZ_CHECK(root != NULL, "cJSON cannot read an answer the parser accepted");
    const cJSON *result =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "data"), "result");
    size_t elements = 0, kept = 0;
    const cJSON *e = NULL;
    cJSON_ArrayForEach(e, result)
    {
        elements++;
        const cJSON *metric = cJSON_GetObjectItemCaseSensitive(e, "metric");
        const cJSON *value = cJSON_GetObjectItemCaseSensitive(e, "value");
        const char *labels[SVC_FL_COUNT] = {NULL};
        bool keep = value != NULL;
        for (int k = 0; k < SVC_FL_COUNT; k++) {
            const char *name = label_name(k, cluster);
            const cJSON *l = name != NULL && name[0] != '\0'
                                 ? cJSON_GetObjectItemCaseSensitive(metric, name)
                                 : NULL;
            labels[k] = cJSON_IsString(l) ? l->valuestring : NULL;
            keep = keep && (labels[k] == NULL || strlen(labels[k]) <= SVC_FLEET_LABEL_MAX);
        }
        const cJSON *sample = cJSON_GetArrayItem(value, 1);
        char *end = NULL;
        double x = cJSON_IsString(sample) ? strtod(sample->valuestring, &end) : NAN;
        keep = keep && end != sample->valuestring && *end == '\0' && isfinite(x);
        if (!keep)
            continue;
        FUZZ_CHECK(kept < v->n, "the reference keeps more than %zu series", v->n);
        const struct svc_fleet_series *s = &v->series[kept++];
        FUZZ_CHECK(s->value == x, "series %zu: value %g, the reference %g", kept - 1, s->value, x);
        for (int k = 0; k < SVC_FL_COUNT; k++)
            FUZZ_CHECK((s->label[k] == NULL) == (labels[k] == NULL) &&
                           (labels[k] == NULL || strcmp(s->label[k], labels[k]) == 0),
                       "series %zu: label %s is \"%s\", the reference \"%s\"", kept - 1,
                       label_name(k, cluster), s->label[k] != NULL ? s->label[k] : "(none)",
                       labels[k] != NULL ? labels[k] : "(none)");
    }
    FUZZ_CHECK(kept == v->n, "the parser kept %zu series, the reference %zu", v->n, kept);
    cJSON_Delete(root);
    return elements;
}

static void check_model(const struct svc_fleet_model *m)
{
    const dc_ruleset *rs = fuzz_embedded_ruleset();
    FUZZ_CHECK(dc_ruleset_find_accelerator(rs, m->id) != NULL, "%s: not a catalog id", m->id);
    FUZZ_CHECK(m->free <= m->devices && m->nodes <= m->devices && m->nodes >= 1,
               "%s: %u free, %u nodes of %u devices", m->id, m->free, m->nodes, m->devices);
    FUZZ_CHECK(m->free_nodes <= m->nodes && m->whole_free_nodes <= m->nodes,
               "%s: %u free nodes, %u whole, of %u", m->id, m->free_nodes, m->whole_free_nodes,
               m->nodes);
    FUZZ_CHECK(m->whole_node_free <= m->free, "%s: %u on whole free nodes, %u free", m->id,
               m->whole_node_free, m->free);
    unsigned nodes = 0, counted = 0, devices = 0, free = 0;
    for (unsigned k = 0; k <= DC_AVAILABILITY_NODE_MAX; k++) {
        nodes += m->nodes_by_free[k];
        counted += k * m->nodes_by_free[k];
    }
    FUZZ_CHECK(nodes == m->nodes, "%s: per-node counts sum to %u nodes, not %u", m->id, nodes,
               m->nodes);
    FUZZ_CHECK(counted <= m->free && nodes - m->nodes_by_free[0] == m->free_nodes,
               "%s: per-node counts (%u free) disagree with %u free on %u nodes", m->id, counted,
               m->free, m->free_nodes);
    for (size_t c = 0; c < m->n_clusters; c++) {
        devices += m->clusters[c].devices;
        free += m->clusters[c].free;
        FUZZ_CHECK(c == 0 || strcmp(m->clusters[c - 1].name, m->clusters[c].name) < 0,
                   "%s: clusters not sorted and distinct", m->id);
    }
    FUZZ_CHECK(devices == m->devices && free == m->free, "%s: clusters sum to %u/%u, not %u/%u",
               m->id, free, devices, m->free, m->devices);
    FUZZ_CHECK(m->from[SVC_FLEET_AGENT] + m->from[SVC_FLEET_DCGM] == m->devices,
               "%s: sources sum to %u, not %u", m->id,
               m->from[SVC_FLEET_AGENT] + m->from[SVC_FLEET_DCGM], m->devices);
}

static void check_snapshot(const struct svc_fleet_snapshot *s, const struct svc_fleet_vector *a,
                           const struct svc_fleet_vector *d)
{
    FUZZ_CHECK(s->sources[SVC_FLEET_AGENT].devices <= a->n &&
                   s->sources[SVC_FLEET_DCGM].devices <= d->n,
               "more devices than series");
    FUZZ_CHECK(s->n_unmapped <= SVC_FLEET_UNMAPPED_MAX, "%zu unmapped names", s->n_unmapped);
    size_t devices = 0;
    for (size_t i = 0; i < s->n_models; i++) {
        check_model(&s->models[i]);
        FUZZ_CHECK(i == 0 || strcmp(s->models[i - 1].id, s->models[i].id) < 0,
                   "models not sorted and distinct");
        devices += s->models[i].devices;
    }
    for (size_t i = 0; i < s->n_unmapped; i++)
        devices += s->unmapped[i].devices;
    FUZZ_CHECK(devices <= s->sources[SVC_FLEET_AGENT].devices + s->sources[SVC_FLEET_DCGM].devices,
               "%zu devices counted, more than the sources gave", devices);
    struct dc_availability *av = NULL;
    size_t n = 0;
    enum dc_status rc = svc_fleet_availability(s, fuzz_embedded_ruleset(), &av, &n);
    FUZZ_CHECK(rc == DC_OK && n == s->n_models, "availability: %s, %zu of %zu", dc_status_name(rc),
               n, s->n_models);
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(strcmp(av[i].accelerator_id, s->models[i].id) == 0 &&
                       av[i].attached == s->models[i].devices && av[i].free == s->models[i].free,
                   "availability %zu disagrees with the snapshot", i);
    free(av);
    struct svc_fleet_view v = {.url = "http://127.0.0.1:9090",
                               .cluster_label = "cluster",
                               .interval_seconds = 15,
                               .stale_after_seconds = 120,
                               .last_error = "",
                               .request_id = "fuzz"};
    cJSON *body = svc_fleet_to_json(s, &v);
    FUZZ_CHECK(body != NULL, "GET /v1/fleet body: out of memory");
    fuzz_expect_conforms(fuzz_contract_schema("Fleet"), "the fleet", body);
    cJSON_Delete(body);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    (void)fuzz_embedded_ruleset();
    (void)fuzz_contract_schema("Fleet");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *body = fuzz_strndup(data, size);
    uint64_t h = fuzz_hash(data, size);
    const char *cluster = (h & 1u) != 0 ? "cluster" : "";
    size_t max_series = (h & 2u) != 0 ? 4 : 100000;
    int as = (int)((h >> 2) % 3); /* 0: agents, 1: dcgm-exporter, 2: both */
    struct svc_fleet_vector v, empty = {0};
    char why[96];
    why[0] = '\0';
    enum svc_fleet_error rc =
        svc_fleet_parse(body, size, cluster, max_series, &v, why, sizeof(why));
    FUZZ_CHECK(rc == SVC_FLEET_OK || rc == SVC_FLEET_E_MALFORMED || rc == SVC_FLEET_E_QUERY ||
                   rc == SVC_FLEET_E_SERIES,
               "parse gave %s", svc_fleet_error_name(rc));
    if (rc != SVC_FLEET_OK) {
        FUZZ_CHECK(v.text == NULL && v.series == NULL && v.n == 0, "a refusal (%s) left a result",
                   svc_fleet_error_name(rc));
        FUZZ_CHECK(why[0] != '\0' && strlen(why) < sizeof(why) && valid_utf8(why),
                   "a refusal (%s) with the reason \"%s\"", svc_fleet_error_name(rc), why);
        free(body);
        return 0;
    }
    size_t elements = check_against_reference(body, size, &v, cluster);
    FUZZ_CHECK(elements == v.n + v.dropped && elements <= max_series,
               "%zu kept + %zu dropped, %zu elements (limit %zu)", v.n, v.dropped, elements,
               max_series);
    const struct svc_fleet_vector *a = as != 1 ? &v : &empty, *d = as != 0 ? &v : &empty;
    struct svc_fleet_snapshot *s = svc_fleet_snapshot_build(fuzz_embedded_ruleset(), a, d);
    FUZZ_CHECK(s != NULL, "snapshot: out of memory");
    check_snapshot(s, a, d);
    svc_fleet_snapshot_release(s);
    svc_fleet_vector_free(&v);
    free(body);
    return 0;
}
