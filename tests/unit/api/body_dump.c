/* tests/unit/api/body_dump.c -- every recommendation body of the decision
 * table, written for the byte-identity test (tests/unit/api/extra.cmake,
 * body_identical.sh): for each workload of CASES_JSON, its name, then on one
 * line each the full body, the full body of the first two candidates without
 * the frontier, and the summary body with the frontier. Built twice: with the
 * fast writer (the product) and with reference_fmt.c, which formats every
 * number and text with the printf family as the writer did before it (the
 * reference). The same program, rules and workloads, so any byte that
 * differs is the writer's.
 *
 *   body_dump CASES_JSON > out */
#include <stdio.h>
#include <stdlib.h>

#include "api/convert.h"
#include "dc/embedded.h"
#include "dc/engine.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *p = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[65536];
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            char *q = realloc(p, cap);
            if (q == NULL) {
                free(p);
                fclose(f);
                return NULL;
            }
            p = q;
        }
        for (size_t i = 0; i < n; i++)
            p[len + i] = chunk[i];
        len += n;
    }
    fclose(f);
    if (p != NULL)
        p[len] = '\0';
    return p;
}

static int put_body(const struct dc_result *res, const struct api_view *v)
{
    size_t len = 0;
    char *body = api_result_render_view(res, NULL, v, &len);
    if (body == NULL)
        return 1;
    fwrite(body, 1, len, stdout);
    putchar('\n');
    free(body);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: body_dump CASES_JSON\n");
        return 2;
    }
    char *text = slurp(argv[1]);
    cJSON *cases = text != NULL ? cJSON_Parse(text) : NULL;
    free(text);
    dc_ruleset *rs = NULL;
    if (cases == NULL || dc_ruleset_load_embedded(aa_embedded_files, &rs, NULL) != DC_OK) {
        fprintf(stderr, "body_dump: cannot read %s or the embedded rules\n", argv[1]);
        return 2;
    }
    static const struct api_view top2 = {false, 2, API_FRONTIER_OFF};
    static const struct api_view summary = {true, 0, API_FRONTIER_ON};
    int rc = 0, n = 0;
    const cJSON *c = NULL;
    cJSON_ArrayForEach(c, cases)
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(c, "name"));
        struct dc_recommend_opts o = {.request_id = "body-dump"};
        struct dc_result *res = NULL;
        printf("%s\n", name != NULL ? name : "(unnamed)");
        if (dc_recommend(rs, cJSON_GetObjectItem(c, "workload"), &o, &res, NULL) != DC_OK) {
            printf("(no result)\n");
            continue;
        }
        rc |= put_body(res, NULL) | put_body(res, &top2) | put_body(res, &summary);
        dc_result_free(res);
        n++;
    }
    cJSON_Delete(cases);
    dc_ruleset_release(rs);
    fprintf(stderr, "body_dump: %d workloads\n", n);
    return rc != 0 || n == 0 ? 1 : 0;
}
