/* tests/unit/core/test_logic_limits.c -- the JSONLogic evaluator
 * (core/src/logic/) beyond its operators (test_logic.c): every error path, the
 * variable cache, the depth, node, step and memory limits,
 * dc_logic_foreach_var, zero allocations on the common path, out of memory,
 * and two threads evaluating one compiled rule. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dc/logic.h"
#include "logic_internal.h"
#include "logic_q.h"

/* ---- errors ------------------------------------------------------------------- */

struct error_case {
    const char *rule;
    enum dc_status code;
    const char *where;
    const char *msg_part;
};

static const struct error_case compile_errors[] = {
    {"{'foo':1}", DC_EPARSE, "", "unknown operator \"foo\""},
    {"{'and':[true,{'foo':[1]}]}", DC_EPARSE, "/and/1", "unknown operator \"foo\""},
    {"{'if':[{'var':'a'},{'bar':1}]}", DC_EPARSE, "/if/1", "\"bar\""},
    {"{'!':{'nope':1}}", DC_EPARSE, "/!", "\"nope\""},
    {"{'and':[{'!':[{'q':1}]}]}", DC_EPARSE, "/and/0/!/0", "\"q\""},
    {"[1,{'x':2}]", DC_EPARSE, "/1", "\"x\""},
    {"{'map':[[1],{'method':['toString']}]}", DC_EPARSE, "/map/1", "\"method\""},
    {"{'var':{'x':1}}", DC_EPARSE, "/var", "\"x\""},
    {"{'Var':'a'}", DC_EPARSE, "", "\"Var\""},
    {"{'':1}", DC_EPARSE, "", "unknown operator \"\""},
    /* arity */
    {"{'==':[1]}", DC_EPARSE, "", "\"==\" takes 2 arguments, got 1"},
    {"{'==':1}", DC_EPARSE, "", "takes 2 arguments, got 1"},
    {"{'===':[1,2,3]}", DC_EPARSE, "", "takes 2 arguments, got 3"},
    {"{'and':[{'!':[1,2]}]}", DC_EPARSE, "/and/0", "\"!\" takes 1 argument, got 2"},
    {"{'!!':[]}", DC_EPARSE, "", "takes 1 argument, got 0"},
    {"{'var':[1,2,3]}", DC_EPARSE, "", "\"var\" takes 0 to 2 arguments, got 3"},
    {"{'*':[]}", DC_EPARSE, "", "\"*\" takes at least 1 argument, got 0"},
    {"{'-':[]}", DC_EPARSE, "", "takes 1 to 2 arguments, got 0"},
    {"{'-':[1,2,3]}", DC_EPARSE, "", "takes 1 to 2 arguments, got 3"},
    {"{'/':[1]}", DC_EPARSE, "", "takes 2 arguments"},
    {"{'%':[1,2,3]}", DC_EPARSE, "", "takes 2 arguments"},
    {"{'>':[1,2,3]}", DC_EPARSE, "", "takes 2 arguments, got 3"},
    {"{'<':[1,2,3,4]}", DC_EPARSE, "", "takes 2 to 3 arguments, got 4"},
    {"{'<=':[1]}", DC_EPARSE, "", "takes 2 to 3 arguments, got 1"},
    {"{'?:':[1,2]}", DC_EPARSE, "", "\"?:\" takes 3 arguments, got 2"},
    {"{'substr':['a']}", DC_EPARSE, "", "\"substr\" takes 2 to 3 arguments"},
    {"{'map':[[1]]}", DC_EPARSE, "", "\"map\" takes 2 arguments, got 1"},
    {"{'filter':[[1],1,2]}", DC_EPARSE, "", "\"filter\" takes 2 arguments"},
    {"{'reduce':[[1]]}", DC_EPARSE, "", "\"reduce\" takes 2 to 3 arguments"},
    {"{'all':[[1]]}", DC_EPARSE, "", "\"all\" takes 2"},
    {"{'none':[[1]]}", DC_EPARSE, "", "\"none\" takes 2"},
    {"{'some':[[1]]}", DC_EPARSE, "", "\"some\" takes 2"},
    {"{'missing_some':[1]}", DC_EPARSE, "", "\"missing_some\" takes 2 arguments, got 1"},
    {"{'in':'a'}", DC_EPARSE, "", "\"in\" takes 2 arguments, got 1"},
    {"{'log':[1,2]}", DC_EPARSE, "", "\"log\" takes 1 argument"},
    /* several keys in an operator object */
    {"{'var':'a','x':1}", DC_EPARSE, "", "has 2 keys"},
    {"{'and':[{'==':[1,1],'!':true}]}", DC_EPARSE, "/and/0", "has 2 keys"},
};

