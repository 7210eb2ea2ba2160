/* tests/unit/core/test_vocab.c -- the contract's words for the workload's
 * enums (dc_task_name, dc_deployment_name, dc_objective_name): each is the
 * table parsing reads, in enum order, so a name printed is a name accepted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dc/workload.h"
#include "workload_internal.h"

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(dc_task_name(DC_TASK_TRAINING), "training");
    assert_string_equal(dc_task_name(DC_TASK_FINE_TUNING), "fine-tuning");
    assert_string_equal(dc_task_name(DC_TASK_INFERENCE), "inference");
    assert_string_equal(dc_deployment_name(DC_DEPLOY_CLOUD), "cloud");
    assert_string_equal(dc_deployment_name(DC_DEPLOY_ON_PREM), "on-prem");
    assert_string_equal(dc_deployment_name(DC_DEPLOY_HYBRID), "hybrid");
    assert_string_equal(dc_objective_name(DC_OBJECTIVE_COST), "cost");
    assert_string_equal(dc_objective_name(DC_OBJECTIVE_TIME), "time");
    assert_string_equal(dc_objective_name(DC_OBJECTIVE_BALANCED), "balanced");
    assert_string_equal(dc_task_name((enum dc_task)3), "unknown");
    assert_string_equal(dc_deployment_name((enum dc_deployment) - 1), "unknown");
    assert_string_equal(dc_objective_name((enum dc_objective)7), "unknown");
}

static void test_names_are_the_parsed_values(void **state)
{
    (void)state;
    const char *const *obj = dc__workload_values("/objective");
    const char *const *dep = dc__workload_values("/constraints/deployment");
    assert_non_null(obj);
    assert_non_null(dep);
    for (int i = DC_OBJECTIVE_COST; i <= DC_OBJECTIVE_BALANCED; i++)
        assert_ptr_equal(dc_objective_name((enum dc_objective)i), obj[i]);
    assert_null(obj[DC_OBJECTIVE_BALANCED + 1]);
    for (int i = DC_DEPLOY_CLOUD; i <= DC_DEPLOY_HYBRID; i++)
        assert_ptr_equal(dc_deployment_name((enum dc_deployment)i), dep[i]);
    assert_null(dep[DC_DEPLOY_HYBRID + 1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_names_are_the_parsed_values),
    };
    return cmocka_run_group_tests_name("vocab", tests, NULL, NULL);
}
