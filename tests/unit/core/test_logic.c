/* tests/unit/core/test_logic.c -- the JSONLogic evaluator (core/src/logic/):
 * every operator, JavaScript coercions and dc_logic_eval_truthy. Its errors,
 * limits and the rest are in test_logic_limits.c.
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
#include "logic_q.h"

/* ---- helpers ----------------------------------------------------------------- */

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truthiness),    cmocka_unit_test(test_equality),
        cmocka_unit_test(test_order),         cmocka_unit_test(test_logic_ops),
        cmocka_unit_test(test_arithmetic),    cmocka_unit_test(test_var),
        cmocka_unit_test(test_var_null_data), cmocka_unit_test(test_missing),
        cmocka_unit_test(test_strings),       cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_passthrough),   cmocka_unit_test(test_eval_truthy),
    };
    return cmocka_run_group_tests_name("logic", tests, NULL, NULL);
}