/* Numbers every path it is asked of in order, as a rule set does. */
struct numbering {
    const char *path[8];
    size_t n;
};

static uint32_t number_in_order(const char *path, void *ctx)
{
    struct numbering *nb = ctx;
    for (size_t i = 0; i < nb->n; i++)
        if (strcmp(nb->path[i], path) == 0)
            return (uint32_t)i;
    assert_true(nb->n < 8);
    nb->path[nb->n] = path;
    return (uint32_t)nb->n++;
}

/* Truthiness and steps of `logic` on `data`, through `vc` and without; both
 * must agree. */
static bool cached_truthy(const dc_logic *logic, const cJSON *data, struct dc_logic_var_cache *vc)
{
    bool plain = false, cached = true;
    uint64_t plain_steps = 0, cached_steps = 0;
    assert_int_equal(dc_logic_eval_truthy_within(logic, data, 0, &plain_steps, &plain, NULL),
                     DC_OK);
    assert_int_equal(dc_logic_eval_truthy_cached(logic, data, vc, 0, &cached_steps, &cached, NULL),
                     DC_OK);
    assert_int_equal(plain, cached);
    assert_int_equal(plain_steps, cached_steps);
    return cached;
}

/* A var cache (dc_logic_var_cache) answers what the walk would: a member
 * found once is read again with the value it has then, an absent one takes
 * the default, paths through arrays and strings and var inside a map body
 * are not cached, and the cache of another document is not used. */
static void test_var_cache(void **state)
{
    (void)state;
    cJSON *rule = q2json("{'and':[{'==':[{'var':'m.b'},2]},{'==':[{'var':['m.z','none']},'none']},"
                         "{'==':[{'var':'list.1'},5]},{'==':[{'var':'m.s.length'},3]},"
                         "{'some':[{'var':'list'},{'==':[{'var':'b'},9]}]}]}");
    dc_logic *logic = NULL;
    assert_int_equal(dc_logic_compile(rule, NULL, &logic, NULL), DC_OK);
    struct numbering nb = {.n = 0};
    dc_logic_number_vars(logic, number_in_order, &nb);
    /* var paths of the data itself, not the map body's "b" */
    assert_int_equal(nb.n, 5);
    assert_string_equal(nb.path[0], "m.b");
    assert_string_equal(nb.path[1], "m.z");
    assert_string_equal(nb.path[2], "list.1");
    assert_string_equal(nb.path[3], "m.s.length");
    assert_string_equal(nb.path[4], "list");

    cJSON *data = q2json("{'m':{'a':1,'b':2,'s':'abc'},'list':[4,5,{'b':9}]}");
    unsigned char st[5] = {0};
    const cJSON *member[5];
    struct dc_logic_var_cache vc = {data, 5, st, member};
    assert_true(cached_truthy(logic, data, &vc));
    assert_int_equal(st[0], 1); /* found */
    assert_int_equal(st[1], 2); /* absent: the default */
    assert_int_equal(st[2], 0); /* through an array: walked each time */
    assert_int_equal(st[3], 0); /* a string's length: walked each time */
    assert_int_equal(st[4], 1);
    assert_ptr_equal(member[0], cJSON_GetObjectItem(cJSON_GetObjectItem(data, "m"), "b"));
    assert_true(cached_truthy(logic, data, &vc)); /* from the cache */
    /* A value set in place is read as it is now. */
    cJSON_SetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(data, "m"), "b"), 3);
    assert_false(cached_truthy(logic, data, &vc));
    cJSON_SetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(data, "m"), "b"), 2);
    assert_true(cached_truthy(logic, data, &vc));

    /* Another document: the cache (of `data`) is not read or written. */
    cJSON *other = q2json("{'m':{'b':2,'z':'x','s':'abc'},'list':[4,5,{'b':9}]}");
    unsigned char before[5];
    memcpy(before, st, sizeof(st));
    assert_false(cached_truthy(logic, other, &vc));
    assert_memory_equal(before, st, sizeof(st));
    /* A cache with fewer entries than the paths: the rest are walked. */
    struct dc_logic_var_cache small = {other, 1, st, member};
    memset(st, 0, sizeof(st));
    assert_false(cached_truthy(logic, other, &small));
    assert_int_equal(st[0], 1);
    assert_int_equal(st[1], 0);
    assert_false(cached_truthy(logic, other, NULL));

    cJSON_Delete(other);
    cJSON_Delete(data);
    dc_logic_free(logic);
    cJSON_Delete(rule);
}

