/* tests/unit/service/test_routes.c -- the server's route table
 * (service/src/http.c) against the contract (openapi.yaml, as compiled into
 * the binary): every path of the contract is a route with exactly the
 * contract's methods (GET brings HEAD, every route answers OPTIONS), and every
 * route is a path of the contract, but for the playground's assets, which the
 * contract names under "/" ("the page's own files are under /ui/"). A new
 * endpoint therefore fails here until both sides have it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "api/openapi.h"
#include "dc/embedded.h"
#include "http.h"

static api_contract *contract;

static int setup(void **state)
{
    (void)state;
    struct dc_error err;
    dc_error_clear(&err);
    return api_contract_load_embedded(aa_embedded_files, &contract, &err) == DC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    api_contract_free(contract);
    return 0;
}

static const cJSON *paths(void)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(api_contract_root(contract), "paths");
    assert_true(cJSON_IsObject(p));
    return p;
}

/* The methods a route must have for the operations of one path item. */
static unsigned methods_of(const cJSON *item)
{
    static const struct {
        const char *op;
        unsigned bits;
    } ops[] = {
        {"get", SVC_METHOD_BIT(SVC_METHOD_GET) | SVC_METHOD_BIT(SVC_METHOD_HEAD)},
        {"head", SVC_METHOD_BIT(SVC_METHOD_HEAD)},
        {"post", SVC_METHOD_BIT(SVC_METHOD_POST)},
        {"options", 0},
    };
    unsigned m = SVC_METHOD_BIT(SVC_METHOD_OPTIONS);
    for (const cJSON *op = item->child; op != NULL; op = op->next) {
        bool known = false;
        for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
            if (strcmp(op->string, ops[i].op) == 0) {
                m |= ops[i].bits;
                known = true;
            }
        }
        /* put, delete, patch, ...: the server has no such method. */
        if (!known && strcmp(op->string, "parameters") != 0 && strcmp(op->string, "summary") != 0 &&
            strcmp(op->string, "description") != 0)
            fail_msg("%s: operation %s the server cannot route", item->string, op->string);
    }
    return m;
}

static void test_every_contract_path_is_a_route(void **state)
{
    (void)state;
    size_t n = 0;
    for (const cJSON *item = paths()->child; item != NULL; item = item->next, n++) {
        enum svc_route r = svc_route_match(item->string);
        if (r == SVC_ROUTE_UNMATCHED || r == SVC_ROUTE_ASSET)
            fail_msg("the contract's path %s has no route", item->string);
        assert_string_equal(svc_route_label(r), item->string);
        if (svc_route_methods(r) != methods_of(item))
            fail_msg("%s: the route's methods 0x%x differ from the contract's 0x%x", item->string,
                     svc_route_methods(r), methods_of(item));
    }
    assert_true(n > 0);
}

static void test_every_route_is_a_contract_path(void **state)
{
    (void)state;
    for (int r = 0; r < SVC_ROUTE_UNMATCHED; r++) {
        const char *label = svc_route_label((enum svc_route)r);
        if (r == SVC_ROUTE_ASSET) {
            /* The assets are the page's: the contract says where they are. */
            const cJSON *root = cJSON_GetObjectItemCaseSensitive(paths(), "/");
            const cJSON *get = cJSON_GetObjectItemCaseSensitive(root, "get");
            const cJSON *d = cJSON_GetObjectItemCaseSensitive(get, "description");
            assert_true(cJSON_IsString(d));
            assert_non_null(strstr(d->valuestring, SVC_ASSET_PREFIX));
            continue;
        }
        if (cJSON_GetObjectItemCaseSensitive(paths(), label) == NULL)
            fail_msg("the route %s is not a path of the contract", label);
    }
    /* And an unknown path is no route. */
    assert_int_equal(svc_route_match("/v1/unknown"), SVC_ROUTE_UNMATCHED);
    assert_int_equal(svc_route_match("/v1/recommendations/"), SVC_ROUTE_UNMATCHED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_contract_path_is_a_route),
        cmocka_unit_test(test_every_route_is_a_contract_path),
    };
    return cmocka_run_group_tests_name("routes", tests, setup, teardown);
}
