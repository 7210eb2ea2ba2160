/* core/src/select/sized_rules.c -- rules whose condition reads the configuration a
 * candidate is sized in (`sized.*` facts: a replica's memory and chips, the
 * replicas, the batch), which the workload alone cannot tell: "v5e serves
 * from one host of 8 chips" holds for the replica sizing builds, not for
 * the model at batch 1 (docs/rules-format.md, "Facts of the sized
 * configuration"). An exclusion is a constraint each configuration must meet;
 * a score impact counts on the configuration picked. */
#include <math.h>
#include <string.h>

#include "select.h"
#include "ruleset_internal.h"

/* Whether the rule's effect reaches candidate `idx` of family `fam`, by a
 * score impact or (*excludes) by an exclusion. */
static bool touches(const struct dc__rule *rule, size_t idx, enum dc_family fam, bool *excludes)
{
    bool hit;
    (void)dc__rule_impact(rule, idx, fam, &hit);
    *excludes = (rule->exclude_families & (1u << fam)) != 0;
    for (size_t k = 0; k < rule->n_exclude_accs; k++)
        *excludes |= rule->exclude_accs[k] == idx;
    return hit || *excludes;
}

bool dc__sized_rules_touch(const dc_ruleset *rs, size_t idx)
{
    for (size_t i = 0; i < rs->n_sized_rules; i++) {
        bool excl;
        if (touches(&rs->rules[rs->sized_rules[i]], idx, rs->accs[idx].family, &excl))
            return true;
    }
    return false;
}

static const char sized_key[] = "sized";

/* The `sized` facts, in the order dc__sized_facts_add writes them and
 * set_sized reads them. */
static const char *const sized_keys[] = {"memory_gb", "chips", "chips_per_replica", "replicas",
                                         "batch_per_replica"};
#define N_SIZED_KEYS (sizeof(sized_keys) / sizeof(sized_keys[0]))

enum dc_status dc__sized_facts_add(const dc_ruleset *rs, struct dc__arena *ar, cJSON *facts)
{
    if (rs->n_sized_rules == 0)
        return DC_OK;
    cJSON *sized = dc__facts_item(ar, cJSON_Object, 0, NULL);
    if (sized == NULL || !cJSON_AddItemToObjectCS(facts, sized_key, sized)) {
        if (ar == NULL)
            cJSON_Delete(sized);
        return DC_ENOMEM;
    }
    for (size_t k = 0; k < N_SIZED_KEYS; k++) {
        cJSON *m = dc__facts_item(ar, cJSON_Number, 0, NULL);
        if (m == NULL || !cJSON_AddItemToObjectCS(sized, sized_keys[k], m)) {
            if (ar == NULL)
                cJSON_Delete(m);
            return DC_ENOMEM;
        }
    }
    return DC_OK;
}

/* The facts' `sized` object, NULL when no rule reads it: the member
 * dc__sized_facts_add appended last (each configuration of a part looks it
 * up, and the facts' members before it are a dozen); a name the facts
 * document holds once, so the last member named so is the one. */
static cJSON *sized_of(cJSON *facts)
{
    cJSON *last = facts != NULL && facts->child != NULL ? facts->child->prev : NULL;
    if (last != NULL && last->string != NULL &&
        (last->string == sized_key || strcmp(last->string, sized_key) == 0))
        return last;
    return cJSON_GetObjectItemCaseSensitive(facts, "sized");
}

/* The configuration's figures into the facts' `sized` object `s`: its
 * members are read in the order they were added (each configuration sets
 * them), each looked up by name only where that order does not hold. */
static void set_sized(cJSON *s, const struct dc_sizing *z)
{
    const double v[N_SIZED_KEYS] = {z->memory_need_gb, z->chips, z->chips_per_replica, z->replicas,
                                    z->batch_per_replica};
    cJSON *m = s->child;
    for (size_t k = 0; k < N_SIZED_KEYS; k++) {
        /* The key is the very string dc__sized_facts_add gave (a constant
         * key), or one of the same text. */
        if (m == NULL || (m->string != sized_keys[k] &&
                          (m->string == NULL || strcmp(m->string, sized_keys[k]) != 0)))
            m = cJSON_GetObjectItemCaseSensitive(s, sized_keys[k]);
        if (m == NULL)
            continue;
        dc__facts_number(m, v[k]);
        m = m->next;
    }
}

/* Whether the rule's condition holds on the sized facts, within the request's
 * steps; an error (or spent budget) counts as not holding, and e->failed and
 * e->rc keep the first such rule and status. */
static bool holds(struct dc__sized_eval *e, const struct dc__rule *rule)
{
    bool hit = false;
    uint64_t spent = 0;
    struct dc_error err;
    enum dc_status rc = dc_logic_eval_truthy_cached(rule->cond, e->facts, e->vc, *e->steps_left,
                                                    &spent, &hit, &err);
    *e->steps_left -= spent < *e->steps_left ? spent : *e->steps_left;
    if (rc != DC_OK) {
        if (e->failed == NULL)
            e->failed = rule;
        if (e->rc == DC_OK)
            e->rc = rc;
        return false;
    }
    return hit;
}

const struct dc__rule *dc__sized_exclusion(struct dc__sized_eval *e, size_t idx,
                                           const struct dc_sizing *z)
{
    cJSON *s = sized_of(e->facts);
    if (s == NULL)
        return NULL;
    set_sized(s, z);
    for (size_t i = 0; i < e->rs->n_sized_rules; i++) {
        const struct dc__rule *rule = &e->rs->rules[e->rs->sized_rules[i]];
        bool excl = false;
        if (touches(rule, idx, e->rs->accs[idx].family, &excl) && excl && holds(e, rule))
            return rule;
    }
    return NULL;
}

size_t dc__sized_hits(struct dc__sized_eval *e, size_t idx, const struct dc_sizing *z,
                      const struct dc__rule **out, size_t max)
{
    cJSON *s = sized_of(e->facts);
    if (s == NULL)
        return 0;
    set_sized(s, z);
    size_t n = 0;
    for (size_t i = 0; i < e->rs->n_sized_rules && n < max; i++) {
        const struct dc__rule *rule = &e->rs->rules[e->rs->sized_rules[i]];
        bool excl = false;
        if (touches(rule, idx, e->rs->accs[idx].family, &excl) && !excl && holds(e, rule))
            out[n++] = rule;
    }
    return n;
}
