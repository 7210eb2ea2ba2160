/* tests/unit/api/test_generated.c -- bodies generated from the contract's
 * Workload schema (tests/support/schema_gen.h, the project's own generator),
 * kept when the contract's validator accepts them, then run as the server runs
 * a POST /v1/recommendations: dc_recommend, dc_explain when the body asks, the
 * result rendered and checked against the Recommendation schema.
 *
 * A valid body the core refuses (the server's 400 "validation" from the core)
 * must be refused by a rule the contract states. JSON Schema cannot say every
 * rule (one field at most another, a sum under a limit, what a registry entry
 * holds): those are stated in the descriptions, and each is listed in `stated`
 * below with the description that states it and the words that do. The test
 * fails on a refusal no entry names (an unstated rule), on an entry whose words
 * the contract no longer has, on any other error of the core, and on a result
 * its schema refuses. */
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
#include "api/openapi.h"
#include "dc/embedded.h"
#include "dc/engine.h"
#include "dc/explain.h"
#include "dc/models.h"
#include "dc/ruleset.h"
#include "schema_gen.h"

#define BODIES       4000 /* valid bodies run */
#define MAX_UNSTATED 32   /* distinct unstated refusals listed */

/* A rule the core enforces beyond the schema, and where the contract says so. */
static const struct stated {
    const char *pointer;     /* of the refusal, or what it begins with */
    const char *says;        /* words of the core's message */
    const char *description; /* the schema whose description states it */
    const char *words;       /* words of that description */
} stated[] = {
    {"/model/kv_heads", "exceeds attention_heads", "#/components/schemas/Model/properties/kv_heads",
     "at most `attention_heads`"},
    {"/model/kv_heads", "does not divide attention_heads",
     "#/components/schemas/Model/properties/kv_heads", "and a divisor of it"},
    {"/model/active_parameters", "exceeds parameters",
     "#/components/schemas/Model/properties/active_parameters", "At most `parameters`"},
    {"/model/embedding_parameters", "must be less than active_parameters",
     "#/components/schemas/Model/properties/embedding_parameters", "Less than `active_parameters`"},
    {"/model/experts_per_token", "exceeds experts",
     "#/components/schemas/Model/properties/experts_per_token", "At most `experts`"},
    /* What a registry entry's architecture or attention decides. */
    {"/model/", "a window applies to attention sliding_window", "#/components/schemas/Model",
     "a window on an MLA model"},
    {"/model/", "applies to", "#/components/schemas/Model",
     "(a field that belongs to another, an attention without what it needs, one of a pair without "
     "the other) are checked by the server against a registry entry's"},
    {"/model/", "needs", "#/components/schemas/Model", "an attention without what it needs"},
    {"/model/", "go together", "#/components/schemas/Model", "one of a pair without the other"},
    {"/inference/input_tokens", "exceed the context limit of 1e+07",
     "#/components/schemas/InferenceSpec/properties/input_tokens",
     "input_tokens + output_tokens (the defaults applied) at most 10,000,000"},
    {"/inference/input_tokens", "exceeds context_tokens",
     "#/components/schemas/InferenceSpec/properties/input_tokens",
     "At most `context_tokens` when that is given"},
    {"/inference/output_tokens", "leaves no room for input in context_tokens",
     "#/components/schemas/InferenceSpec/properties/output_tokens", "Less than `context_tokens`"},
    {"/inference/context_tokens", "is less than input_tokens + output_tokens",
     "#/components/schemas/InferenceSpec/properties/context_tokens",
     "at least `input_tokens` + `output_tokens`"},
    {"/inference/", "(model.context_length)",
     "#/components/schemas/Model/properties/context_length", "A request beyond it is a 400"},
    {"/inference/prefix_cache_hit_rate", "prefix caching reuses a decoder's",
     "#/components/schemas/InferenceSpec/properties/prefix_cache_hit_rate",
     "only for a decoder's prompt cache"},
    {"/inference/speculative", "drafts tokens for a decoder",
     "#/components/schemas/SpeculativeSpec", "Only for a decoder"},
    {"/inference/speculative/", "must be smaller than the model",
     "#/components/schemas/SpeculativeSpec", "the draft must be smaller than the model"},
    {"/inference/job", "over the limit of 10,000,000", "#/components/schemas/InferenceJob",
     "at most 10,000,000 requests/s"},
};
#define N_STATED (sizeof(stated) / sizeof(stated[0]))

