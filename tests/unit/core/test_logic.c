/* tests/unit/core/test_logic.c -- the JSONLogic evaluator (core/src/logic/):
 * every operator, JavaScript coercions, every error path, limits,
 * dc_logic_foreach_var, zero allocations on the common path, and two threads
 * evaluating one compiled rule.
 *
 * Rules and data in the tables are JSON written with single quotes (no
 * escaping in C); q2json() turns them into JSON. An expected result may also
 * be NaN, Infinity or -Infinity, which JSON cannot spell. */
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

/* ---- helpers ----------------------------------------------------------------- */

/* Parse single-quoted JSON; NULL text means no data (NULL). */
static cJSON *q2json(const char *text)
{
    if (text == NULL)
        return NULL;
    size_t len = strlen(text);
    char *buf = malloc(len + 1);
    assert_non_null(buf);
    for (size_t i = 0; i <= len; i++)
        buf[i] = text[i] == '\'' ? '"' : text[i];
    cJSON *j = cJSON_Parse(buf);
    free(buf);
    return j;
}

static bool json_equal(const cJSON *a, const cJSON *b)
{
    if (cJSON_IsBool(a) || cJSON_IsBool(b))
        return cJSON_IsBool(a) && cJSON_IsBool(b) && cJSON_IsTrue(a) == cJSON_IsTrue(b);
    if ((a->type & 0xFF) != (b->type & 0xFF))
        return false;
    if (cJSON_IsNumber(a))
        return a->valuedouble == b->valuedouble;
    if (cJSON_IsString(a))
        return strcmp(a->valuestring, b->valuestring) == 0;
    if (cJSON_IsArray(a) || cJSON_IsObject(a)) {
        if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
            return false;
        const cJSON *y = b->child;
        for (const cJSON *x = a->child; x != NULL; x = x->next, y = y->next) {
            const cJSON *other =
                cJSON_IsObject(a) ? cJSON_GetObjectItemCaseSensitive(b, x->string) : y;
            if (other == NULL || !json_equal(x, other))
                return false;
        }
    }
    return true;
}

/* Compile and evaluate; returns the status and the result in *out. */
static enum dc_status run(const char *rule_q, const char *data_q, cJSON **out, struct dc_error *err)
{
    cJSON *rule = q2json(rule_q);
    cJSON *data = q2json(data_q);
    dc_logic *logic = NULL;
    assert_non_null(rule);
    if (data_q != NULL)
        assert_non_null(data);
    enum dc_status rc = dc_logic_compile(rule, NULL, &logic, err);
    cJSON_Delete(rule); /* the program must not refer to the rule any more */
    if (rc == DC_OK)
        rc = dc_logic_eval(logic, data, out, err);
    dc_logic_free(logic);
    cJSON_Delete(data);
    return rc;
}

struct eval_case {
    const char *rule;
    const char *data; /* NULL: no data */
    const char *expect;
};

static bool check_case(const struct eval_case *c)
{
    struct dc_error err;
    cJSON *got = NULL;
    bool ok = false;
    dc_error_clear(&err);
    enum dc_status rc = run(c->rule, c->data, &got, &err);
    if (rc != DC_OK) {
        printf("FAIL %s with %s: %s %s %s\n", c->rule, c->data ? c->data : "(none)",
               dc_status_name(rc), err.where, err.msg);
        return false;
    }
    if (strcmp(c->expect, "NaN") == 0) {
        ok = cJSON_IsNumber(got) && isnan(got->valuedouble);
    } else if (strcmp(c->expect, "Infinity") == 0 || strcmp(c->expect, "-Infinity") == 0) {
        ok = cJSON_IsNumber(got) && isinf(got->valuedouble) &&
             (got->valuedouble < 0) == (c->expect[0] == '-');
    } else {
        cJSON *want = q2json(c->expect);
        assert_non_null(want);
        ok = json_equal(got, want);
        cJSON_Delete(want);
    }
    if (!ok) {
        char *g = cJSON_PrintUnformatted(got);
        printf("FAIL %s with %s: got %s (%g), want %s\n", c->rule, c->data ? c->data : "(none)", g,
               cJSON_IsNumber(got) ? got->valuedouble : 0.0, c->expect);
        cJSON_free(g);
    }
    cJSON_Delete(got);
    return ok;
}

static void run_table(const struct eval_case *cases, size_t n)
{
    size_t failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (!check_case(&cases[i]))
            failed++;
    }
    assert_int_equal(failed, 0);
}

#define RUN_TABLE(t) run_table((t), sizeof(t) / sizeof((t)[0]))

/* ---- operators ----------------------------------------------------------------- */

