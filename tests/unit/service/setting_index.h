/* tests/unit/service/setting_index.h -- the index of a setting of
 * service/src/config.c by its name, for the configuration tests (include after
 * cmocka.h). */
#ifndef AA_TEST_SETTING_INDEX_H
#define AA_TEST_SETTING_INDEX_H

#include <string.h>

#include "config.h"

/* The index of setting `name`; fails the test when there is none. */
static inline size_t index_of(const char *name)
{
    for (size_t i = 0; i < svc_config_setting_count(); i++) {
        if (strcmp(svc_config_setting_name(i), name) == 0)
            return i;
    }
    fail_msg("no setting %s", name);
    return 0;
}

#endif