struct fixture {
    api_contract *contract;
    dc_ruleset *rs;
    api_schema *result_schema;
    unsigned seen[N_STATED]; /* refusals by each stated rule */
    struct unstated {
        char where[DC_ERROR_WHERE_MAX], key[160], msg[DC_ERROR_MSG_MAX], body[1024];
        unsigned count;
    } unstated[MAX_UNSTATED]; /* refusals by rules the contract does not state */
    size_t n_unstated;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    struct dc_error err;
    dc_error_clear(&err);
    struct dc_diags diags;
    dc_diags_init(&diags);
    if (f == NULL || api_contract_load_embedded(aa_embedded_files, &f->contract, &err) != DC_OK ||
        dc_ruleset_load_embedded(aa_embedded_files, &f->rs, &diags) != DC_OK ||
        api_schema_compile(api_contract_root(f->contract), "#/components/schemas/Recommendation",
                           &f->result_schema, &err) != DC_OK) {
        dc_diags_cleanup(&diags);
        return -1;
    }
    dc_diags_cleanup(&diags);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    api_schema_free(f->result_schema);
    dc_ruleset_release(f->rs);
    api_contract_free(f->contract);
    free(f);
    return 0;
}

/* Names the schema cannot list: a registry model, a catalog id. */
static cJSON *hook(void *ctx, const char *ptr, struct gen *g)
{
    const dc_ruleset *rs = ctx;
    if (strcmp(ptr, "/model/name") == 0 || strcmp(ptr, "/inference/speculative/draft_model") == 0)
        return cJSON_CreateString(
            dc_ruleset_model(rs, gen_below(g, dc_ruleset_model_count(rs)))->name);
    if (strcmp(ptr, "/constraints/accelerators/-") == 0)
        return cJSON_CreateString(
            dc_ruleset_accelerator(rs, gen_below(g, dc_ruleset_accelerator_count(rs)))->id);
    return NULL;
}

/* `s` with every run of blank characters (a YAML block's line breaks) one space. */
static void squeeze(const char *s, char *out, size_t len)
{
    size_t k = 0;
    for (; *s != '\0' && k + 1 < len; s++) {
        bool blank = *s == ' ' || *s == '\n' || *s == '\t';
        if (!blank || (k > 0 && out[k - 1] != ' '))
            out[k++] = blank ? ' ' : *s;
    }
    out[k] = '\0';
}

/* Every entry's words are in the description it names. */
static void contract_states_them(void **state)
{
    const struct fixture *f = *state;
    for (size_t i = 0; i < N_STATED; i++) {
        const cJSON *s =
            api_json_pointer_get(api_contract_root(f->contract), stated[i].description);
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(s, "description");
        static char text[8192];
        squeeze(cJSON_IsString(d) ? d->valuestring : "", text, sizeof(text));
        if (strstr(text, stated[i].words) == NULL)
            fail_msg("%s's description does not say \"%s\" (the rule \"%s\" at %s)",
                     stated[i].description, stated[i].words, stated[i].says, stated[i].pointer);
    }
}

/* The stated rule a refusal is: its index, or N_STATED when none. */
static size_t which_rule(const struct dc_error *err)
{
    size_t i = 0;
    while (i < N_STATED &&
           (strncmp(err->where, stated[i].pointer, strlen(stated[i].pointer)) != 0 ||
            strstr(err->msg, stated[i].says) == NULL))
        i++;
    return i;
}

/* A refusal by a rule the contract does not state: kept (the first body of
 * each pointer and message, its numbers left out) to list them all at the end. */
static void unstated(struct fixture *f, const struct dc_error *err, const char *text)
{
    char key[160];
    size_t k = 0;
    for (const char *p = err->msg; *p != '\0' && k + 1 < sizeof(key); p++)
        if (!(*p >= '0' && *p <= '9') && *p != '.' && *p != '+')
            key[k++] = *p;
    key[k] = '\0';
    for (size_t i = 0; i < f->n_unstated; i++) {
        if (strcmp(f->unstated[i].where, err->where) == 0 && strcmp(f->unstated[i].key, key) == 0) {
            f->unstated[i].count++;
            return;
        }
    }
    if (f->n_unstated == MAX_UNSTATED)
        return;
    struct unstated *u = &f->unstated[f->n_unstated++];
    snprintf(u->where, sizeof(u->where), "%s", err->where);
    snprintf(u->key, sizeof(u->key), "%s", key);
    snprintf(u->msg, sizeof(u->msg), "%s", err->msg);
    snprintf(u->body, sizeof(u->body), "%s", text);
    u->count = 1;
}

