/* tests/deploy/test_configmap_swap.c -- the checked-in rules ConfigMap
 * (docker/k8s/configmap.yaml), mounted the way the kubelet mounts a ConfigMap
 * volume, reloads in the real server when it is edited.
 *
 * usage: deploy_configmap_swap BINARY SOURCE_DIR
 *
 * The kubelet's atomic writer (pkg/volume/util/atomic_writer.go) keeps a volume as
 *   DIR/..2026_11_23_10_00_00.000000001/rules.yaml ...   one directory per version
 *   DIR/..data -> ..2026_11_23_10_00_00.000000001        the current version
 *   DIR/rules.yaml -> ..data/rules.yaml ...              what the pod sees
 * and applies an edit by writing a new timestamped directory, creating the link
 * ..data_tmp to it, renaming ..data_tmp over ..data (atomic), adding links for
 * new keys and removing the old directory. This test does exactly that with the
 * ConfigMap's data, starts `accel-advisor serve --rules DIR` on an ephemeral
 * loopback port, and checks GET /v1/rules across edits: a valid edit is served,
 * a broken one is refused while the last good set keeps serving, and a revert
 * comes back to the first version. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>

#include "dc/yaml.h"
#include "harness.h"

static cJSON *g_data; /* the ConfigMap's data: key -> file content */

static int load_configmap(void)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/docker/k8s/configmap.yaml", h_source_dir);
    size_t len = 0;
    char *text = read_file(path, &len);
    if (text == NULL) {
        fprintf(stderr, "cannot read %s\n", path);
        return -1;
    }
    dc_yaml_doc *doc = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    int rc = -1;
    if (dc_yaml_parse(text, len, path, &doc, &err) != DC_OK) {
        fprintf(stderr, "%s: %s\n", err.where, err.msg);
    } else {
        cJSON *root = dc_yaml_take_root(doc);
        cJSON *data = cJSON_DetachItemFromObjectCaseSensitive(root, "data");
        cJSON_Delete(root);
        if (cJSON_IsObject(data) && data->child != NULL) {
            g_data = data;
            rc = 0;
        } else {
            cJSON_Delete(data);
            fprintf(stderr, "%s: no data\n", path);
        }
    }
    dc_yaml_doc_free(doc);
    free(text);
    return rc;
}

/* One kubelet update of the volume at `dir` to `data` (a new generation named
 * `gen`); `old` (may be NULL) is the generation to remove afterwards. */
static void kubelet_write(const char *dir, const char *gen, const cJSON *data, const char *old)
{
    char path[2048], link[2048];
    snprintf(path, sizeof(path), "%s/%s", dir, gen);
    assert_int_equal(mkdir(path, 0755), 0);
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, data)
    {
        assert_true(cJSON_IsString(it));
        snprintf(path, sizeof(path), "%s/%s/%s", dir, gen, it->string);
        assert_int_equal(write_file(path, it->valuestring, strlen(it->valuestring)), 0);
        assert_int_equal(chmod(path, 0644), 0);
    }
    snprintf(link, sizeof(link), "%s/..data_tmp", dir);
    assert_int_equal(symlink(gen, link), 0);
    snprintf(path, sizeof(path), "%s/..data", dir);
    assert_int_equal(rename(link, path), 0);
    cJSON_ArrayForEach(it, data)
    {
        char target[512];
        snprintf(path, sizeof(path), "%s/%s", dir, it->string);
        snprintf(target, sizeof(target), "..data/%s", it->string);
        struct stat st;
        if (lstat(path, &st) != 0)
            assert_int_equal(symlink(target, path), 0);
    }
    if (old != NULL) {
        snprintf(path, sizeof(path), "%s/%s", dir, old);
        remove_tree(path);
        struct stat st;
        assert_int_not_equal(lstat(path, &st), 0);
    }
}

struct rules_view {
    char version[80];
    int count;
    bool has_added;
    char origin[1024];
};

#define ADDED_RULE_ID "deploy-configmap-edit"

static bool get_rules(struct server *s, struct rules_view *v)
{
    struct resp r;
    memset(v, 0, sizeof(*v));
    if (http_get(s, "/v1/rules", &r) != 0)
        return false;
    bool ok = false;
    cJSON *j = resp_json(&r);
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(j, "rules_version");
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(j, "count");
    const cJSON *origin = cJSON_GetObjectItemCaseSensitive(j, "origin");
    const cJSON *rules = cJSON_GetObjectItemCaseSensitive(j, "rules");
    if (r.status == 200 && cJSON_IsString(ver) && cJSON_IsNumber(count) && cJSON_IsArray(rules)) {
        snprintf(v->version, sizeof(v->version), "%s", ver->valuestring);
        snprintf(v->origin, sizeof(v->origin), "%s",
                 cJSON_IsString(origin) ? origin->valuestring : "");
        v->count = count->valueint;
        const cJSON *rule = NULL;
        cJSON_ArrayForEach(rule, rules)
        {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(rule, "id");
            if (cJSON_IsString(id) && strcmp(id->valuestring, ADDED_RULE_ID) == 0)
                v->has_added = true;
        }
        ok = true;
    }
    cJSON_Delete(j);
    resp_free(&r);
    return ok;
}

