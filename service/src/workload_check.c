/* service/src/workload_check.c -- the server's and the CLI's one check of a
 * workload (workload_check.h). */
#include "workload_check.h"

#include "dc/engine.h"

enum svc_workload_verdict svc_workload_check_schema(const api_schema *schema, const cJSON *doc,
                                                    size_t max_errors, struct api_schema_result *vr,
                                                    struct dc_error *err)
{
    dc_error_clear(err);
    if (api_schema_validate(schema, doc, max_errors, vr, err) != DC_OK)
        return SVC_WORKLOAD_ERROR;
    return vr->valid ? SVC_WORKLOAD_VALID : SVC_WORKLOAD_SCHEMA;
}

enum svc_workload_verdict svc_workload_check(const api_schema *schema, const dc_ruleset *rs,
                                             const cJSON *doc, size_t max_errors,
                                             struct api_schema_result *vr, struct dc_error *err)
{
    enum svc_workload_verdict v = svc_workload_check_schema(schema, doc, max_errors, vr, err);
    if (v != SVC_WORKLOAD_VALID)
        return v;
    /* The parsed form is only looked at, never kept: the recommendation reads
     * the document again (dc_recommend), with the same rule set. */
    struct dc_workload w;
    enum dc_status rc = dc_workload_parse(rs, doc, &w, err);
    if (rc == DC_OK)
        return SVC_WORKLOAD_VALID;
    return rc == DC_EINVAL ? SVC_WORKLOAD_INVALID : SVC_WORKLOAD_ERROR;
}