/* One valid body, as the server runs it. Returns whether the core refused it. */
static bool run_one(struct fixture *f, const cJSON *body, const char *text)
{
    struct dc_error err;
    dc_error_clear(&err);
    struct dc_result *res = NULL;
    /* As the server's: every result carries its request's id. */
    const struct dc_recommend_opts opts = {.request_id = "3f9c1a52e4b07d86a1c2e3f405162738"};
    enum dc_status rc = dc_recommend(f->rs, body, &opts, &res, &err);
    if (rc == DC_EINVAL) {
        size_t i = which_rule(&err);
        if (i == N_STATED) {
            unstated(f, &err, text);
            return true;
        }
        f->seen[i]++;
        return true;
    }
    if (rc != DC_OK)
        fail_msg("dc_recommend: %s: %s\n%s", dc_status_name(rc), err.msg, text);
    struct dc_explanation *e = NULL;
    if (res->workload.explain != 0) {
        struct dc_explain_opts eo = {res->workload.explain, 0, 0};
        rc = dc_explain(f->rs, body, &opts, res, &eo, &e, &err);
        if (rc != DC_OK)
            fail_msg("dc_explain: %s: %s\n%s", dc_status_name(rc), err.msg, text);
    }
    size_t len = 0;
    char *out = api_result_render_explained(res, e, &len);
    assert_non_null(out);
    cJSON *doc = cJSON_Parse(out);
    assert_non_null(doc);
    struct api_schema_result vr;
    assert_int_equal(api_schema_validate(f->result_schema, doc, 4, &vr, &err), DC_OK);
    if (!vr.valid)
        fail_msg("the result does not match Recommendation: %s: %s\n%s", vr.items[0].pointer,
                 vr.items[0].message, text);
    api_schema_result_cleanup(&vr);
    cJSON_Delete(doc);
    free(out);
    dc_explanation_free(e);
    dc_result_free(res);
    return false;
}

static void generated_bodies(void **state)
{
    struct fixture *f = *state;
    const api_schema *workload = api_contract_workload_schema(f->contract);
    const cJSON *schema = api_json_pointer_get(api_contract_root(f->contract), API_SCHEMA_WORKLOAD);
    struct gen g = {0x5eed, api_contract_root(f->contract), 0.3, hook, f->rs};
    unsigned generated = 0, valid = 0, refused = 0;
    while (valid < BODIES) {
        /* Sparse and dense bodies: each optional member with 3% to 28%. */
        g.p_optional = 0.03 + 0.25 * gen_unit(&g);
        cJSON *body = gen_value(&g, schema, "", 0);
        generated++;
        struct dc_error err;
        dc_error_clear(&err);
        struct api_schema_result vr;
        assert_int_equal(api_schema_validate(workload, body, 1, &vr, &err), DC_OK);
        bool ok = vr.valid;
        api_schema_result_cleanup(&vr);
        if (ok) {
            valid++;
            char *text = cJSON_PrintUnformatted(body);
            refused += run_one(f, body, text);
            free(text);
        }
        cJSON_Delete(body);
        if (generated > 50 * BODIES)
            fail_msg("only %u of %u generated bodies are valid", valid, generated);
    }
    printf("generated %u bodies, %u valid, %u refused by a stated rule:\n", generated, valid,
           refused);
    for (size_t i = 0; i < N_STATED; i++)
        printf("  %5u  %s: %s\n", f->seen[i], stated[i].pointer, stated[i].says);
    for (size_t i = 0; i < f->n_unstated; i++)
        printf("UNSTATED %u x %s: %s\n  e.g. %s\n", f->unstated[i].count, f->unstated[i].where,
               f->unstated[i].msg, f->unstated[i].body);
    assert_int_equal(f->n_unstated, 0);
    /* A fifth or more of the valid bodies are answered: the generator reaches
     * the core's sizing, the explanations and the result's schema. */
    assert_true((valid - refused) * 5 >= valid);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(contract_states_them),
        cmocka_unit_test(generated_bodies),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