/* Poll GET /v1/rules until its version differs from `from`; false on timeout. */
static bool wait_new_version(struct server *s, const char *from, struct rules_view *v,
                             int timeout_ms)
{
    for (int waited = 0; waited <= timeout_ms; waited += 50) {
        if (get_rules(s, v) && strcmp(v->version, from) != 0)
            return true;
        h_sleep_ms(50);
    }
    return false;
}

/* The embedded rule set's version, from `BINARY version`. */
static void embedded_version(char *out, size_t len)
{
    char cmd[4200], line[512];
    snprintf(cmd, sizeof(cmd), "'%s' version", h_binary);
    FILE *fp = popen(cmd, "r");
    assert_non_null(fp);
    out[0] = '\0';
    while (fgets(line, sizeof(line), fp) != NULL) {
        const char *p = strstr(line, "embedded rules ");
        if (p != NULL)
            snprintf(out, len, "%.64s", p + strlen("embedded rules "));
    }
    assert_int_equal(pclose(fp), 0);
    assert_int_equal(strlen(out), 64);
}

static cJSON *edited(const char *append)
{
    cJSON *d = cJSON_Duplicate(g_data, true);
    cJSON *r = cJSON_GetObjectItemCaseSensitive(d, "rules.yaml");
    assert_true(cJSON_IsString(r));
    size_t a = strlen(r->valuestring), b = strlen(append);
    char *v = malloc(a + b + 1);
    assert_non_null(v);
    memcpy(v, r->valuestring, a);
    memcpy(v + a, append, b + 1);
    assert_non_null(cJSON_SetValuestring(r, v));
    free(v);
    return d;
}

static void test_configmap_edits_reload(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    assert_non_null(dir);
    const char *g1 = "..2026_11_23_10_00_00.000000001";
    const char *g2 = "..2026_11_23_10_05_00.000000002";
    const char *g3 = "..2026_11_23_10_10_00.000000003";
    const char *g4 = "..2026_11_23_10_15_00.000000004";
    kubelet_write(dir, g1, g_data, NULL);

    const char *const args[] = {"--rules", dir, "--rules-debounce-ms", "100", NULL};
    struct server s;
    assert_int_equal(server_start(&s, args), 0);
    assert_true(server_log_wait(&s, 0, "\"event\":\"rules_watch\"", HANG_MS));

    /* Generation 1: the checked-in ConfigMap is rules/, the embedded default. */
    struct rules_view v1, v2, v3, v4;
    assert_true(get_rules(&s, &v1));
    char emb[80];
    embedded_version(emb, sizeof(emb));
    assert_string_equal(v1.version, emb);
    assert_string_equal(v1.origin, dir);
    assert_false(v1.has_added);

    /* Generation 2: an edit that adds a rule is picked up without a restart. */
    cJSON *d2 = edited("\n  - id: " ADDED_RULE_ID "\n"
                       "    description: A rule added by editing the ConfigMap.\n"
                       "    source: https://kubernetes.io/docs/concepts/configuration/configmap/\n"
                       "    when: {\"==\": [{\"var\": \"framework\"}, \"no-such-framework\"]}\n"
                       "    effect:\n"
                       "      families: {gpu: 1}\n"
                       "    message: Never applies; it marks the edited rule set.\n");
    size_t mark = server_log_len(&s);
    kubelet_write(dir, g2, d2, g1);
    bool changed = wait_new_version(&s, v1.version, &v2, HANG_MS);
    if (!changed)
        server_log_dump(&s);
    assert_true(changed);
    assert_int_equal(v2.count, v1.count + 1);
    assert_true(v2.has_added);
    /* The reload is logged just after the new set is swapped in. */
    assert_true(server_log_wait(&s, mark, "\"trigger\":\"watch\"", HANG_MS));

    /* Generation 3: a broken edit is refused; the last good set keeps serving. */
    cJSON *d3 = edited("\n  - id: [this is not a rule\n");
    mark = server_log_len(&s);
    kubelet_write(dir, g3, d3, g2);
    assert_true(server_log_wait(&s, mark, "\"result\":\"failure\"", HANG_MS));
    assert_true(get_rules(&s, &v3));
    assert_string_equal(v3.version, v2.version);
    struct resp r;
    assert_int_equal(http_get(&s, "/readyz", &r), 0);
    assert_int_equal(r.status, 200);
    resp_free(&r);

    /* Generation 4: reverting the ConfigMap serves the first version again. */
    kubelet_write(dir, g4, g_data, g3);
    assert_true(wait_new_version(&s, v2.version, &v4, HANG_MS));
    assert_string_equal(v4.version, v1.version);
    assert_false(v4.has_added);

    assert_int_equal(server_stop(&s, SIGTERM), 0);
    cJSON_Delete(d2);
    cJSON_Delete(d3);
    remove_tree(dir);
    free(dir);
}

int main(int argc, char **argv)
{
    if (harness_init(argc, argv) != 0)
        return 2;
    if (load_configmap() != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_configmap_edits_reload),
    };
    int rc = HARNESS_RUN("configmap_swap", tests, NULL, NULL);
    cJSON_Delete(g_data);
    return rc;
}