static void test_compile_errors(void **state)
{
    (void)state;
    size_t failed = 0;
    for (size_t i = 0; i < sizeof(compile_errors) / sizeof(compile_errors[0]); i++) {
        const struct error_case *c = &compile_errors[i];
        cJSON *rule = q2json(c->rule);
        dc_logic *logic = (dc_logic *)&failed; /* any non-NULL: must be reset */
        struct dc_error err;
        assert_non_null(rule);
        dc_error_clear(&err);
        enum dc_status rc = dc_logic_compile(rule, NULL, &logic, &err);
        if (rc != c->code || logic != NULL || err.code != c->code ||
            strcmp(err.where, c->where) != 0 || strstr(err.msg, c->msg_part) == NULL) {
            printf("FAIL %s: %s where=\"%s\" msg=\"%s\"\n", c->rule, dc_status_name(rc), err.where,
                   err.msg);
            failed++;
        }
        cJSON_Delete(rule);
    }
    assert_int_equal(failed, 0);
}

static void test_null_arguments(void **state)
{
    (void)state;
    cJSON *rule = q2json("{'var':'a'}");
    dc_logic *logic = NULL;
    cJSON *out = NULL;
    bool b = true;
    struct dc_error err;

    dc_error_clear(&err);
    assert_int_equal(dc_logic_compile(NULL, NULL, &logic, &err), DC_EINVAL);
    assert_int_equal(err.code, DC_EINVAL);
    assert_non_null(strstr(err.msg, "rule"));
    assert_null(logic);
    assert_int_equal(dc_logic_compile(rule, NULL, NULL, &err), DC_EINVAL);
    assert_int_equal(dc_logic_compile(rule, NULL, NULL, NULL), DC_EINVAL);

    assert_int_equal(dc_logic_compile(rule, NULL, &logic, NULL), DC_OK);
    dc_error_clear(&err);
    assert_int_equal(dc_logic_eval(NULL, NULL, &out, &err), DC_EINVAL);
    assert_int_equal(err.code, DC_EINVAL);
    assert_null(out);
    assert_int_equal(dc_logic_eval(logic, NULL, NULL, &err), DC_EINVAL);
    assert_int_equal(dc_logic_eval_truthy(NULL, NULL, &b, &err), DC_EINVAL);
    assert_false(b);
    assert_int_equal(dc_logic_eval_truthy(logic, NULL, NULL, NULL), DC_EINVAL);
    struct dc_logic_stats st = {0, 0, 0, 0};
    assert_int_equal(dc_logic_eval_truthy_stats(NULL, NULL, &st, &b, NULL), DC_EINVAL);
    dc_logic *none = (dc_logic *)&st;
    assert_int_equal(dc_logic_compile_stats(NULL, NULL, &st, &none, NULL), DC_EINVAL);
    assert_null(none);

    dc_logic_foreach_var(NULL, NULL, NULL);
    dc_logic_foreach_var(logic, NULL, NULL);
    dc_logic_free(NULL);
    dc_logic_free(logic);
    cJSON_Delete(rule);
}

/* {"!": {"!": ... 1}} nested `levels` deep. */
static cJSON *nested_not(unsigned levels)
{
    cJSON *node = cJSON_CreateNumber(1);
    for (unsigned i = 0; i < levels; i++) {
        cJSON *op = cJSON_CreateObject();
        cJSON_AddItemToObject(op, "!", node);
        node = op;
    }
    return node;
}