static const struct eval_case truthiness_cases[] = {
    {"{'!!':[[]]}", NULL, "false"},
    {"{'!!':[[0]]}", NULL, "true"},
    {"{'!!':['0']}", NULL, "true"},
    {"{'!!':['']}", NULL, "false"},
    {"{'!!':[null]}", NULL, "false"},
    {"{'!!':[0]}", NULL, "false"},
    {"{'!!':[-0.0]}", NULL, "false"},
    {"{'!!':[{}]}", NULL, "true"},
    {"{'!!':{'var':'o'}}", "{'o':{}}", "true"},
    {"{'!!':{'/':[0,0]}}", NULL, "false"},
    {"{'!':{'var':'a'}}", "{'a':[]}", "true"},
    {"{'!':[{'var':'a'}]}", "{'a':[1]}", "false"},
    {"{'!!':{'var':'missing'}}", "{}", "false"},
};

static void test_truthiness(void **state)
{
    (void)state;
    RUN_TABLE(truthiness_cases);
}

static const struct eval_case equality_cases[] = {
    /* null equals only null */
    {"{'==':[null,null]}", NULL, "true"},
    {"{'==':[null,0]}", NULL, "false"},
    {"{'==':[null,false]}", NULL, "false"},
    {"{'==':[null,'']}", NULL, "false"},
    {"{'==':[{'var':'x'},null]}", "{}", "true"},
    {"{'!=':[null,false]}", NULL, "true"},
    /* booleans compare as numbers */
    {"{'==':[0,false]}", NULL, "true"},
    {"{'==':[1,true]}", NULL, "true"},
    {"{'==':[2,true]}", NULL, "false"},
    {"{'==':['',false]}", NULL, "true"},
    {"{'==':['0',false]}", NULL, "true"},
    {"{'==':['1',true]}", NULL, "true"},
    {"{'==':['true',true]}", NULL, "false"},
    {"{'==':[true,true]}", NULL, "true"},
    /* strings meeting numbers become numbers (StringToNumber) */
    {"{'==':['',0]}", NULL, "true"},
    {"{'==':[' 1 ',1]}", NULL, "true"},
    {"{'==':['\\t1\\n',1]}", NULL, "true"},
    {"{'==':['\\u00a01\\u3000',1]}", NULL, "true"},
    {"{'==':['1e3',1000]}", NULL, "true"},
    {"{'==':['.5',0.5]}", NULL, "true"},
    {"{'==':['5.',5]}", NULL, "true"},
    {"{'==':['0x10',16]}", NULL, "true"},
    {"{'==':['0b101',5]}", NULL, "true"},
    {"{'==':['0o17',15]}", NULL, "true"},
    {"{'==':['-0x10',-16]}", NULL, "false"},
    {"{'==':['Infinity',{'/':[1,0]}]}", NULL, "true"},
    {"{'==':['-Infinity',{'/':[-1,0]}]}", NULL, "true"},
    {"{'==':['inf',{'/':[1,0]}]}", NULL, "false"},
    {"{'==':['abc',0]}", NULL, "false"},
    {"{'==':['12px',12]}", NULL, "false"},
    {"{'==':['1_000',1000]}", NULL, "false"},
    {"{'==':['00012',12]}", NULL, "true"},
    {"{'==':['0.000000000000000000000000000000000000000000000000000000000000000000000001',1e-72]}",
     NULL, "true"},
    {"{'==':['100000000000000000000000000000000000000000000000000000000000000000000000000000000000'"
     ",1e83]}",
     NULL, "true"},
    /* arrays and objects meeting primitives become their string */
    {"{'==':[[],false]}", NULL, "true"},
    {"{'==':[[],0]}", NULL, "true"},
    {"{'==':[[],'']}", NULL, "true"},
    {"{'==':[[1],1]}", NULL, "true"},
    {"{'==':[[1],true]}", NULL, "true"},
    {"{'==':[[[1]],1]}", NULL, "true"},
    {"{'==':[[1,2],'1,2']}", NULL, "true"},
    {"{'==':[[1,[2,null]],'1,2,']}", NULL, "true"},
    {"{'==':[[null],'']}", NULL, "true"},
    {"{'==':[[1,2],1]}", NULL, "false"},
    {"{'==':[{'var':'o'},'[object Object]']}", "{'o':{'k':1}}", "true"},
    {"{'==':[{'var':'a'},null]}", "{'a':[]}", "false"},
    /* objects by identity */
    {"{'==':[[1],[1]]}", NULL, "false"},
    {"{'==':[{'var':'a'},{'var':'a'}]}", "{'a':[1]}", "true"},
    {"{'==':[{'var':'a'},{'var':'b'}]}", "{'a':[1],'b':[1]}", "false"},
    {"{'===':[{'var':'a'},{'var':'a'}]}", "{'a':{'x':1}}", "true"},
    {"{'===':[[],[]]}", NULL, "false"},
    {"{'===':[{'merge':[]},{'merge':[]}]}", NULL, "false"},
    {"{'==':[{'missing':[]},{'missing':[]}]}", NULL, "false"},
    {"{'reduce':[[1],{'===':[{'var':'accumulator'},{'var':'accumulator'}]},{'merge':[]}]}", NULL,
     "true"},
    {"{'reduce':[[1],{'===':[{'var':''},{'var':''}]},0]}", NULL, "true"},
    /* strict */
    {"{'===':[1,1.0]}", NULL, "true"},
    {"{'===':[0,-0.0]}", NULL, "true"},
    {"{'===':[null,null]}", NULL, "true"},
    {"{'===':['a','a']}", NULL, "true"},
    {"{'===':['a','ab']}", NULL, "false"},
    {"{'===':[true,1]}", NULL, "false"},
    {"{'!==':['1',1]}", NULL, "true"},
    {"{'!==':[{'/':[0,0]},{'/':[0,0]}]}", NULL, "true"},
    {"{'==':[{'/':[0,0]},{'/':[0,0]}]}", NULL, "false"},
    {"{'==':['a','a']}", NULL, "true"},
    {"{'!=':['a','b']}", NULL, "true"},
};

