/* tests/fault/test_reload_signal.c -- a SIGHUP while a writer pauses mid-file
 * (issue 35): the watcher waited for the writer's close, but the signal's
 * reload read what was there, and 16 of 44 models were served until the writer
 * finished. The reload must not read a rule file some process has open for
 * writing: it logs that it waits, the old set keeps serving, and once the
 * writer closes the file the signal's reload loads the whole of it, with no
 * second signal. The watch is off, so nothing but the signal reloads.
 *
 * usage: fault_reload_signal ACCEL_ADVISOR_BINARY SOURCE_DIR */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#define WAIT_MS 60000 /* only bounds a hang */

/* The models GET /v1/models serves. */
static int served_models(struct server *s)
{
    struct resp r;
    assert_int_equal(http_get(s, "/v1/models", &r), 0);
    assert_int_equal(r.status, 200);
    cJSON *j = resp_json(&r);
    assert_non_null(j);
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "models"));
    cJSON_Delete(j);
    resp_free(&r);
    return n;
}

static void test_sighup_waits_for_the_writer(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    assert_non_null(dir);
    assert_int_equal(copy_rules(dir), 0);
    char path[1024];
    snprintf(path, sizeof(path), "%s/models.yaml", dir);
    size_t len = 0;
    char *text = read_file(path, &len);
    assert_non_null(text);
    /* A cut that is a complete, valid file of its own: the first 16 models. */
    const char *cut = text;
    for (int i = 0; i < 17 && cut != NULL; i++)
        cut = strstr(cut + 1, "\n  - name:");
    assert_non_null(cut);
    size_t half = (size_t)(cut - text) + 1;
    struct server srv;
    const char *const args[] = {"--rules", dir, "--rules-watch=false", "--rules-debounce-ms",
                                "100",     NULL};
    assert_int_equal(server_start(&srv, args), 0);
    int all = served_models(&srv);
    assert_true(all > 16);
    /* Written in place: truncated, the first 16 models, then a pause. */
    int fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, half), (ssize_t)half);
    size_t at = server_log_len(&srv);
    assert_int_equal(kill(srv.pid, SIGHUP), 0);
    assert_true(server_log_wait(&srv, at, "\"result\":\"being_written\"", WAIT_MS));
    assert_int_equal(served_models(&srv), all);
    /* Another SIGHUP while it is still open: still waiting. */
    assert_int_equal(kill(srv.pid, SIGHUP), 0);
    assert_true(server_log_wait(&srv, at, "SIGHUP: reloading", WAIT_MS));
    assert_int_equal(served_models(&srv), all);
    assert_false(server_log_find(&srv, at, "\"result\":\"success\"", NULL));
    /* The writer finishes and closes: the deferred reload loads it whole. */
    assert_int_equal(write(fd, text + half, len - half), (ssize_t)(len - half));
    assert_int_equal(close(fd), 0);
    assert_true(server_log_wait(&srv, at, "\"result\":\"success\"", WAIT_MS));
    assert_int_equal(served_models(&srv), all);
    assert_false(server_log_find(&srv, at, "\"result\":\"failure\"", NULL));
    assert_int_equal(server_stop_clean(&srv), 0);
    free(text);
    remove_tree(dir);
    free(dir);
}

int main(int argc, char **argv)
{
    if (harness_init(argc, argv) != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sighup_waits_for_the_writer),
    };
    return HARNESS_RUN("reload_signal", tests, NULL, NULL);
}