static void test_depth_limit(void **state)
{
    (void)state;
    dc_logic *logic = NULL;
    struct dc_error err;
    cJSON *ok = nested_not(DC_LOGIC_MAX_DEPTH_DEFAULT);
    cJSON *deep = nested_not(DC_LOGIC_MAX_DEPTH_DEFAULT + 1);

    assert_int_equal(dc_logic_compile(ok, NULL, &logic, NULL), DC_OK);
    dc_logic_free(logic);
    logic = NULL;
    dc_error_clear(&err);
    assert_int_equal(dc_logic_compile(deep, NULL, &logic, &err), DC_ELIMIT);
    assert_null(logic);
    assert_non_null(strstr(err.msg, "deeper than 64"));
    /* The 65th "!" sits under 64 of them: "/!" 64 times. */
    char want[DC_ERROR_WHERE_MAX] = "";
    for (unsigned i = 0; i < DC_LOGIC_MAX_DEPTH_DEFAULT; i++)
        strcat(want, "/!");
    assert_string_equal(err.where, want);

    struct dc_logic_limits lim = {.max_depth = 2};
    cJSON *three = q2json("{'!':{'!':{'!':1}}}");
    assert_int_equal(dc_logic_compile(three, &lim, &logic, &err), DC_ELIMIT);
    assert_string_equal(err.where, "/!/!");
    /* Arrays and constant objects count as levels too. */
    cJSON *arr = q2json("{'!':[[[1]]]}");
    assert_int_equal(dc_logic_compile(arr, &lim, &logic, &err), DC_ELIMIT);
    assert_string_equal(err.where, "/!/0/0");
    lim.max_depth = 3;
    cJSON *obj = q2json("{'if':[true,{'a':{'b':{'c':1}},'z':0},0]}");
    assert_int_equal(dc_logic_compile(obj, &lim, &logic, &err), DC_ELIMIT);
    lim.max_depth = 5;
    assert_int_equal(dc_logic_compile(obj, &lim, &logic, &err), DC_OK);
    dc_logic_free(logic);

    /* A limit above the ceiling is refused rather than risking the stack. */
    lim.max_depth = DC_LOGIC_MAX_DEPTH_CEILING + 1;
    assert_int_equal(dc_logic_compile(three, &lim, &logic, &err), DC_EINVAL);
    assert_non_null(strstr(err.msg, "ceiling"));
    lim.max_depth = DC_LOGIC_MAX_DEPTH_CEILING;
    cJSON *ceiling = nested_not(DC_LOGIC_MAX_DEPTH_CEILING);
    assert_int_equal(dc_logic_compile(ceiling, &lim, &logic, &err), DC_OK);
    cJSON *out = NULL;
    assert_int_equal(dc_logic_eval(logic, NULL, &out, &err), DC_OK);
    assert_true(cJSON_IsTrue(out)); /* an even number of negations of 1 */
    cJSON_Delete(out);
    dc_logic_free(logic);

    cJSON_Delete(ok);
    cJSON_Delete(deep);
    cJSON_Delete(three);
    cJSON_Delete(arr);
    cJSON_Delete(obj);
    cJSON_Delete(ceiling);
}

static void test_node_limit(void **state)
{
    (void)state;
    dc_logic *logic = NULL;
    struct dc_error err;
    struct dc_logic_limits lim = {.max_nodes = 6};
    cJSON *six = q2json("{'+':[1,2,3,4,5]}");
    cJSON *seven = q2json("{'+':[1,2,3,4,5,6]}");
    assert_int_equal(dc_logic_compile(six, &lim, &logic, &err), DC_OK);
    dc_logic_free(logic);
    dc_error_clear(&err);
    assert_int_equal(dc_logic_compile(seven, &lim, &logic, &err), DC_ELIMIT);
    assert_null(logic);
    assert_non_null(strstr(err.msg, "more than 6 nodes"));

    /* Default limit: a literal array of 5000 numbers. */
    cJSON *big = cJSON_CreateArray();
    for (int i = 0; i < 5000; i++)
        cJSON_AddItemToArray(big, cJSON_CreateNumber(i));
    assert_int_equal(dc_logic_compile(big, NULL, &logic, &err), DC_ELIMIT);
    assert_non_null(strstr(err.msg, "4096"));
    /* Nodes inside constant objects count too. */
    lim.max_nodes = 4;
    cJSON *obj = q2json("{'a':1,'b':2,'c':3,'d':4}");
    assert_int_equal(dc_logic_compile(obj, &lim, &logic, &err), DC_ELIMIT);
    cJSON_Delete(six);
    cJSON_Delete(seven);
    cJSON_Delete(big);
    cJSON_Delete(obj);
}

static cJSON *grid(int rows, int cols)
{
    cJSON *data = cJSON_CreateObject();
    cJSON *a = cJSON_AddArrayToObject(data, "a");
    for (int r = 0; r < rows; r++) {
        cJSON *row = cJSON_CreateArray();
        for (int c = 0; c < cols; c++)
            cJSON_AddItemToArray(row, cJSON_CreateNumber(c));
        cJSON_AddItemToArray(a, row);
    }
    return data;
}