static void test_equality(void **state)
{
    (void)state;
    RUN_TABLE(equality_cases);
}

static const struct eval_case order_cases[] = {
    {"{'<':['a','b']}", NULL, "true"},
    {"{'<':['B','a']}", NULL, "true"},
    {"{'<':['10','9']}", NULL, "true"},
    {"{'<':['10',9]}", NULL, "false"},
    {"{'<':['abc','abcd']}", NULL, "true"},
    {"{'<=':['abc','abc']}", NULL, "true"},
    {"{'>=':['b','abc']}", NULL, "true"},
    {"{'<':[null,1]}", NULL, "true"},
    {"{'>':[null,-1]}", NULL, "true"},
    {"{'<=':[null,0]}", NULL, "true"},
    {"{'<':['abc',1]}", NULL, "false"},
    {"{'>=':['abc',1]}", NULL, "false"},
    {"{'<=':[{'/':[0,0]},1]}", NULL, "false"},
    {"{'<':[[2],3]}", NULL, "true"},
    {"{'<':[[1,2],3]}", NULL, "false"},
    {"{'<':[[10],'9']}", NULL, "true"},
    {"{'<':[[],1]}", NULL, "true"},
    {"{'>':[true,0]}", NULL, "true"},
    {"{'>':[{'var':'o'},'[object']}", "{'o':{}}", "true"},
    {"{'<':[1,2,3]}", NULL, "true"},
    {"{'<':[1,'a',3]}", NULL, "false"},
    {"{'<':[1,2,2]}", NULL, "false"},
    {"{'<=':[1,1,1]}", NULL, "true"},
    {"{'<=':[1,2,1]}", NULL, "false"},
    {"{'<=':[2,1,3]}", NULL, "false"},
    /* UTF-16 order: U+FFFF sorts after U+1F600 (a surrogate pair) */
    {"{'<':['\\uffff','\\ud83d\\ude00']}", NULL, "false"},
    {"{'>':['\\uffff','\\ud83d\\ude00']}", NULL, "true"},
    {"{'<':['\\u00e9','\\uffff']}", NULL, "true"},
    {"{'<':['\\ud83d\\ude00','\\ud83d\\ude01']}", NULL, "true"},
    {"{'>':[{'var':'p'},1e9]}", "{'p':7e9}", "true"},
};

static void test_order(void **state)
{
    (void)state;
    RUN_TABLE(order_cases);
}

static const struct eval_case logic_cases[] = {
    {"{'and':[]}", NULL, "null"},
    {"{'or':[]}", NULL, "null"},
    {"{'or':[0,'',null]}", NULL, "null"},
    {"{'or':[0,[],'x']}", NULL, "'x'"},
    {"{'and':[1,'a',[1]]}", NULL, "[1]"},
    {"{'and':[1,[],2]}", NULL, "[]"},
    {"{'if':[]}", NULL, "null"},
    {"{'?:':[0,1,2]}", NULL, "2"},
    {"{'?:':[[0],1,2]}", NULL, "1"},
    {"{'if':[{'var':'x'},'a',{'var':'y'},'b','c']}", "{'y':1}", "'b'"},
    {"{'if':[{'var':'x'},'a',{'var':'y'},'b','c']}", "{}", "'c'"},
    {"{'if':{'var':'x'}}", "{'x':5}", "5"},
    {"{'!':[[]]}", NULL, "true"},
    {"{'!!':['x']}", NULL, "true"},
};

