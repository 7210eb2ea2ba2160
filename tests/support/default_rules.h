/* tests/support/default_rules.h -- the shipped rule set (rules/ of the source
 * tree), for the test programs that check what it decides. */
#ifndef AA_TEST_DEFAULT_RULES_H
#define AA_TEST_DEFAULT_RULES_H

#include "dc/ruleset.h"

/* rules/ loaded (owned: dc_ruleset_release), or NULL when it does not load. */
static inline dc_ruleset *test_default_rules(void)
{
    dc_ruleset *rs = NULL;
    struct dc_diags d;
    dc_diags_init(&d);
    enum dc_status rc = dc_ruleset_load_dir(AA_SOURCE_DIR "/rules", &rs, &d);
    dc_diags_cleanup(&d);
    return rc == DC_OK ? rs : NULL;
}

/* cmocka group fixtures for a test file that keeps the shipped rule set in a
 * global `rs`: setup loads it into *rs and the group's state (-1 when it does
 * not load); teardown releases the state's. */
static inline int test_default_rules_setup(dc_ruleset **rs, void **state)
{
    *rs = test_default_rules();
    *state = *rs;
    return *rs != NULL ? 0 : -1;
}

static inline int test_default_rules_teardown(void **state)
{
    dc_ruleset_release(*state);
    return 0;
}

#endif
