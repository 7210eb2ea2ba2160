/* tests/unit/service/test_fleet_model.c -- service/src/fleet_model.c and
 * fleet_json.c: dcgm-exporter's model names to catalog ids, one device once (an
 * agent over dcgm-exporter on its node), free by the documented limits, counts
 * per accelerator, node and cluster, the unmapped names, the snapshot as the
 * core's availability and as the body of GET /v1/fleet.
 * Owner: the fleet availability work (issue 19). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "default_rules.h"
#include "fleet.h"

static dc_ruleset *rs;

#define MAX_SERIES 64

/* Series built by hand (the parser's views, here string literals). */
struct vec {
    struct svc_fleet_series s[MAX_SERIES];
    struct svc_fleet_vector v;
};

static void vec_init(struct vec *x)
{
    memset(x, 0, sizeof(*x));
    x->v.series = x->s;
}

static void agent(struct vec *x, const char *cluster, const char *node, const char *device,
                  const char *model, double free)
{
    struct svc_fleet_series *s = &x->s[x->v.n++];
    memset(s, 0, sizeof(*s));
    s->label[SVC_FL_CLUSTER] = cluster;
    s->label[SVC_FL_NODE] = node;
    s->label[SVC_FL_DEVICE] = device;
    s->label[SVC_FL_MODEL] = model;
    s->label[SVC_FL_VENDOR] = "nvidia";
    s->value = free;
}

static void field(struct vec *x, const char *cluster, const char *host, const char *uuid,
                  const char *model, const char *name, double value, const char *pod)
{
    struct svc_fleet_series *s = &x->s[x->v.n++];
    memset(s, 0, sizeof(*s));
    s->label[SVC_FL_NAME] = name;
    s->label[SVC_FL_CLUSTER] = cluster;
    s->label[SVC_FL_HOSTNAME] = host;
    s->label[SVC_FL_UUID] = uuid;
    s->label[SVC_FL_MODEL_NAME] = model;
    s->label[SVC_FL_POD] = pod;
    s->value = value;
}

/* One dcgm-exporter GPU: its three fields (a negative figure is left out). */
static void gpu(struct vec *x, const char *cluster, const char *host, const char *uuid,
                const char *model, double util, double used, double free, const char *pod)
{
    if (util >= 0)
        field(x, cluster, host, uuid, model, "DCGM_FI_DEV_GPU_UTIL", util, pod);
    if (used >= 0)
        field(x, cluster, host, uuid, model, "DCGM_FI_DEV_FB_USED", used, pod);
    if (free >= 0)
        field(x, cluster, host, uuid, model, "DCGM_FI_DEV_FB_FREE", free, pod);
}

static const struct svc_fleet_model *model(const struct svc_fleet_snapshot *s, const char *id)
{
    for (size_t i = 0; i < s->n_models; i++) {
        if (strcmp(s->models[i].id, id) == 0)
            return &s->models[i];
    }
    return NULL;
}

static int setup(void **state)
{
    return test_default_rules_setup(&rs, state);
}