static void test_logic_ops(void **state)
{
    (void)state;
    RUN_TABLE(logic_cases);
}

static const struct eval_case arith_cases[] = {
    /* + and * read arguments with parseFloat */
    {"{'+':['3px',1]}", NULL, "4"},
    {"{'+':[true,1]}", NULL, "NaN"},
    {"{'+':[null]}", NULL, "NaN"},
    {"{'+':[]}", NULL, "0"},
    {"{'+':['1e2']}", NULL, "100"},
    {"{'+':[' 12 ']}", NULL, "12"},
    {"{'+':[[5]]}", NULL, "5"},
    {"{'+':[['7',2]]}", NULL, "7"},
    {"{'+':[[]]}", NULL, "NaN"},
    {"{'+':['0x10']}", NULL, "0"},
    {"{'+':['.5']}", NULL, "0.5"},
    {"{'+':['-.5e1x']}", NULL, "-5"},
    {"{'+':['1e']}", NULL, "1"},
    {"{'+':['Infinityx']}", NULL, "Infinity"},
    {"{'+':['-Infinity']}", NULL, "-Infinity"},
    {"{'+':['abc']}", NULL, "NaN"},
    {"{'+':['.']}", NULL, "NaN"},
    {"{'+':[{'var':'o'}]}", "{'o':{}}", "NaN"},
    {"{'+':'0'}", NULL, "0"},
    {"{'*':['2','3']}", NULL, "6"},
    {"{'*':['2']}", NULL, "'2'"},
    {"{'*':[2,'3px']}", NULL, "6"},
    {"{'*':[-1,0,5]}", NULL, "0"},
    {"{'*':[2,null]}", NULL, "NaN"},
    /* - / % use ToNumber */
    {"{'-':['5','2']}", NULL, "3"},
    {"{'-':['5px',2]}", NULL, "NaN"},
    {"{'-':[true]}", NULL, "-1"},
    {"{'-':'3'}", NULL, "-3"},
    {"{'-':[null,1]}", NULL, "-1"},
    {"{'-':[[],1]}", NULL, "-1"},
    {"{'-':[['4'],1]}", NULL, "3"},
    {"{'-':['0x10',0]}", NULL, "16"},
    {"{'-':[{'var':'o'},1]}", "{'o':{}}", "NaN"},
    {"{'/':[1,0]}", NULL, "Infinity"},
    {"{'/':[-1,0]}", NULL, "-Infinity"},
    {"{'/':[0,0]}", NULL, "NaN"},
    {"{'/':['6','2']}", NULL, "3"},
    {"{'%':[-3,2]}", NULL, "-1"},
    {"{'%':[5.5,2]}", NULL, "1.5"},
    {"{'%':[1,0]}", NULL, "NaN"},
    {"{'%':['7','4']}", NULL, "3"},
    {"{'%':[7,{'/':[1,0]}]}", NULL, "7"},
    /* min / max: Math.min / Math.max */
    {"{'min':[]}", NULL, "Infinity"},
    {"{'max':[]}", NULL, "-Infinity"},
    {"{'max':[1,'5',3]}", NULL, "5"},
    {"{'max':[1,'x']}", NULL, "NaN"},
    {"{'min':[null,1]}", NULL, "0"},
    {"{'max':[true,0]}", NULL, "1"},
    {"{'max':[[3],2]}", NULL, "3"},
    {"{'min':[{'var':'a'},{'var':'b'}]}", "{'a':4,'b':-2}", "-2"},
    {"{'cat':[{'max':[-0.0,0]}]}", NULL, "'0'"},
};

static void test_arithmetic(void **state)
{
    (void)state;
    RUN_TABLE(arith_cases);
}

