/* core/src/rule_step_budget.c -- what each rule of a set can spend of a request's
 * rule-evaluation budget (DC_RECOMMEND_MAX_RULE_STEPS), for `check`.
 *
 * A condition's cost depends on the data it reads, and the only unbounded-ish
 * data a workload brings are its arrays: every condition is therefore run
 * against one probe workload per task whose arrays are as long as the contract
 * allows (every provider, every catalog accelerator in the allow-list), and
 * the most it spent is reported. */
#include <stdio.h>

#include "dc/engine.h"
#include "ruleset_internal.h"
#include "sizing.h"

/* {"task": TASK, "model": {"parameters": 7e9}, "constraints": {"providers":
 * [every provider], "accelerators": [every catalog id]}} */
static cJSON *probe(const dc_ruleset *rs, const char *task)
{
    cJSON *w = cJSON_CreateObject();
    cJSON *model = cJSON_AddObjectToObject(w, "model");
    cJSON *c = cJSON_AddObjectToObject(w, "constraints");
    cJSON *prov = cJSON_AddArrayToObject(c, "providers");
    cJSON *accs = cJSON_AddArrayToObject(c, "accelerators");
    bool ok = w != NULL && cJSON_AddStringToObject(w, "task", task) != NULL && model != NULL &&
              cJSON_AddNumberToObject(model, "parameters", 7e9) != NULL && prov != NULL &&
              accs != NULL;
    for (unsigned p = 0; ok && p < DC_PROVIDER_COUNT; p++)
        ok = cJSON_AddItemToArray(prov, cJSON_CreateString(dc_provider_name((enum dc_provider)p)));
    for (size_t i = 0; ok && i < rs->n_accs; i++)
        ok = cJSON_AddItemToArray(accs, cJSON_CreateString(rs->accs[i].id));
    if (!ok) {
        cJSON_Delete(w);
        return NULL;
    }
    return w;
}

/* Spend of every rule on one probe, kept where it is the most so far. */
static enum dc_status measure(const dc_ruleset *rs, const cJSON *json, uint64_t *steps,
                              struct dc_error *err)
{
    struct dc_workload w;
    struct dc__derived d;
    cJSON *facts = NULL;
    enum dc_status rc = dc_workload_parse(rs, json, &w, err);
    if (rc != DC_OK)
        return rc;
    dc__derive(rs, &w, &d);
    rc = dc__facts_build(rs, &w, &d, NULL, &facts);
    for (size_t i = 0; rc == DC_OK && i < rs->n_rules; i++) {
        bool hit = false;
        uint64_t spent = 0;
        struct dc_error cerr;
        enum dc_status crc =
            dc_logic_eval_truthy_within(rs->rules[i].cond, facts, 0, &spent, &hit, &cerr);
        if (crc == DC_ENOMEM)
            rc = DC_ENOMEM;
        if (spent > steps[i])
            steps[i] = spent;
    }
    cJSON_Delete(facts);
    return rc;
}

enum dc_status dc_ruleset_rule_steps(const dc_ruleset *rs, uint64_t *steps, struct dc_error *err)
{
    if (rs == NULL || steps == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "dc_ruleset_rule_steps: NULL argument");
    for (size_t i = 0; i < rs->n_rules; i++)
        steps[i] = 0;
    enum dc_status rc = DC_OK;
    for (int t = DC_TASK_TRAINING; rc == DC_OK && t <= DC_TASK_INFERENCE; t++) {
        cJSON *json = probe(rs, dc_task_name((enum dc_task)t));
        rc = json != NULL ? measure(rs, json, steps, err) : DC_ENOMEM;
        cJSON_Delete(json);
    }
    if (rc == DC_ENOMEM)
        dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    return rc;
}