static void test_model_names(void **state)
{
    (void)state;
    static const struct {
        const char *name, *id;
    } cases[] = {
        {"NVIDIA H100 80GB HBM3", "h100"},
        {"NVIDIA H100 PCIe", "h100"},
        {"NVIDIA H100 NVL", "h100"},
        {"nvidia h100 80gb hbm3", "h100"},
        {"NVIDIA A100-SXM4-80GB", "a100"},
        {"NVIDIA A100 80GB PCIe", "a100"},
        {"NVIDIA A100-SXM4-40GB", NULL}, /* the catalog's A100 is the 80 GB part */
        {"NVIDIA H200", "h200"},
        {"NVIDIA H200 141GB HBM3e", "h200"},
        {"NVIDIA B200", "b200"},
        {"NVIDIA L4", "l4"},
        {"Tesla T4", "t4"},
        {"NVIDIA L40S", "l40s"},
        {"NVIDIA GH200 480GB", NULL},
        {"NVIDIA RTX 6000 Ada Generation", NULL},
        {"AMD Instinct MI300X", NULL}, /* dcgm-exporter names NVIDIA parts only */
        {"", NULL},
        {"   ---___", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *got = svc_fleet_map_model_name(rs, cases[i].name);
        if (cases[i].id == NULL ? got != NULL : got == NULL || strcmp(got, cases[i].id) != 0)
            fail_msg("\"%s\": %s, want %s", cases[i].name, got != NULL ? got : "NULL",
                     cases[i].id != NULL ? cases[i].id : "NULL");
    }
    assert_null(svc_fleet_map_model_name(rs, NULL));
    assert_null(svc_fleet_map_model_name(NULL, "NVIDIA H100"));
    /* A name longer than a label may be, and one of many words: still read. */
    char long_name[600];
    memset(long_name, 'x', sizeof(long_name) - 1);
    long_name[sizeof(long_name) - 1] = '\0';
    memcpy(long_name, "NVIDIA H100 ", 12);
    assert_string_equal(svc_fleet_map_model_name(rs, long_name), "h100");
    char words[400] = "";
    for (int i = 0; i < 40; i++)
        strcat(words, "w ");
    strcat(words, "H100");
    assert_null(svc_fleet_map_model_name(rs, words)); /* past the 32 words read */
}

/* Agents: one device per series, counted per node and cluster. */
static void test_agents(void **state)
{
    (void)state;
    static struct vec a, d;
    vec_init(&a);
    vec_init(&d);
    static const char *const dev[8] = {"0000:05:00.0", "0000:06:00.0", "0000:07:00.0",
                                       "0000:08:00.0", "0000:09:00.0", "0000:0a:00.0",
                                       "0000:0b:00.0", "0000:0c:00.0"};
    for (int i = 0; i < 8; i++) {
        agent(&a, "east", "n1", dev[i], "h100", 1);             /* a whole free node */
        agent(&a, "east", "n2", dev[i], "h100", i < 3);         /* 3 free */
        agent(&a, "west", "n1", dev[i], "h100", i < 8 ? 0 : 1); /* same name, other cluster */
    }
    agent(&a, "west", "m1", dev[0], "unknown", 1); /* ids not in the agent's catalog */
    agent(&a, "west", "m1", dev[1], "tpu-v9", 1);  /* nor in ours */
    agent(&a, NULL, NULL, dev[0], "h100", 1);      /* no node: dropped */
    struct svc_fleet_snapshot *s = svc_fleet_snapshot_build(rs, &a.v, &d.v);
    assert_non_null(s);
    assert_int_equal(s->n_models, 1);
    const struct svc_fleet_model *h = model(s, "h100");
    assert_string_equal(h->name, "H100");
    assert_string_equal(h->vendor, "nvidia");
    assert_int_equal(h->devices, 24);
    assert_int_equal(h->free, 11);
    assert_int_equal(h->nodes, 3);
    assert_int_equal(h->free_nodes, 2);
    assert_int_equal(h->whole_free_nodes, 1);
    assert_int_equal(h->whole_node_free, 8);
    assert_int_equal(h->nodes_by_free[8], 1);
    assert_int_equal(h->nodes_by_free[3], 1);
    assert_int_equal(h->nodes_by_free[0], 1);
    assert_int_equal(h->from[SVC_FLEET_AGENT], 24);
    assert_int_equal(h->n_clusters, 2);
    assert_string_equal(h->clusters[0].name, "east");
    assert_int_equal(h->clusters[0].devices, 16);
    assert_int_equal(h->clusters[0].free, 11);
    assert_int_equal(h->clusters[0].nodes, 2);
    assert_string_equal(h->clusters[1].name, "west");
    assert_int_equal(h->clusters[1].free, 0);
    assert_int_equal(s->n_unmapped, 2);
    assert_string_equal(s->unmapped[0].name, "tpu-v9");
    assert_string_equal(s->unmapped[1].name, "unknown");
    assert_int_equal(s->unmapped[1].source, SVC_FLEET_AGENT);
    assert_int_equal(s->sources[SVC_FLEET_AGENT].series, 27);
    assert_int_equal(s->sources[SVC_FLEET_AGENT].dropped, 1);
    assert_int_equal(s->sources[SVC_FLEET_AGENT].devices, 26);
    assert_non_null(svc_fleet_snapshot_retain(s));
    svc_fleet_snapshot_release(s);
    assert_true(svc_fleet_snapshot_age_seconds(s) >= 0);
    svc_fleet_snapshot_release(s);
    svc_fleet_snapshot_release(NULL);
    assert_null(svc_fleet_snapshot_retain(NULL));
}

/* dcgm-exporter: three fields per GPU folded; free by the probe's limits. */
static void test_dcgm(void **state)
{
    (void)state;
    static struct vec a, d;
    vec_init(&a);
    vec_init(&d);
    const char *h100 = "NVIDIA H100 80GB HBM3";
    gpu(&d, "", "g1", "GPU-0", h100, 0, 100, 81000, NULL);  /* free */
    gpu(&d, "", "g1", "GPU-1", h100, 5, 4000, 77000, NULL); /* at both limits: free */
    gpu(&d, "", "g1", "GPU-2", h100, 6, 0, 81000, NULL);    /* busy */
    gpu(&d, "", "g1", "GPU-3", h100, 0, 5000, 76000, NULL); /* memory held */
    gpu(&d, "", "g1", "GPU-4", h100, 0, 0, 81000, "job-7"); /* a pod has it */
    gpu(&d, "", "g1", "GPU-5", h100, -1, 0, 81000, NULL);   /* no utilisation: not known idle */
    gpu(&d, "", "g1", "GPU-6", h100, 0, 3000, -1, NULL);    /* no FB_FREE: the catalog's 80 GiB */
    gpu(&d, "", "g1", "GPU-7", h100, 0, 5000, -1, NULL);    /* 5000 MiB > 5% of 80 GiB */
    gpu(&d, "", "g2", "GPU-0", h100, 0, -1, -1, NULL);      /* no memory figures: free */
    /* A GPU split into MIG instances: one instance busy makes it busy. */
    gpu(&d, "", "g2", "GPU-1", h100, 0, 10, 80000, NULL);
    field(&d, "", "g2", "GPU-1", h100, "DCGM_FI_DEV_GPU_UTIL", 80, NULL);
    /* Without a model name, without a host, without a device key. */
    gpu(&d, "", "g2", "GPU-2", NULL, 0, 0, 81000, NULL);
    field(&d, "", NULL, "GPU-3", h100, "DCGM_FI_DEV_GPU_UTIL", 0, NULL);
    field(&d, "", "g2", NULL, h100, "DCGM_FI_DEV_GPU_UTIL", 0, NULL);
    /* A GPU known by its bus id and index only. */
    struct svc_fleet_series *s = &d.s[d.v.n++];
    memset(s, 0, sizeof(*s));
    s->label[SVC_FL_NAME] = "DCGM_FI_DEV_GPU_UTIL";
    s->label[SVC_FL_HOSTNAME] = "g3";
    s->label[SVC_FL_GPU] = "0";
    s->label[SVC_FL_MODEL_NAME] = "Tesla T4";
    s->value = 1;
    struct svc_fleet_snapshot *snap = svc_fleet_snapshot_build(rs, &a.v, &d.v);
    assert_non_null(snap);
    const struct svc_fleet_model *m = model(snap, "h100");
    assert_int_equal(m->devices, 10);
    assert_int_equal(m->free, 4); /* GPU-0, GPU-1, GPU-6 of g1; GPU-0 of g2 */
    assert_int_equal(m->nodes, 2);
    assert_int_equal(m->from[SVC_FLEET_DCGM], 10);
    assert_int_equal(model(snap, "t4")->free, 1);
    assert_int_equal(snap->n_unmapped, 1);
    assert_string_equal(snap->unmapped[0].name, "(no modelName)");
    assert_int_equal(snap->unmapped[0].source, SVC_FLEET_DCGM);
    assert_int_equal(snap->sources[SVC_FLEET_DCGM].dropped, 2);
    assert_int_equal(snap->sources[SVC_FLEET_DCGM].devices, 12);
    svc_fleet_snapshot_release(snap);
}

/* One agent series repeated 10,000 times is one device (issue 35: it read
 * "10000 of 10000 H100 free on 1 node"); a repeat that says busy makes it busy;
 * the same device label on another node or cluster is another device. */
static void test_repeated_series(void **state)
{
    (void)state;
    enum { REPEATS = 10000 };
    struct svc_fleet_series *many = calloc(REPEATS + 4, sizeof(*many));
    assert_non_null(many);
    for (size_t i = 0; i < REPEATS; i++) {
        many[i].label[SVC_FL_NODE] = "n1";
        many[i].label[SVC_FL_DEVICE] = "0000:05:00.0";
        many[i].label[SVC_FL_MODEL] = "h100";
        many[i].value = 1;
    }
    many[REPEATS] = many[0]; /* another device of n1, reported free then busy */
    many[REPEATS].label[SVC_FL_DEVICE] = "0000:06:00.0";
    many[REPEATS + 1] = many[REPEATS];
    many[REPEATS + 1].value = 0;
    many[REPEATS + 2] = many[0]; /* the same device label on another node */
    many[REPEATS + 2].label[SVC_FL_NODE] = "n2";
    many[REPEATS + 3] = many[0]; /* and in a cluster */
    many[REPEATS + 3].label[SVC_FL_CLUSTER] = "east";
    struct svc_fleet_vector a = {.series = many, .n = REPEATS + 4};
    struct vec d;
    vec_init(&d);
    struct svc_fleet_snapshot *s = svc_fleet_snapshot_build(rs, &a, &d.v);
    assert_non_null(s);
    const struct svc_fleet_model *m = model(s, "h100");
    assert_int_equal(m->devices, 4);
    assert_int_equal(m->free, 3);
    assert_int_equal(m->nodes, 3);
    assert_int_equal(s->sources[SVC_FLEET_AGENT].devices, 4);
    assert_int_equal(s->sources[SVC_FLEET_AGENT].duplicates, REPEATS);
    svc_fleet_snapshot_release(s);
    free(many);
}

/* dcgm-exporter memory figures that cannot be measurements: a negative used or
 * free figure, or a free figure that overflows past the part's memory, made a
 * busy GPU count as free. */
static void test_hostile_memory(void **state)
{
    (void)state;
    static struct vec a, d;
    vec_init(&a);
    vec_init(&d);
    const char *h100 = "NVIDIA H100 80GB HBM3";
    gpu(&d, "", "g1", "GPU-0", h100, 0, 100, 81000, NULL); /* free: the control */
    field(&d, "", "g1", "GPU-1", h100, "DCGM_FI_DEV_GPU_UTIL", 0, NULL);
    field(&d, "", "g1", "GPU-1", h100, "DCGM_FI_DEV_FB_USED", -70000, NULL);
    field(&d, "", "g1", "GPU-1", h100, "DCGM_FI_DEV_FB_FREE", 81000, NULL);
    field(&d, "", "g1", "GPU-2", h100, "DCGM_FI_DEV_GPU_UTIL", 0, NULL);
    field(&d, "", "g1", "GPU-2", h100, "DCGM_FI_DEV_FB_USED", 70000, NULL);
    field(&d, "", "g1", "GPU-2", h100, "DCGM_FI_DEV_FB_FREE", 1.8446744073709552e19, NULL);
    field(&d, "", "g1", "GPU-3", h100, "DCGM_FI_DEV_GPU_UTIL", 0, NULL);
    field(&d, "", "g1", "GPU-3", h100, "DCGM_FI_DEV_FB_USED", 70000, NULL);
    field(&d, "", "g1", "GPU-3", h100, "DCGM_FI_DEV_FB_FREE", -1e308, NULL);
    struct svc_fleet_snapshot *snap = svc_fleet_snapshot_build(rs, &a.v, &d.v);
    assert_non_null(snap);
    const struct svc_fleet_model *m = model(snap, "h100");
    assert_int_equal(m->devices, 4);
    assert_int_equal(m->free, 1);
    svc_fleet_snapshot_release(snap);
}

/* A node its agent reports: dcgm-exporter's devices there are the agent's. */
static void test_duplicates(void **state)
{
    (void)state;
    static struct vec a, d;
    vec_init(&a);
    vec_init(&d);
    agent(&a, "west", "hgx-1", "0000:1b:00.0", "h100", 0);
    agent(&a, "west", "hgx-1", "0000:43:00.0", "h100", 1);
    gpu(&d, "west", "hgx-1", "GPU-0", "NVIDIA H100 80GB HBM3", 0, 0, 81000, NULL);
    gpu(&d, "west", "hgx-1", "GPU-1", "NVIDIA H100 80GB HBM3", 0, 0, 81000, NULL);
    gpu(&d, "east", "hgx-1", "GPU-0", "NVIDIA H100 80GB HBM3", 0, 0, 81000, NULL); /* another */
    struct svc_fleet_snapshot *s = svc_fleet_snapshot_build(rs, &a.v, &d.v);
    assert_non_null(s);
    const struct svc_fleet_model *m = model(s, "h100");
    assert_int_equal(m->devices, 3);
    assert_int_equal(m->free, 2);
    assert_int_equal(m->from[SVC_FLEET_AGENT], 2);
    assert_int_equal(m->from[SVC_FLEET_DCGM], 1);
    assert_int_equal(s->sources[SVC_FLEET_DCGM].duplicates, 2);
    svc_fleet_snapshot_release(s);
}

static void test_unmapped_limit(void **state)
{
    (void)state;
    static struct vec a, d;
    static char names[SVC_FLEET_UNMAPPED_MAX + 5][16];
    vec_init(&a);
    vec_init(&d);
    for (int i = 0; i < SVC_FLEET_UNMAPPED_MAX + 5; i++) {
        snprintf(names[i], sizeof(names[i]), "x%02d", i);
        agent(&a, "", "n", names[i], names[i], 1);
    }
    struct svc_fleet_snapshot *s = svc_fleet_snapshot_build(rs, &a.v, &d.v);
    assert_non_null(s);
    assert_int_equal(s->n_models, 0);
    assert_int_equal(s->n_unmapped, SVC_FLEET_UNMAPPED_MAX);
    assert_int_equal(s->unmapped_dropped, 5);
    struct dc_availability *av = NULL;
    size_t n = 99;
    assert_int_equal(svc_fleet_availability(s, rs, &av, &n), DC_OK);
    assert_null(av);
    assert_int_equal(n, 0);
    svc_fleet_snapshot_release(s);
    assert_int_equal(svc_fleet_availability(NULL, rs, &av, &n), DC_OK);
    assert_null(av);
}

/* The snapshot as the core sees it, and as GET /v1/fleet shows it. */
static void test_availability_and_body(void **state)
{
    (void)state;
    static struct vec a, d;
    vec_init(&a);
    vec_init(&d);
    for (int i = 0; i < 2; i++) {
        static const char *const dev[2] = {"0000:05:00.0", "0000:06:00.0"};
        agent(&a, "east", "n1", dev[i], "h100", 1);
        agent(&a, "east", "n2", dev[i], "h100", i == 0);
        agent(&a, "", "m1", dev[i], "mi300x", 0);
    }
    gpu(&d, "west", "g1", "GPU-9", "NVIDIA A100-SXM4-40GB", 0, 0, 40000, NULL);
    struct svc_fleet_snapshot *s = svc_fleet_snapshot_build(rs, &a.v, &d.v);
    assert_non_null(s);
    struct dc_availability *av = NULL;
    size_t n = 0;
    assert_int_equal(svc_fleet_availability(s, rs, &av, &n), DC_OK);
    assert_int_equal(n, 2);
    const struct dc_availability *h = strcmp(av[0].accelerator_id, "h100") == 0 ? &av[0] : &av[1];
    assert_ptr_equal(h->accelerator_id, dc_ruleset_find_accelerator(rs, "h100")->id);
    assert_int_equal(h->attached, 4);
    assert_int_equal(h->free, 3);
    assert_true(isnan(h->memory_free_gb));
    assert_int_equal(h->nodes_by_free[2], 1);
    assert_int_equal(h->nodes_by_free[1], 1);
    assert_int_equal(h->whole_node_free, 2);
    free(av);

    struct svc_fleet_view v = {.url = "http://prom:9090",
                               .cluster_label = "cluster",
                               .interval_seconds = 15,
                               .stale_after_seconds = 120,
                               .refreshes = 3,
                               .failures = 1,
                               .last_error = "",
                               .last_errors = {SVC_FLEET_OK, SVC_FLEET_E_TIMEOUT},
                               .request_id = "req-1"};
    cJSON *o = svc_fleet_to_json(s, &v);
    assert_non_null(o);
    char *text = cJSON_PrintUnformatted(o);
    assert_non_null(strstr(text, "\"prometheus\":\"http://prom:9090\""));
    assert_non_null(strstr(text, "\"stale\":false"));
    assert_non_null(strstr(text, "\"summary\":\"3 of 4 H100 free on 2 nodes\""));
    assert_non_null(strstr(text, "\"whole_free_nodes\":1"));
    assert_non_null(strstr(text, "\"clusters\":[{\"cluster\":\"east\",\"devices\":4,\"free\":3,"
                                 "\"nodes\":2}]"));
    assert_non_null(strstr(text, "\"summary\":\"0 of 2 MI300X free on 0 nodes\""));
    assert_non_null(strstr(text, "{\"cluster\":null,\"devices\":2,\"free\":0,\"nodes\":1}"));
    assert_non_null(strstr(text, "{\"name\":\"NVIDIA A100-SXM4-40GB\",\"source\":\"dcgm-exporter\","
                                 "\"devices\":1}"));
    assert_non_null(strstr(text, "\"last_error\":\"timeout\""));
    assert_non_null(
        strstr(text, "\"refresh\":{\"refreshes\":3,\"failures\":1,\"last_error\":null}"));
    assert_non_null(strstr(text, "\"request_id\":\"req-1\""));
    cJSON_free(text);
    cJSON_Delete(o);
    v.cluster_label = "";
    v.stale_after_seconds = 0;
    v.last_error = "agent: connect: refused";
    o = svc_fleet_to_json(s, &v);
    text = cJSON_PrintUnformatted(o);
    assert_non_null(strstr(text, "\"cluster_label\":null"));
    assert_non_null(strstr(text, "\"last_error\":\"agent: connect: refused\""));
    cJSON_free(text);
    cJSON_Delete(o);
    svc_fleet_snapshot_release(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_names),
        cmocka_unit_test(test_agents),
        cmocka_unit_test(test_dcgm),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_repeated_series),
        cmocka_unit_test(test_hostile_memory),
        cmocka_unit_test(test_unmapped_limit),
        cmocka_unit_test(test_availability_and_body),
    };
    return cmocka_run_group_tests_name("service.fleet_model", tests, setup,
                                       test_default_rules_teardown);
}