static const struct eval_case var_cases[] = {
    {"{'var':'a.0.b'}", "{'a':[{'b':5}]}", "5"},
    {"{'var':'a.length'}", "{'a':[1,2,3]}", "3"},
    {"{'var':'s.length'}", "{'s':'h\\u00e9llo'}", "5"},
    {"{'var':'s.1'}", "{'s':'h\\u00e9llo'}", "'\\u00e9'"},
    {"{'var':'s.length'}", "{'s':'\\ud83d\\ude00'}", "2"},
    {"{'var':'s.0'}", "{'s':'\\ud83d\\ude00'}", "'\\ufffd'"},
    {"{'var':'s.9'}", "{'s':'abc'}", "null"},
    {"{'var':'a.01'}", "{'a':[1,2]}", "null"},
    {"{'var':'a.1'}", "{'a':{'1':'one'}}", "'one'"},
    {"{'var':'a.01'}", "{'a':{'01':'zero-one'}}", "'zero-one'"},
    {"{'var':'a.x'}", "{'a':[1]}", "null"},
    {"{'var':'a.length'}", "{'a':{'length':9}}", "9"},
    {"{'var':['a.5','d']}", "{'a':[1]}", "'d'"},
    {"{'var':['x',1]}", "{'x':null}", "null"},
    {"{'var':['x.y',1]}", "{'x':null}", "1"},
    {"{'var':['x.y',{'+':[1,1]}]}", "{}", "2"},
    {"{'var':1.5}", "[0,[0,1,2,3,4,'five']]", "'five'"},
    {"{'var':0}", "['zero']", "'zero'"},
    {"{'var':true}", "{'true':7}", "7"},
    {"{'var':[['a']]}", "{'a':3}", "3"},
    {"{'var':[['a','b']]}", "{'a,b':4}", "4"},
    {"{'var':''}", "{'a':1}", "{'a':1}"},
    {"{'var':[null,5]}", "null", "null"},
    {"{'var':'a'}", "'abc'", "null"},
    {"{'var':'a.b'}", "{'a.b':1}", "null"},
    {"{'var':'a.'}", "{'a':{'':4}}", "4"},
    {"{'var':'x'}", "null", "null"},
    {"{'var':'x'}", "5", "null"},
    {"{'var':'x'}", "{'x':'\\u00fc'}", "'\\u00fc'"},
    {"{'var':'x'}", "{'x':{'deep':[1,{'k':null}]}}", "{'deep':[1,{'k':null}]}"},
    {"{'var':'x'}", "{'x':1,'x':2}", "1"},
    /* computed paths */
    {"{'var':{'cat':['a','.','b']}}", "{'a':{'b':9}}", "9"},
    {"{'var':[{'+':[1,0]}]}", "[5,6]", "6"},
    {"{'var':[{'var':'k'},'dflt']}", "{'k':'zz'}", "'dflt'"},
    {"{'var':[{'var':'nope'}]}", "{'a':1}", "{'a':1}"},
    {"{'var':[{'cat':['']}]}", "[1]", "[1]"},
    {"{'var':[{'merge':['a','b']}]}", "{'a,b':1}", "1"},
    {"{'var':[{'var':'k'},{'var':'d'}]}", "{'k':'q','d':'dd'}", "'dd'"},
    {"{'var':[{'var':'k'}]}", "{'k':true,'true':'t'}", "'t'"},
};

static void test_var(void **state)
{
    (void)state;
    RUN_TABLE(var_cases);
}

static void test_var_null_data(void **state)
{
    (void)state;
    cJSON *rule = q2json("{'var':'a'}");
    cJSON *whole = q2json("{'var':''}");
    dc_logic *a = NULL;
    dc_logic *w = NULL;
    cJSON *out = NULL;
    assert_int_equal(dc_logic_compile(rule, NULL, &a, NULL), DC_OK);
    assert_int_equal(dc_logic_compile(whole, NULL, &w, NULL), DC_OK);
    assert_int_equal(dc_logic_eval(a, NULL, &out, NULL), DC_OK);
    assert_true(cJSON_IsNull(out));
    cJSON_Delete(out);
    assert_int_equal(dc_logic_eval(w, NULL, &out, NULL), DC_OK);
    assert_true(cJSON_IsNull(out));
    cJSON_Delete(out);
    dc_logic_free(a);
    dc_logic_free(w);
    cJSON_Delete(rule);
    cJSON_Delete(whole);
}

static const struct eval_case missing_cases[] = {
    {"{'missing':['a','b']}", "{'a':'','b':0}", "['a']"},
    {"{'missing':[1]}", "['x','y']", "[]"},
    {"{'missing':[2]}", "['x','y']", "[2]"},
    {"{'missing':[['a','b'],'c']}", "{}", "['a','b']"},
    {"{'missing':{'var':'keys'}}", "{'keys':['a','q'],'a':1}", "['q']"},
    {"{'missing':['a',{'cat':['b']}]}", "{'a':null}", "['a','b']"},
    {"{'missing':[['x',1]]}", "{}", "['x',1]"},
    {"{'missing':[[['x',1]]]}", "{}", "[]"},
    {"{'missing':[[['x','']]]}", "{}", "[['x','']]"},
    {"{'missing':['']}", "{'a':1}", "[]"},
    {"{'missing':'a.b'}", "{'a':{'b':false}}", "[]"},
    {"{'if':[{'missing':['a']},'no','yes']}", "{'a':1}", "'yes'"},
    {"{'reduce':[[1],{'missing':['current','accumulator','x','']},0]}", NULL, "['x']"},
    {"{'missing_some':[0,['a']]}", "{}", "[]"},
    {"{'missing_some':[1,'a']}", "{}", "['a']"},
    {"{'missing_some':[1,'a']}", "{'a':1}", "[]"},
    {"{'missing_some':['1',['a','b']]}", "{'a':1}", "[]"},
    {"{'missing_some':[2,['a','b']]}", "{'a':1}", "['b']"},
    {"{'missing_some':[1,[['a','b'],'c']]}", "{}", "['a','b']"},
    {"{'missing_some':[1,5]}", "{}", "[5]"},
    {"{'missing_some':[1,{'var':'opts'}]}", "{'opts':['x','y'],'y':2}", "[]"},
};

