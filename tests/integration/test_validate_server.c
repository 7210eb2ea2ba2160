/* tests/integration/test_validate_server.c -- `accel-advisor validate` says of
 * a workload what the server answers (issue 34): valid exactly when
 * POST /v1/recommendations answers 200, invalid exactly when it answers 400.
 * The workloads: every one of the decision table (tests/fixtures/cases.json),
 * the request fuzzer's corpus and regressions (fuzz/corpus/fuzz_request,
 * fuzz/regressions/fuzz_request), and the rules between fields the schema
 * cannot state, each once broken. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static struct server srv;

/* Past the schema, refused by the core's reading of the workload: what
 * `validate` passed before it ran the server's check. */
static const char *const cross_field[] = {
    "{\"task\":\"inference\",\"model\":{\"parameters\":7e9,\"active_parameters\":8e9}}",
    "{\"task\":\"inference\",\"model\":{\"name\":\"no-such-model-anywhere\"}}",
    "{\"task\":\"inference\",\"quantization\":\"awq-int4\",\"precision\":\"int4\","
    "\"model\":{\"parameters\":7e9}}",
};

struct bodies {
    char **text;
    size_t *len;
    char **from; /* where the body came from, for messages */
    size_t n, cap;
};

static void add(struct bodies *b, char *text, size_t len, const char *from)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 512;
        b->text = realloc(b->text, b->cap * sizeof(*b->text));
        b->len = realloc(b->len, b->cap * sizeof(*b->len));
        b->from = realloc(b->from, b->cap * sizeof(*b->from));
        assert_non_null(b->text);
        assert_non_null(b->len);
        assert_non_null(b->from);
    }
    b->text[b->n] = text;
    b->len[b->n] = len;
    b->from[b->n++] = strdup(from);
}

/* Every file of `dir` under the source tree (none when it is absent). */
static void add_dir(struct bodies *b, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", h_source_dir, dir);
    DIR *d = opendir(path);
    if (d == NULL)
        return;
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
        if (e->d_name[0] == '.')
            continue;
        char file[4096 + 260];
        snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
        struct stat st;
        if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        size_t len = 0;
        char *text = read_file(file, &len);
        assert_non_null(text);
        add(b, text, len, file);
    }
    closedir(d);
}

static void add_cases(struct bodies *b)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/tests/fixtures/cases.json", h_source_dir);
    char *text = read_file(path, NULL);
    assert_non_null(text);
    cJSON *cases = cJSON_Parse(text);
    free(text);
    assert_true(cJSON_IsArray(cases));
    const cJSON *c = NULL;
    cJSON_ArrayForEach(c, cases)
    {
        char *w = cJSON_PrintUnformatted(cJSON_GetObjectItem(c, "workload"));
        assert_non_null(w);
        char from[512];
        snprintf(from, sizeof(from), "cases.json %s",
                 cJSON_GetStringValue(cJSON_GetObjectItem(c, "name")));
        add(b, w, strlen(w), from);
    }
    cJSON_Delete(cases);
}

/* `validate -q` of every body, each written to DIR/N.json (the server reads
 * JSON whatever its name; so does validate with that name): invalid[i] is
 * whether it named body i. Returns validate's exit status. */
static int run_validate(const struct bodies *b, const char *dir, bool *invalid)
{
    size_t cap = 64 + b->n * (strlen(dir) + 16), k = 0;
    char *cmd = malloc(cap);
    assert_non_null(cmd);
    k += (size_t)snprintf(cmd, cap, "'%s' validate -q", h_binary);
    for (size_t i = 0; i < b->n; i++) {
        char file[4096];
        snprintf(file, sizeof(file), "%s/%zu.json", dir, i);
        FILE *fp = fopen(file, "wb");
        assert_non_null(fp);
        assert_int_equal(fwrite(b->text[i], 1, b->len[i], fp), b->len[i]);
        assert_int_equal(fclose(fp), 0);
        k += (size_t)snprintf(cmd + k, cap - k, " %s", file);
    }
    snprintf(cmd + k, cap - k, " 2>&1");
    FILE *out = popen(cmd, "r");
    assert_non_null(out);
    char line[8192];
    size_t dl = strlen(dir);
    while (fgets(line, sizeof(line), out) != NULL) {
        size_t i = 0;
        /* Each problem starts "DIR/N.json: "; a long one may span reads. */
        if (strncmp(line, dir, dl) == 0 && line[dl] == '/' &&
            sscanf(line + dl + 1, "%zu", &i) == 1 && i < b->n)
            invalid[i] = true;
    }
    int status = pclose(out);
    free(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_validate_matches_server(void **state)
{
    (void)state;
    struct bodies b = {0};
    add_cases(&b);
    size_t n_cases = b.n;
    add_dir(&b, "fuzz/corpus/fuzz_request");
    add_dir(&b, "fuzz/regressions/fuzz_request");
    size_t n_fuzz = b.n - n_cases;
    for (size_t i = 0; i < sizeof(cross_field) / sizeof(cross_field[0]); i++)
        add(&b, strdup(cross_field[i]), strlen(cross_field[i]), "a rule between fields");
    assert_true(n_cases >= 200); /* the decision table is all there */
    assert_true(n_fuzz >= 20);

    char dir[] = "/tmp/aa-validate-XXXXXX";
    assert_non_null(mkdtemp(dir));
    bool *invalid = calloc(b.n, sizeof(*invalid));
    assert_non_null(invalid);
    int status = run_validate(&b, dir, invalid);

    size_t n_valid = 0, n_invalid = 0;
    for (size_t i = 0; i < b.n; i++) {
        struct resp r;
        assert_int_equal(http(&srv, "POST", "/v1/recommendations", "application/json", b.text[i],
                              b.len[i], NULL, &r),
                         0);
        long want = invalid[i] ? 400 : 200;
        if (r.status != want)
            fail_msg("%s: validate says %s, the server answers %ld:\n%.2000s\nbody: %.500s",
                     b.from[i], invalid[i] ? "invalid" : "valid", r.status, r.body, b.text[i]);
        n_valid += !invalid[i];
        n_invalid += invalid[i];
        resp_free(&r);
        char file[4200];
        snprintf(file, sizeof(file), "%s/%zu.json", dir, i);
        unlink(file);
    }
    rmdir(dir);
    /* Both answers are tested: every decision-table workload is valid, the
     * corpus's invalid-* and malformed-* bodies and the rules between fields
     * are not. */
    assert_true(n_valid >= n_cases);
    assert_true(n_invalid >= sizeof(cross_field) / sizeof(cross_field[0]) + 5);
    for (size_t i = b.n - sizeof(cross_field) / sizeof(cross_field[0]); i < b.n; i++)
        assert_true(invalid[i]);
    assert_int_equal(status, 1); /* some file was invalid */
    printf("validate and the server agree on %zu workloads (%zu valid, %zu invalid)\n", b.n,
           n_valid, n_invalid);
    for (size_t i = 0; i < b.n; i++) {
        free(b.text[i]);
        free(b.from[i]);
    }
    free(b.text);
    free(b.len);
    free(b.from);
    free(invalid);
}

static int setup(void **state)
{
    (void)state;
    static const char *const args[] = {"--rules-watch=false", "--cache-entries", "0", NULL};
    return server_start(&srv, args);
}

static int teardown(void **state)
{
    (void)state;
    return server_stop(&srv, SIGTERM) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (harness_init(argc, argv) != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validate_matches_server),
    };
    return HARNESS_RUN("integration.validate_server", tests, setup, teardown);
}