static void test_step_limit(void **state)
{
    (void)state;
    dc_logic *logic = NULL;
    struct dc_error err;
    cJSON *out = NULL;
    bool b = true;
    cJSON *rule = q2json("{'map':[{'var':'a'},{'map':[{'var':''},{'+':[{'var':''},1]}]}]}");
    cJSON *data = grid(100, 100);
    struct dc_logic_limits lim = {.max_steps = 5000};

    assert_int_equal(dc_logic_compile(rule, &lim, &logic, &err), DC_OK);
    dc_error_clear(&err);
    assert_int_equal(dc_logic_eval(logic, data, &out, &err), DC_ELIMIT);
    assert_null(out);
    assert_int_equal(err.code, DC_ELIMIT);
    assert_non_null(strstr(err.msg, "step limit (5000"));
    assert_int_equal(dc_logic_eval_truthy(logic, data, &b, &err), DC_ELIMIT);
    assert_false(b);
    dc_logic_free(logic);

    /* The same rule fits the default limit. */
    assert_int_equal(dc_logic_compile(rule, NULL, &logic, &err), DC_OK);
    assert_int_equal(dc_logic_eval(logic, data, &out, &err), DC_OK);
    assert_int_equal(cJSON_GetArraySize(out), 100);
    cJSON_Delete(out);
    dc_logic_free(logic);

    /* Short-circuit: the second operand of "or" never runs. */
    cJSON *sc = q2json("{'or':[true,{'+':[1,{'+':[1,{'+':[1,1]}]}]}]}");
    lim.max_steps = 2;
    assert_int_equal(dc_logic_compile(sc, &lim, &logic, &err), DC_OK);
    assert_int_equal(dc_logic_eval_truthy(logic, NULL, &b, &err), DC_OK);
    assert_true(b);
    dc_logic_free(logic);

    /* Bulk work is charged: one "in" over a long data array. */
    cJSON *in = q2json("{'in':[-1,{'var':'a.0'}]}");
    lim.max_steps = 50;
    assert_int_equal(dc_logic_compile(in, &lim, &logic, &err), DC_OK);
    assert_int_equal(dc_logic_eval_truthy(logic, data, &b, &err), DC_ELIMIT);
    dc_logic_free(logic);

    /* A caller's budget narrows the rule's own limit and is told what was spent,
     * also when it runs out; 0, or a larger budget, leaves the rule's limit. */
    uint64_t spent = 0;
    assert_int_equal(dc_logic_compile(rule, NULL, &logic, &err), DC_OK);
    assert_int_equal(dc_logic_eval_truthy_within(logic, data, 0, &spent, &b, &err), DC_OK);
    uint64_t full = spent;
    assert_true(full > 10000);
    assert_int_equal(dc_logic_eval_truthy_within(logic, data, UINT64_MAX, &spent, &b, &err), DC_OK);
    assert_int_equal(spent, full);
    assert_int_equal(dc_logic_eval_truthy_within(logic, data, 777, &spent, &b, &err), DC_ELIMIT);
    assert_int_equal(spent, 777);
    assert_false(b);
    assert_non_null(strstr(err.msg, "step limit (777"));
    assert_int_equal(dc_logic_eval_truthy_within(logic, data, full, NULL, &b, &err), DC_OK);
    dc_logic_free(logic);

    cJSON_Delete(rule);
    cJSON_Delete(data);
    cJSON_Delete(sc);
    cJSON_Delete(in);
}

static void test_memory_limit(void **state)
{
    (void)state;
    /* Doubling a string 40 times: the step limit is raised out of the way, so
     * the cap on built bytes stops it. */
    cJSON *rule = q2json("{'reduce':[{'var':'xs'},{'cat':[{'var':'accumulator'},"
                         "{'var':'accumulator'}]},'0123456789abcdef']}");
    cJSON *data = cJSON_CreateObject();
    cJSON *xs = cJSON_AddArrayToObject(data, "xs");
    for (int i = 0; i < 40; i++)
        cJSON_AddItemToArray(xs, cJSON_CreateNumber(i));
    struct dc_logic_limits lim = {.max_steps = UINT_MAX};
    dc_logic *logic = NULL;
    struct dc_error err;
    bool b = true;
    assert_int_equal(dc_logic_compile(rule, &lim, &logic, &err), DC_OK);
    dc_error_clear(&err);
    assert_int_equal(dc_logic_eval_truthy(logic, data, &b, &err), DC_ELIMIT);
    assert_non_null(strstr(err.msg, "bytes"));
    dc_logic_free(logic);
    /* With the default step limit, steps run out first. */
    assert_int_equal(dc_logic_compile(rule, NULL, &logic, &err), DC_OK);
    assert_int_equal(dc_logic_eval_truthy(logic, data, &b, &err), DC_ELIMIT);
    assert_non_null(strstr(err.msg, "step limit"));
    dc_logic_free(logic);
    cJSON_Delete(rule);
    cJSON_Delete(data);
}