static void test_missing(void **state)
{
    (void)state;
    RUN_TABLE(missing_cases);
}

static const struct eval_case string_cases[] = {
    /* in */
    {"{'in':[1,[1,2]]}", NULL, "true"},
    {"{'in':['1',[1,2]]}", NULL, "false"},
    {"{'in':[1,'a1b']}", NULL, "true"},
    {"{'in':['','abc']}", NULL, "true"},
    {"{'in':['a','']}", NULL, "false"},
    {"{'in':[null,'null']}", NULL, "true"},
    {"{'in':[[1,2],'x1,2y']}", NULL, "true"},
    {"{'in':['x',null]}", NULL, "false"},
    {"{'in':['x',5]}", NULL, "false"},
    {"{'in':['x',{'var':'o'}]}", "{'o':{'x':1}}", "false"},
    {"{'in':[[1],[[1]]]}", NULL, "false"},
    {"{'in':[true,[1,true]]}", NULL, "true"},
    {"{'in':[null,[1,null]]}", NULL, "true"},
    {"{'in':['\\u00e9','caf\\u00e9']}", NULL, "true"},
    {"{'in':[{'var':'f'},['jax','tensorflow']]}", "{'f':'jax'}", "true"},
    {"{'in':[{'var':'f'},['jax','tensorflow']]}", "{'f':'ja'}", "false"},
    {"{'in':[{'var':'f'},{'var':'list'}]}", "{'f':2,'list':[1,2]}", "true"},
    {"{'in':[{'var':'f'},{'var':'list'}]}", "{'f':'b','list':['a','b']}", "true"},
    {"{'in':[{'var':'f'},{'var':'list'}]}", "{'f':'','list':['a','']}", "true"},
    {"{'in':[{'var':'f'},{'var':'list'}]}", "{'f':'ab','list':['a','abc']}", "false"},
    {"{'in':[{'var':'f'},[{'var':'g'},'z']]}", "{'f':3,'g':3}", "true"},
    {"{'in':[{'var':'a'},{'var':'b'}]}", "{'a':'ell','b':'hello'}", "true"},
    /* cat: join(''), JavaScript number formatting */
    {"{'cat':[]}", NULL, "''"},
    {"{'cat':'x'}", NULL, "'x'"},
    {"{'cat':[null]}", NULL, "''"},
    {"{'cat':5}", NULL, "'5'"},
    {"{'cat':[null,'a',true,1.5,[1,[2,null]],{'var':'o'}]}", "{'o':{'k':1}}",
     "'atrue1.51,2,[object Object]'"},
    {"{'cat':[1e21]}", NULL, "'1e+21'"},
    {"{'cat':[2e21]}", NULL, "'2e+21'"},
    {"{'cat':[1e20]}", NULL, "'100000000000000000000'"},
    {"{'cat':[123456789012345680000]}", NULL, "'123456789012345680000'"},
    {"{'cat':[0.1]}", NULL, "'0.1'"},
    {"{'cat':[3.14]}", NULL, "'3.14'"},
    {"{'cat':[-3.14]}", NULL, "'-3.14'"},
    {"{'cat':[1e-7]}", NULL, "'1e-7'"},
    {"{'cat':[1.5e-7]}", NULL, "'1.5e-7'"},
    {"{'cat':[0.000001]}", NULL, "'0.000001'"},
    {"{'cat':[0.0000015]}", NULL, "'0.0000015'"},
    {"{'cat':[-0.0]}", NULL, "'0'"},
    {"{'cat':[1.5e300]}", NULL, "'1.5e+300'"},
    {"{'cat':[-2.5e-10]}", NULL, "'-2.5e-10'"},
    {"{'cat':[123e-20]}", NULL, "'1.23e-18'"},
    {"{'cat':[5e-324]}", NULL, "'5e-324'"},
    {"{'cat':[1.7976931348623157e308]}", NULL, "'1.7976931348623157e+308'"},
    {"{'cat':[9007199254740993]}", NULL, "'9007199254740992'"},
    {"{'cat':[123456.789]}", NULL, "'123456.789'"},
    {"{'cat':[{'+':[0.1,0.2]}]}", NULL, "'0.30000000000000004'"},
    {"{'cat':[{'/':[1,3]}]}", NULL, "'0.3333333333333333'"},
    {"{'cat':[{'/':[1,0]},{'/':[-1,0]},{'/':[0,0]}]}", NULL, "'Infinity-InfinityNaN'"},
    {"{'cat':[{'var':'a'},'-',{'var':'b'}]}", "{'a':'x','b':2}", "'x-2'"},
    /* substr: UTF-16 units, negative start and length */
    {"{'substr':['h\\u00e9llo',1,3]}", NULL, "'\\u00e9ll'"},
    {"{'substr':['a\\ud83d\\ude00b',1,2]}", NULL, "'\\ud83d\\ude00'"},
    {"{'substr':['a\\ud83d\\ude00b',2]}", NULL, "'\\ufffdb'"},
    {"{'substr':['a\\ud83d\\ude00b',0,2]}", NULL, "'a\\ufffd'"},
    {"{'substr':['a\\ud83d\\ude00b',2,1]}", NULL, "'\\ufffd'"},
    {"{'substr':['a\\ud83d\\ude00b',-2,-1]}", NULL, "'\\ufffd'"},
    {"{'substr':[12345,1,2]}", NULL, "'23'"},
    {"{'substr':[12345,1]}", NULL, "'2345'"},
    {"{'substr':['abc',5]}", NULL, "''"},
    {"{'substr':['abc',-10]}", NULL, "'abc'"},
    {"{'substr':['abc',1,-5]}", NULL, "''"},
    {"{'substr':['abc',0,null]}", NULL, "''"},
    {"{'substr':['abc','1']}", NULL, "'bc'"},
    {"{'substr':['abc',0,'-1']}", NULL, "''"},
    {"{'substr':['abc',0,'x']}", NULL, "''"},
    {"{'substr':['abc',1,100]}", NULL, "'bc'"},
    {"{'substr':['abc',null]}", NULL, "'abc'"},
    {"{'substr':[null,0,2]}", NULL, "'nu'"},
    {"{'substr':[[1,2],1]}", NULL, "',2'"},
    {"{'substr':['abc',{'/':[-1,0]}]}", NULL, "'abc'"},
    {"{'substr':['abc',{'/':[1,0]}]}", NULL, "''"},
    {"{'substr':['abcdef',1.9,2.9]}", NULL, "'bc'"},
};

