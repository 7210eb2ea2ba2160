/* tests/unit/core/test_models.c -- core/src/rules/models.c, the model registry: the
 * shipped rules/models.yaml against its sources' figures (the parameters its
 * architecture implies within 2%, every field with a public source, every model
 * sized in the decision table), lookup by name and alias, close names, every
 * loader error with its file:line, and the property that a named model and its
 * spelled-out architecture give the same answer. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/convert.h"
#include "default_rules.h"
#include "dc/engine.h"
#include "dc/models.h"
#include "mini_rules.h"
#include "read_file.h"

static dc_ruleset *shipped;

static int setup(void **state)
{
    (void)state;
    shipped = test_default_rules();
    return shipped != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    dc_ruleset_release(shipped);
    return 0;
}

/* ---- the shipped registry ---------------------------------------------------------- */

/* Every model the issue names is in the registry, and at least 40 in all. */
static void test_registry_names(void **state)
{
    (void)state;
    static const char *const named[] = {
        "llama-3.1-8b",     "llama-3.1-70b", "llama-3.1-405b",   "llama-3.3-70b", "llama-4-scout",
        "llama-4-maverick", "mixtral-8x7b",  "mixtral-8x22b",    "deepseek-v3",   "qwen3-235b-a22b",
        "qwen2.5-7b",       "gemma-3-27b",   "mistral-nemo-12b", "phi-4",         "gpt-oss-120b",
        "whisper-large-v3", "bert-base",     "bge-m3",           "sdxl",          "flux.1-dev",
        "resnet-50",        "vit-l-16",      "dlrm-dcnv2"};
    assert_true(dc_ruleset_model_count(shipped) >= 40);
    for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
        const struct dc_model_info *m = dc_ruleset_find_model(shipped, named[i]);
        if (m == NULL)
            fail_msg("the registry lacks %s", named[i]);
        assert_string_equal(m->name, named[i]);
    }
}

/* Each field of an entry names the public source it was read from. */
static void test_registry_sources(void **state)
{
    (void)state;
    for (size_t i = 0; i < dc_ruleset_model_count(shipped); i++) {
        const struct dc_model_info *m = dc_ruleset_model(shipped, i);
        const cJSON *groups[] = {m->model, m->details};
        for (size_t g = 0; g < 2; g++) {
            const cJSON *f = NULL;
            cJSON_ArrayForEach(f, groups[g])
            {
                if (strcmp(f->string, "architecture") == 0)
                    continue; /* the entry's classification, not a figure */
                const cJSON *src = cJSON_GetObjectItemCaseSensitive(m->sources, f->string);
                if (!cJSON_IsString(src) || strncmp(src->valuestring, "https://", 8) != 0)
                    fail_msg("%s: %s has no public source", m->name, f->string);
            }
        }
    }
}

/* The parameters each architecture implies agree with the published count
 * within 2%, and so do a mixture of experts' active parameters; every
 * transformer of the registry gives enough of its architecture to be counted. */
static void test_registry_parameters(void **state)
{
    (void)state;
    size_t counted = 0;
    for (size_t i = 0; i < dc_ruleset_model_count(shipped); i++) {
        const struct dc_model_info *m = dc_ruleset_model(shipped, i);
        double active = NAN;
        double n = dc_model_architecture_parameters(m, &active);
        double given = cJSON_GetObjectItemCaseSensitive(m->model, "parameters")->valuedouble;
        bool transformer =
            strcmp(m->architecture, "transformer") == 0 || strcmp(m->architecture, "moe") == 0 ||
            strcmp(m->architecture, "encoder") == 0 ||
            strcmp(m->architecture, "encoder-decoder") == 0 || strcmp(m->architecture, "vit") == 0;
        if (transformer && !isfinite(n))
            fail_msg("%s: its architecture does not count its parameters", m->name);
        if (!isfinite(n))
            continue;
        counted++;
        if (fabs(n / given - 1) > DC_MODELS_PARAM_TOLERANCE)
            fail_msg("%s: %.4g counted, %.4g published", m->name, n, given);
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(m->model, "active_parameters");
        if (strcmp(m->architecture, "moe") == 0) {
            assert_non_null(a);
            if (fabs(active / a->valuedouble - 1) > DC_MODELS_PARAM_TOLERANCE)
                fail_msg("%s: %.4g active counted, %.4g published", m->name, active,
                         a->valuedouble);
        }
    }
    assert_true(counted >= 35);
}