/* ---- dc_logic_foreach_var ------------------------------------------------------ */

struct paths {
    char text[512];
    int calls;
};

static void collect(const char *path, void *ctx)
{
    struct paths *p = ctx;
    if (p->calls++ > 0)
        strcat(p->text, " ");
    strcat(p->text, path);
}

static void test_foreach_var(void **state)
{
    (void)state;
    cJSON *rule = q2json("{'and':[{'var':'model.parameters'},{'var':'framework'},"
                         "{'var':['model.parameters',0]},{'missing':['team.size','framework']},"
                         "{'missing_some':[1,['budget','x.y']]},"
                         "{'map':[{'var':'items'},{'var':'qty'}]},"
                         "{'reduce':[{'var':'r'},{'var':'current.k'},{'var':'init'}]},"
                         "{'var':{'cat':['a','b']}},{'var':''},{'var':1},{'var':null}]}");
    dc_logic *logic = NULL;
    struct paths p = {"", 0};
    assert_int_equal(dc_logic_compile(rule, NULL, &logic, NULL), DC_OK);
    dc_logic_foreach_var(logic, collect, &p);
    assert_string_equal(p.text, "1 budget framework init items model.parameters r team.size x.y");
    assert_int_equal(p.calls, 9);
    dc_logic_free(logic);

    cJSON *none = q2json("{'==':[1,1]}");
    p.text[0] = '\0';
    p.calls = 0;
    assert_int_equal(dc_logic_compile(none, NULL, &logic, NULL), DC_OK);
    dc_logic_foreach_var(logic, collect, &p);
    assert_int_equal(p.calls, 0);
    dc_logic_free(logic);
    cJSON_Delete(rule);
    cJSON_Delete(none);
}

/* ---- allocation-free common path ---------------------------------------------- */

static const char *const workload =
    "{'framework':'jax','task':'training','stage':'production',"
    "'model':{'architecture':'transformer','parameters':7e9,'custom_ops':false,"
    "'dynamic_shapes':false},'precision':'bf16','training':{'tokens':2e12},"
    "'constraints':{'deployment':'cloud','providers':['gcp','aws'],'budget_usd':50000},"
    "'team':{'cuda_experience':'low','xla_experience':'high'}}";

static void test_zero_allocations(void **state)
{
    (void)state;
    static const struct {
        const char *rule;
        bool want;
    } cases[] = {
        {"{'and':[{'>':[{'var':'model.parameters'},1e9]},"
         "{'in':[{'var':'framework'},['jax','tensorflow']]},{'!':{'var':'model.custom_ops'}}]}",
         true},
        {"{'or':[{'==':[{'var':'precision'},'fp64']},{'<=':[1e6,{'var':'training.tokens'},1e13]}]}",
         true},
        {"{'if':[{'===':[{'var':'stage'},'production']},{'!!':{'var':'team.xla_experience'}},false]"
         "}",
         true},
        {"{'>':[{'/':[{'*':[6,{'var':'model.parameters'},{'var':'training.tokens'}]},1e21]},10]}",
         true},
        {"{'in':['gcp',{'var':'constraints.providers'}]}", true},
        {"{'in':['pyt',{'var':'framework'}]}", false},
        {"{'<':[{'-':[{'var':'constraints.budget_usd'},1000]},{'%':[7,4]}]}", false},
        {"{'!=':[{'var':'model.architecture'},'cnn']}", true},
        {"{'==':[{'var':'model.parameters'},'7e9']}", true},
        {"{'missing':['framework','model.parameters']}", false},
        {"{'some':[{'var':'constraints.providers'},{'==':[{'var':''},'aws']}]}", true},
        {"{'max':[{'var':'model.parameters'},{'var':'training.tokens'}]}", true},
        {"{'var':['nope.deeper','fallback']}", true},
    };
    cJSON *data = q2json(workload);
    assert_non_null(data);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *rule = q2json(cases[i].rule);
        dc_logic *logic = NULL;
        struct dc_logic_stats st = {0, 99, 99, 0};
        bool got = !cases[i].want;
        assert_non_null(rule);
        assert_int_equal(dc_logic_compile(rule, NULL, &logic, NULL), DC_OK);
        assert_int_equal(dc_logic_eval_truthy_stats(logic, data, &st, &got, NULL), DC_OK);
        if (got != cases[i].want || st.allocs != 0)
            printf("FAIL %s: got %d, %zu allocations\n", cases[i].rule, got, st.allocs);
        assert_true(got == cases[i].want);
        assert_int_equal(st.allocs, 0);
        assert_int_equal(st.alloc_bytes, 0);
        assert_true(st.steps > 0);
        dc_logic_free(logic);
        cJSON_Delete(rule);
    }

    /* The counter does see allocations: a merge too big for the stack block. */
    cJSON *rule = q2json("{'merge':[{'var':'constraints.providers'},[1,2,3,4,5,6,7,8],"
                         "[1,2,3,4,5,6,7,8],[1,2,3,4,5,6,7,8],[1,2,3,4,5,6,7,8]]}");
    dc_logic *logic = NULL;
    struct dc_logic_stats st = {0, 0, 0, 0};
    bool got = false;
    assert_int_equal(dc_logic_compile(rule, NULL, &logic, NULL), DC_OK);
    assert_int_equal(dc_logic_eval_truthy_stats(logic, data, &st, &got, NULL), DC_OK);
    assert_true(got);
    assert_true(st.allocs >= 1);
    assert_true(st.alloc_bytes > 0);
    dc_logic_free(logic);
    cJSON_Delete(rule);
    cJSON_Delete(data);
}