static void test_strings(void **state)
{
    (void)state;
    RUN_TABLE(string_cases);
}

static const struct eval_case array_cases[] = {
    {"{'merge':[[1,[2]],3,null,{'var':'a'}]}", "{'a':[4,5]}", "[1,[2],3,null,4,5]"},
    {"{'merge':[{'var':'o'}]}", "{'o':{'k':1}}", "[{'k':1}]"},
    {"{'map':[[1,2,3],{'*':[{'var':''},2]}]}", NULL, "[2,4,6]"},
    {"{'map':[[1,2],[{'var':''},'x']]}", NULL, "[[1,'x'],[2,'x']]"},
    {"{'map':['abc',1]}", NULL, "[]"},
    {"{'map':[{'var':'xs'},{'var':'n'}]}", "{'xs':[{'n':1},{'n':2}]}", "[1,2]"},
    {"{'filter':[{'var':'xs'},{'var':'ok'}]}", "{'xs':[{'ok':true,'n':1},{'ok':false,'n':2}]}",
     "[{'ok':true,'n':1}]"},
    {"{'filter':[[0,1,2],{'var':''}]}", NULL, "[1,2]"},
    {"{'filter':[[0,''],{'var':''}]}", NULL, "[]"},
    {"{'filter':[{'merge':[[1],[2]]},true]}", NULL, "[1,2]"},
    {"{'reduce':[[1,2,3],{'cat':[{'var':'accumulator'},{'var':'current'}]},'']}", NULL, "'123'"},
    {"{'reduce':[[1,2],{'var':''},0]}", NULL,
     "{'current':2,'accumulator':{'current':1,'accumulator':0}}"},
    {"{'reduce':[[1,2,3],{'+':[{'var':'accumulator'},{'var':'current'}]}]}", NULL, "NaN"},
    {"{'reduce':[{'var':'nope'},1,7]}", "{}", "7"},
    {"{'reduce':[[1,2],{'var':'accumulator'},{'var':'init'}]}", "{'init':5}", "5"},
    {"{'reduce':[[[1,2],[3]],{'merge':[{'var':'accumulator'},{'var':'current'}]},[]]}", NULL,
     "[1,2,3]"},
    {"{'reduce':[{'var':'qs'},{'*':[{'var':'accumulator'},{'var':'current.q'}]},1]}",
     "{'qs':[{'q':2},{'q':3}]}", "6"},
    {"{'all':[[1,2],{'var':''}]}", NULL, "true"},
    {"{'all':[[1,0],{'var':''}]}", NULL, "false"},
    {"{'all':[[],true]}", NULL, "false"},
    {"{'all':['abc',true]}", NULL, "false"},
    {"{'none':[[],true]}", NULL, "true"},
    {"{'none':[[0,''],{'var':''}]}", NULL, "true"},
    {"{'none':[[0,1],{'var':''}]}", NULL, "false"},
    {"{'none':[null,true]}", NULL, "true"},
    {"{'some':[[0,1],{'var':''}]}", NULL, "true"},
    {"{'some':[[0,''],{'var':''}]}", NULL, "false"},
    {"{'some':['abc',true]}", NULL, "false"},
    {"{'some':[{'var':'xs'},{'==':[{'var':'k'},'b']}]}", "{'xs':[{'k':'a'},{'k':'b'}]}", "true"},
    {"{'map':[[[1,2],[3]],{'reduce':[{'var':''},{'+':[{'var':'current'},{'var':'accumulator'}]},0]}"
     "]}",
     NULL, "[3,3]"},
    {"{'log':[{'var':'a'}]}", "{'a':[1]}", "[1]"},
    {"{'log':'x'}", NULL, "'x'"},
};