/* Every model of the registry is sized by name in the decision table. */
static void test_registry_in_decision_table(void **state)
{
    (void)state;
    char *text = test_read_file(AA_FIXTURES_DIR "/cases.json", 1u << 20);
    assert_non_null(text);
    cJSON *cases = cJSON_Parse(text);
    assert_non_null(cases);
    for (size_t i = 0; i < dc_ruleset_model_count(shipped); i++) {
        const char *name = dc_ruleset_model(shipped, i)->name;
        bool found = false;
        const cJSON *c = NULL;
        cJSON_ArrayForEach(c, cases)
        {
            const cJSON *w = cJSON_GetObjectItem(c, "workload");
            const cJSON *n = cJSON_GetObjectItem(cJSON_GetObjectItem(w, "model"), "name");
            found = found || (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0);
        }
        if (!found)
            fail_msg("no decision-table case sizes %s", name);
    }
    cJSON_Delete(cases);
    free(text);
}

/* ---- lookup ------------------------------------------------------------------------ */

static void test_find_and_suggest(void **state)
{
    (void)state;
    const struct dc_model_info *m = dc_ruleset_find_model(shipped, "META-LLAMA/llama-3.1-70b");
    assert_non_null(m);
    assert_string_equal(m->name, "llama-3.1-70b");
    assert_ptr_equal(dc_ruleset_find_model(shipped, "Llama-3.1-70B"), m);
    assert_null(dc_ruleset_find_model(shipped, "llama-3-70b"));
    assert_null(dc_ruleset_find_model(shipped, NULL));
    const char *close[DC_MODELS_MAX_SUGGEST];
    size_t n = dc_model_suggest(shipped, "llama-3-70b", close, DC_MODELS_MAX_SUGGEST);
    assert_true(n >= 2 && n <= DC_MODELS_MAX_SUGGEST);
    bool has = false;
    for (size_t i = 0; i < n; i++)
        has = has || strcmp(close[i], "llama-3.1-70b") == 0;
    assert_true(has);
    /* Closest first: one edit to llama-2-70b before two to llama-3.1-70b. */
    assert_string_equal(close[0], "llama-2-70b");
    assert_int_equal(dc_model_suggest(shipped, "zzzzzzzzzzzz", close, 5), 0);
    assert_int_equal(dc_model_suggest(shipped, "deepseek-v4", close, 1), 1);
    assert_string_equal(close[0], "deepseek-v3");
    /* A name that begins an entry is close, however many letters it lacks. */
    n = dc_model_suggest(shipped, "BERT", close, DC_MODELS_MAX_SUGGEST);
    assert_true(n >= 1);
    assert_string_equal(close[0], "bert-base");
    assert_int_equal(dc_model_suggest(shipped, "be", close, 5), 0); /* too short to say */
    char longname[DC_MODELS_NAME_MAX + 2];
    memset(longname, 'a', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    assert_int_equal(dc_model_suggest(shipped, longname, close, 5), 0);
    assert_int_equal(dc_model_suggest(shipped, NULL, close, 5), 0);
}

/* The 400 a name the registry does not hold gets: pointer and close names. */
static void test_unknown_name(void **state)
{
    (void)state;
    static const struct {
        const char *json;
        const char *where;
        const char *says;
    } cases[] = {
        {"{\"task\":\"inference\",\"model\":{\"name\":\"llama-3-70b\"}}", "/model/name",
         "close names: llama-2-70b"},
        {"{\"task\":\"inference\",\"model\":{\"name\":\"qqqqqqqqqqqq\"}}", "/model/name",
         "GET /v1/models lists the"},
        {"{\"task\":\"inference\",\"model\":{\"name\":7}}", "/model/name", "a model name is"},
        {"{\"task\":\"inference\",\"model\":{\"name\":\"\"}}", "/model/name", "a model name is"},
        {"{\"task\":\"inference\",\"model\":{}}", "/model/parameters", "model.name"},
        {"{\"task\":\"inference\",\"model\":{\"name\":\"llama-3.1-8b\",\"kv_heads\":64}}",
         "/model/kv_heads", "exceeds attention_heads"},
        {"{\"task\":\"inference\",\"model\":{\"name\":\"llama-3.1-8b\",\"kv_heads\":3}}",
         "/model/kv_heads", "does not divide attention_heads (32)"},
        {"{\"task\":\"inference\",\"model\":{\"name\":\"deepseek-v3\",\"parameters\":1e10}}",
         "/model/active_parameters", "exceeds parameters"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *w = cJSON_Parse(cases[i].json);
        struct dc_result *r = NULL;
        struct dc_error err;
        dc_error_clear(&err);
        assert_int_equal(dc_recommend(shipped, w, NULL, &r, &err), DC_EINVAL);
        assert_null(r);
        assert_string_equal(err.where, cases[i].where);
        if (strstr(err.msg, cases[i].says) == NULL)
            fail_msg("%s: %s", cases[i].json, err.msg);
        cJSON_Delete(w);
    }
    /* A name longer than the limit is refused before any lookup. */
    char big[400];
    snprintf(big, sizeof(big), "{\"task\":\"inference\",\"model\":{\"name\":\"%0200d\"}}", 0);
    cJSON *w = cJSON_Parse(big);
    struct dc_result *r = NULL;
    struct dc_error err;
    assert_int_equal(dc_recommend(shipped, w, NULL, &r, &err), DC_EINVAL);
    assert_string_equal(err.where, "/model/name");
    cJSON_Delete(w);
}

/* ---- named == spelled out ------------------------------------------------------------ */

/* The answer to `workload` as a tree, its echoed model.name removed. */
static cJSON *answer(const cJSON *workload)
{
    struct dc_result *r = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    if (dc_recommend(shipped, workload, NULL, &r, &err) != DC_OK)
        fail_msg("%s: %s", err.where, err.msg);
    cJSON *out = NULL;
    assert_int_equal(api_result_to_json(r, &out), DC_OK);
    dc_result_free(r);
    cJSON *model = cJSON_GetObjectItem(cJSON_GetObjectItem(out, "workload"), "model");
    cJSON_DeleteItemFromObject(model, "name");
    return out;
}

/* A workload of `task` for entry m: by name, or with its model spelled out. */
static cJSON *workload_for(const struct dc_model_info *m, const char *task, bool named,
                           const char *extra_key, double extra)
{
    char text[512];
    bool decoder = strcmp(m->architecture, "transformer") == 0 ||
                   strcmp(m->architecture, "moe") == 0 ||
                   strcmp(m->architecture, "encoder-decoder") == 0;
    if (strcmp(task, "inference") == 0)
        snprintf(text, sizeof(text),
                 "{\"task\":\"inference\",\"inference\":{\"requests_per_second\":3%s}}",
                 decoder ? ",\"input_tokens\":800,\"output_tokens\":200" : "");
    else
        snprintf(text, sizeof(text),
                 "{\"task\":\"%s\",\"training\":{\"samples\":1e6,\"sequence_length\":1024}}", task);
    cJSON *w = cJSON_Parse(text);
    cJSON *model = named ? cJSON_CreateObject() : cJSON_Duplicate(m->model, true);
    if (named)
        cJSON_AddStringToObject(model, "name", m->name);
    if (extra_key != NULL) {
        cJSON_DeleteItemFromObject(model, extra_key);
        cJSON_AddNumberToObject(model, extra_key, extra);
    }
    cJSON_AddItemToObject(w, "model", model);
    return w;
}

/* Property: for every model of the registry and every task, naming it and
 * spelling out its architecture give the same answer, byte for byte but the
 * echoed name; a field given beside the name overrides the entry's. */
static void test_named_equals_spelled(void **state)
{
    (void)state;
    static const char *const tasks[] = {"inference", "training", "fine-tuning"};
    for (size_t i = 0; i < dc_ruleset_model_count(shipped); i++) {
        const struct dc_model_info *m = dc_ruleset_model(shipped, i);
        for (size_t t = 0; t < sizeof(tasks) / sizeof(tasks[0]); t++) {
            cJSON *a = workload_for(m, tasks[t], true, NULL, 0);
            cJSON *b = workload_for(m, tasks[t], false, NULL, 0);
            cJSON *ra = answer(a), *rb = answer(b);
            if (!cJSON_Compare(ra, rb, true))
                fail_msg("%s, %s: named and spelled-out answers differ", m->name, tasks[t]);
            cJSON_Delete(ra);
            cJSON_Delete(rb);
            cJSON_Delete(a);
            cJSON_Delete(b);
        }
        double p = cJSON_GetObjectItemCaseSensitive(m->model, "parameters")->valuedouble;
        const cJSON *active = cJSON_GetObjectItemCaseSensitive(m->model, "active_parameters");
        double over = active != NULL ? active->valuedouble * 1.5 : p * 1.5;
        cJSON *a = workload_for(m, "inference", true, "parameters", over);
        cJSON *b = workload_for(m, "inference", false, "parameters", over);
        cJSON *ra = answer(a), *rb = answer(b);
        assert_true(cJSON_Compare(ra, rb, true));
        cJSON *echoed = cJSON_GetObjectItem(cJSON_GetObjectItem(ra, "workload"), "model");
        assert_true(cJSON_GetObjectItem(echoed, "parameters")->valuedouble == over);
        cJSON_Delete(ra);
        cJSON_Delete(rb);
        cJSON_Delete(a);
        cJSON_Delete(b);
    }
}

/* ---- the loader ---------------------------------------------------------------------- */

/* The mini rule set with `models` as models.yaml: the status and the first
 * problem (file:line: id: message) in *first. */
static enum dc_status load_models(const char *models, char *first, size_t len, size_t *problems)
{
    struct dc_source_file files[5] = {
        {"rules.yaml", rules_ok, strlen(rules_ok)},
        {"catalog.yaml", catalog_ok, strlen(catalog_ok)},
        {"sizing.yaml", sizing_ok, strlen(sizing_ok)},
        {"prices.yaml", prices_ok, strlen(prices_ok)},
        {"models.yaml", models, strlen(models)},
    };
    dc_ruleset *rs = NULL;
    struct dc_diags d;
    dc_diags_init(&d);
    enum dc_status rc = dc_ruleset_load_files(files, 5, &rs, &d);
    first[0] = '\0';
    if (d.count > 0)
        dc_diag_format(&d.items[0], first, len);
    if (problems != NULL)
        *problems = d.count;
    dc_diags_cleanup(&d);
    dc_ruleset_release(rs);
    return rc;
}

#define ENTRY(params, extra)                                                                       \
    "models:\n"                                                                                    \
    "  - name: tiny-lm\n"                                                                          \
    "    title: Tiny LM\n"                                                                         \
    "    architecture: transformer\n"                                                              \
    "    aliases: [org/Tiny-LM]\n"                                                                 \
    "    facts:\n"                                                                                 \
    "      - source: https://example.com/config.json\n"                                            \
    "        layers: 2\n"                                                                          \
    "        hidden_size: 1000\n"                                                                  \
    "        attention_heads: 10\n"                                                                \
    "        intermediate_size: 4000\n"                                                            \
    "        vocab_size: 1000\n"                                                                   \
    "      - source: https://example.com/card\n"                                                   \
    "        parameters: " params "\n" extra

/* A good entry loads; each mistake is reported where it is. */
static void test_loader_errors(void **state)
{
    (void)state;
    char first[600];
    size_t n = 0;
    /* Two layers of 4 x 1e6 attention and 3 x 4e6 FFN weights and two 1e6
     * embedding tables: 3.4e7, 6% over a published 3.2e7. */
    static const struct {
        const char *yaml;
        const char *says;
    } bad[] = {
        {ENTRY("3.2e7", ""),
         "models.yaml:2: tiny-lm: parameters 3.2e+07 disagree with the 3.4e+07"},
        {ENTRY("3.4e7", "        foo: 1\n"),
         "models.yaml:15: tiny-lm: unknown field \"foo\" in facts"},
        {ENTRY("3.4e7", "        layers: 3\n"),
         "models.yaml:15: tiny-lm: field \"layers\" is given twice"},
        {ENTRY("3.4e7", "        kv_heads: 20\n"),
         "/model/kv_heads: kv_heads (20) exceeds attention_heads"},
        {ENTRY("3.4e7", "        dense_layers: -1\n"),
         "\"dense_layers\" must be an integer from 0 to 1e7"},
        {ENTRY("3.4e7", "        tied_embeddings: 1\n"),
         "\"tied_embeddings\" must be true or false"},
        {ENTRY("3.4e7", "  - name: tiny-lm\n    title: again\n    architecture: cnn\n    facts:\n"
                        "      - {source: https://example.com/x, parameters: 5}\n"),
         "tiny-lm: a model of this name is listed before"},
        {ENTRY("3.4e7", "  - name: other\n    title: other\n    architecture: cnn\n    aliases: "
                        "[ORG/tiny-lm]\n"
                        "    facts:\n      - {source: https://example.com/x, parameters: 5}\n"),
         "alias \"ORG/tiny-lm\" already names a model"},
        {ENTRY("3.4e7",
               "  - name: other\n    title: other\n    architecture: cnn\n    aliases: [x, X]\n"
               "    facts:\n      - {source: https://example.com/x, parameters: 5}\n"),
         "alias \"X\" already names a model"},
        {"models:\n  - name: a\n    title: A\n    architecture: cnn\n    facts:\n"
         "      - {source: not-a-url, parameters: 5}\n",
         "\"source\" must be a public http(s) URL"},
        {"models:\n  - name: a\n    title: A\n    architecture: cnn\n    facts:\n"
         "      - {source: https://example.com/x, layers: 2}\n",
         "models.yaml:2: a: no facts group gives \"parameters\""},
        {"models:\n  - name: a\n    title: A\n    architecture: spaceship\n    facts:\n"
         "      - {source: https://example.com/x, parameters: 5}\n",
         "/model/architecture: unknown value for architecture"},
        {"models:\n  - name: a\n    title: A\n    architecture: cnn\n    facts: [7]\n",
         "each of facts must be a mapping"},
        {"models:\n  - name: Bad Name\n    title: A\n    architecture: cnn\n    facts: []\n",
         "name must be 1-32 characters"},
        {"models:\n  - name: a\n    title: A\n    architecture: cnn\n    colour: red\n    facts:\n"
         "      - {source: https://example.com/x, parameters: 5}\n",
         "unknown key \"colour\" in a model"},
        {"models:\n  - name: a\n    title: A\n    architecture: cnn\n    aliases: [b1, b2, b3, b4, "
         "b5, b6, b7, b8, b9]\n    facts:\n      - {source: https://example.com/x, parameters: "
         "5}\n",
         "more than 8 aliases"},
        {"models: 7\n", "\"models\" must be a list"},
        {"- 1\n", "models.yaml must be a mapping"},
        {"models: []\nextra: 1\n", "unknown key \"extra\" in models.yaml"},
        {"models: [3]\n", "each model must be a mapping"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(load_models(bad[i].yaml, first, sizeof(first), &n), DC_EVALIDATE);
        if (strstr(first, bad[i].says) == NULL)
            fail_msg("case %zu: got \"%s\", want \"%s\"", i, first, bad[i].says);
    }
    /* Fixed: an FFN of 3,700 makes it 3.22e7, within 1%. */
    const char *good = "models:\n"
                       "  - name: tiny-lm\n"
                       "    title: Tiny LM\n"
                       "    architecture: transformer\n"
                       "    facts:\n"
                       "      - source: https://example.com/config.json\n"
                       "        layers: 2\n"
                       "        hidden_size: 1000\n"
                       "        attention_heads: 10\n"
                       "        intermediate_size: 3700\n"
                       "        vocab_size: 1000\n"
                       "      - {source: https://example.com/card, parameters: 3.2e7}\n";
    assert_int_equal(load_models(good, first, sizeof(first), &n), DC_OK);
    assert_int_equal(n, 0);
}

/* More entries than DC_MODELS_MAX are refused whole. */
static void test_loader_limit(void **state)
{
    (void)state;
    size_t cap = (DC_MODELS_MAX + 2) * 80 + 32;
    char *yaml = malloc(cap);
    assert_non_null(yaml);
    size_t k = (size_t)snprintf(yaml, cap, "models:\n");
    for (int i = 0; i <= DC_MODELS_MAX; i++)
        k += (size_t)snprintf(yaml + k, cap - k,
                              "  - {name: m%d, title: M, architecture: cnn, facts: []}\n", i);
    char first[600];
    assert_int_equal(load_models(yaml, first, sizeof(first), NULL), DC_EVALIDATE);
    assert_non_null(strstr(first, "more models than the limit of 500"));
    free(yaml);
}

/* Without models.yaml the set loads; model.name is then a clear 400. The
 * registry is part of the set's version. */
static void test_no_registry_and_version(void **state)
{
    (void)state;
    dc_ruleset *bare = NULL;
    assert_int_equal(load3(catalog_ok, sizing_ok, rules_ok, &bare, NULL), DC_OK);
    assert_int_equal(dc_ruleset_model_count(bare), 0);
    cJSON *w = cJSON_Parse("{\"task\":\"inference\",\"model\":{\"name\":\"llama-3.1-8b\"}}");
    struct dc_result *r = NULL;
    struct dc_error err;
    assert_int_equal(dc_recommend(bare, w, NULL, &r, &err), DC_EINVAL);
    assert_string_equal(err.where, "/model/name");
    assert_non_null(strstr(err.msg, "no model registry"));
    cJSON_Delete(w);
    const char *one = "models:\n  - {name: a, title: A, architecture: cnn, facts: "
                      "[{source: https://example.com/x, parameters: 5}]}\n";
    struct dc_source_file files[5] = {
        {"rules.yaml", rules_ok, strlen(rules_ok)},
        {"catalog.yaml", catalog_ok, strlen(catalog_ok)},
        {"sizing.yaml", sizing_ok, strlen(sizing_ok)},
        {"prices.yaml", prices_ok, strlen(prices_ok)},
        {"models.yaml", one, strlen(one)},
    };
    dc_ruleset *with = NULL;
    assert_int_equal(dc_ruleset_load_files(files, 5, &with, NULL), DC_OK);
    assert_int_equal(dc_ruleset_model_count(with), 1);
    assert_string_not_equal(dc_ruleset_version(bare), dc_ruleset_version(with));
    assert_null(dc_ruleset_model(with, 1));
    assert_true(isnan(dc_model_architecture_parameters(dc_ruleset_model(with, 0), NULL)));
    assert_true(isnan(dc_model_architecture_parameters(NULL, NULL)));
    dc_ruleset_release(with);
    dc_ruleset_release(bare);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_names),
        cmocka_unit_test(test_registry_sources),
        cmocka_unit_test(test_registry_parameters),
        cmocka_unit_test(test_registry_in_decision_table),
        cmocka_unit_test(test_find_and_suggest),
        cmocka_unit_test(test_unknown_name),
        cmocka_unit_test(test_named_equals_spelled),
        cmocka_unit_test(test_loader_errors),
        cmocka_unit_test(test_loader_limit),
        cmocka_unit_test(test_no_registry_and_version),
    };
    return cmocka_run_group_tests_name("models", tests, setup, teardown);
}