/* ---- out of memory ------------------------------------------------------------ */

/* Fail the k-th allocation for k = 1, 2, ... until the call succeeds: every
 * failure must be DC_ENOMEM, leave *out untouched-NULL and leak nothing. */
static void test_out_of_memory_arena(void **state)
{
    (void)state;
    cJSON *rule = q2json(
        "{'and':[{'var':'a.b'},{'missing':['x','y','a.b']},{'missing_some':[1,['p','q']]},"
        "{'cat':[{'var':'s'},'-',1.5,[1,[2,null]]]},{'substr':[{'var':'s'},1,1]},"
        "{'merge':[{'var':'arr'},[1,2],3]},{'map':[{'var':'arr'},{'cat':[{'var':''},'x']}]},"
        "{'filter':[{'var':'arr'},true]},{'reduce':[{'var':'arr'},{'var':''},0]},"
        "{'==':[[1,2],'1,2']},{'<':[['b'],['c']]},{'in':[[1],'x1y']},{'var':[['a','b'],'dflt']},"
        "[{'var':'s'}],{'if':[true,{'k':1,'j':2},0]},'end']}");
    cJSON *data = q2json("{'a':{'b':1},'s':'x\\ud83d\\ude00y','arr':[1,2,3,4,5,6,7,8,9,10,11,12,"
                         "13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34]}");
    dc_logic *logic = NULL;
    enum dc_status rc = DC_ENOMEM;
    size_t failures = 0;
    for (size_t k = 1; rc != DC_OK; k++) {
        struct dc_logic_stats st = {k, 0, 0, 0};
        struct dc_error err;
        rc = dc_logic_compile_stats(rule, NULL, &st, &logic, &err);
        if (rc != DC_OK) {
            assert_int_equal(rc, DC_ENOMEM);
            assert_int_equal(err.code, DC_ENOMEM);
            assert_null(logic);
            failures++;
        }
    }
    assert_true(failures >= 2); /* the program and at least one arena chunk */

    rc = DC_ENOMEM;
    failures = 0;
    for (size_t k = 1; rc != DC_OK; k++) {
        struct dc_logic_stats st = {k, 0, 0, 0};
        struct dc_error err;
        bool b = true;
        rc = dc_logic_eval_truthy_stats(logic, data, &st, &b, &err);
        if (rc != DC_OK) {
            assert_int_equal(rc, DC_ENOMEM);
            assert_false(b);
            failures++;
        } else {
            assert_true(b);
        }
    }
    assert_true(failures >= 1);
    dc_logic_free(logic);
    cJSON_Delete(rule);
    cJSON_Delete(data);
}

/* cJSON's allocations (copies of constant objects, the result tree) fail
 * through a hook. Test-only state: the test runs on one thread. */
static size_t cjson_budget;

static void *failing_malloc(size_t size)
{
    if (cjson_budget == 0)
        return NULL;
    cjson_budget--;
    return malloc(size);
}