static void test_arrays(void **state)
{
    (void)state;
    RUN_TABLE(array_cases);
}

static const struct eval_case passthrough_cases[] = {
    {"true", NULL, "true"},
    {"17", NULL, "17"},
    {"'apple'", NULL, "'apple'"},
    {"null", NULL, "null"},
    {"[]", NULL, "[]"},
    {"{}", NULL, "{}"},
    {"{'a':1,'b':[2]}", NULL, "{'a':1,'b':[2]}"},
    {"{'if':[true,{'a':1,'b':2},0]}", NULL, "{'a':1,'b':2}"},
    {"{'if':[true,{},0]}", NULL, "{}"},
    {"[1,{'var':'x'},[{'var':'y'}],{'k':{'var':'not-evaluated'},'j':0}]", "{'x':2,'y':3}",
     "[1,2,[3],{'k':{'var':'not-evaluated'},'j':0}]"},
    {"[[1,2],['a',[true,null]]]", NULL, "[[1,2],['a',[true,null]]]"},
};

static void test_passthrough(void **state)
{
    (void)state;
    RUN_TABLE(passthrough_cases);
}

/* ---- dc_logic_eval_truthy ----------------------------------------------------- */

static void test_eval_truthy(void **state)
{
    (void)state;
    static const struct {
        const char *rule;
        const char *data;
        bool want;
    } cases[] = {
        {"[]", NULL, false},
        {"[0]", NULL, true},
        {"{}", NULL, true},
        {"'0'", NULL, true},
        {"''", NULL, false},
        {"0", NULL, false},
        {"null", NULL, false},
        {"{'var':'a'}", "{'a':[]}", false},
        {"{'var':'a'}", "{'a':{}}", true},
        {"{'missing':['a']}", "{}", true},
        {"{'missing':['a']}", "{'a':1}", false},
        {"{'and':[{'>':[{'var':'model.parameters'},1e9]},"
         "{'in':[{'var':'framework'},['jax','tensorflow']]},{'!':{'var':'model.custom_ops'}}]}",
         "{'framework':'jax','model':{'parameters':7e9,'custom_ops':false}}", true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *rule = q2json(cases[i].rule);
        cJSON *data = q2json(cases[i].data);
        dc_logic *logic = NULL;
        bool got = !cases[i].want;
        assert_int_equal(dc_logic_compile(rule, NULL, &logic, NULL), DC_OK);
        assert_int_equal(dc_logic_eval_truthy(logic, data, &got, NULL), DC_OK);
        if (got != cases[i].want)
            printf("FAIL truthy %s\n", cases[i].rule);
        assert_true(got == cases[i].want);
        dc_logic_free(logic);
        cJSON_Delete(rule);
        cJSON_Delete(data);
    }
}

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
        cmocka_unit_test(test_truthiness),
        cmocka_unit_test(test_equality),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_logic_ops),
        cmocka_unit_test(test_arithmetic),
        cmocka_unit_test(test_var),
        cmocka_unit_test(test_var_null_data),
        cmocka_unit_test(test_missing),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_passthrough),
        cmocka_unit_test(test_eval_truthy),
        cmocka_unit_test(test_compile_errors),
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_node_limit),
        cmocka_unit_test(test_step_limit),
        cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_foreach_var),
        cmocka_unit_test(test_zero_allocations),
        cmocka_unit_test(test_out_of_memory_arena),
        cmocka_unit_test(test_out_of_memory_cjson),
        cmocka_unit_test(test_two_threads),
        cmocka_unit_test(test_var_cache),
    };
    return cmocka_run_group_tests_name("logic", tests, NULL, NULL);
}