static void test_out_of_memory_cjson(void **state)
{
    (void)state;
    cJSON_Hooks hooks = {failing_malloc, free};
    cJSON *rule = q2json("[{'var':'o'},'str',{'substr':['abcdef',1,2]},[1,2],{'k':[1],'j':2},"
                         "{'reduce':[[1],{'var':''},0]},{'merge':[[[null,true]]]}]");
    cJSON *data = q2json("{'o':{'deep':[1,'two',{'three':3}]}}");
    dc_logic *logic = NULL;
    cJSON *out = NULL;
    enum dc_status rc = DC_ENOMEM;
    size_t failures = 0;
    for (size_t k = 0; rc != DC_OK; k++) {
        cjson_budget = k;
        cJSON_InitHooks(&hooks);
        rc = dc_logic_compile(rule, NULL, &logic, NULL);
        cJSON_InitHooks(NULL);
        if (rc != DC_OK) {
            assert_int_equal(rc, DC_ENOMEM);
            assert_null(logic);
            failures++;
        }
    }
    assert_true(failures >= 2); /* the objects list and the copy of {'k':..,'j':..} */
    rc = DC_ENOMEM;
    failures = 0;
    for (size_t k = 0; rc != DC_OK; k++) {
        struct dc_error err;
        cjson_budget = k;
        cJSON_InitHooks(&hooks);
        rc = dc_logic_eval(logic, data, &out, &err);
        cJSON_InitHooks(NULL);
        if (rc != DC_OK) {
            assert_int_equal(rc, DC_ENOMEM);
            assert_null(out);
            failures++;
        }
    }
    assert_true(failures > 10);
    cJSON *want = q2json("[{'deep':[1,'two',{'three':3}]},'str','bc',[1,2],{'k':[1],'j':2},"
                         "{'current':1,'accumulator':0},[[null,true]]]");
    assert_true(json_equal(out, want));
    cJSON_Delete(want);
    cJSON_Delete(out);
    dc_logic_free(logic);
    cJSON_Delete(rule);
    cJSON_Delete(data);
}

/* ---- reentrancy --------------------------------------------------------------- */

struct worker {
    const dc_logic *cond;
    const dc_logic *built;
    const cJSON *data;
    bool want;
    const char *want_built;
    int iterations;
    int failures;
};

static void *work(void *arg)
{
    struct worker *w = arg;
    for (int i = 0; i < w->iterations; i++) {
        bool got = !w->want;
        if (dc_logic_eval_truthy(w->cond, w->data, &got, NULL) != DC_OK || got != w->want)
            w->failures++;
        cJSON *out = NULL;
        if (dc_logic_eval(w->built, w->data, &out, NULL) != DC_OK || !cJSON_IsString(out) ||
            strcmp(out->valuestring, w->want_built) != 0)
            w->failures++;
        cJSON_Delete(out);
    }
    return NULL;
}

static void test_two_threads(void **state)
{
    (void)state;
    cJSON *cond = q2json("{'and':[{'>':[{'var':'model.parameters'},1e9]},"
                         "{'in':[{'var':'framework'},['jax','tensorflow']]},"
                         "{'!':{'var':'model.custom_ops'}}]}");
    cJSON *built =
        q2json("{'reduce':[{'map':[{'var':'xs'},{'cat':[{'var':''},'-']}]},"
               "{'cat':[{'var':'accumulator'},{'var':'current'}]},{'var':'framework'}]}");
    cJSON *d1 = q2json("{'framework':'jax','model':{'parameters':7e9,'custom_ops':false},"
                       "'xs':[1,2,3]}");
    cJSON *d2 = q2json("{'framework':'pytorch','model':{'parameters':7e9,'custom_ops':false},"
                       "'xs':['a','b']}");
    dc_logic *c = NULL;
    dc_logic *b = NULL;
    assert_int_equal(dc_logic_compile(cond, NULL, &c, NULL), DC_OK);
    assert_int_equal(dc_logic_compile(built, NULL, &b, NULL), DC_OK);
    struct worker w[2] = {
        {c, b, d1, true, "jax1-2-3-", 20000, 0},
        {c, b, d2, false, "pytorcha-b-", 20000, 0},
    };
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    assert_int_equal(w[0].failures, 0);
    assert_int_equal(w[1].failures, 0);
    dc_logic_free(c);
    dc_logic_free(b);
    cJSON_Delete(cond);
    cJSON_Delete(built);
    cJSON_Delete(d1);
    cJSON_Delete(d2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compile_errors),      cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_depth_limit),         cmocka_unit_test(test_node_limit),
        cmocka_unit_test(test_step_limit),          cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_foreach_var),         cmocka_unit_test(test_zero_allocations),
        cmocka_unit_test(test_out_of_memory_arena), cmocka_unit_test(test_out_of_memory_cjson),
        cmocka_unit_test(test_two_threads),         cmocka_unit_test(test_var_cache),
    };
    return cmocka_run_group_tests_name("logic_limits", tests, NULL, NULL);
}
