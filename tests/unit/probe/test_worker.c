/* tests/unit/probe/test_worker.c -- probe/src/probe_worker.c: the snapshot
 * holder under concurrent readers and a writer, the refresher thread
 * (start, refresh, stats, stop), a probe stuck in a slow driver that readers
 * never wait on, and the stop time limit. A slow driver is the test NVML held
 * at its initialisation (init_gate) until the test lets it go: what each test
 * checks follows from the order of events it waits for, never from how long
 * the machine takes. */
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

#include <cmocka.h>

#include "unit/probe/probe_test_util.h"

/* How long a test waits for what it needs before it fails: a bound for a hang,
 * never a timing assertion. */
#define HANG_MS 60000

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* An NVML config whose initialisation waits for the file *gate (a path made
 * here, not yet there); the config's path goes to conf. */
static void write_gated_conf(char *conf, size_t conf_cap, char *gate, size_t gate_cap)
{
    char text[256];
    fmt(gate, gate_cap, "/tmp/probe-gate-%ld-%d", (long)getpid(), rand());
    fmt(text, sizeof(text),
        "init_gate %s\n"
        "device\n bus_id 00000000:1B:00.0\n pci_device_id 0x233010de\n",
        gate);
    write_nvml_conf(conf, conf_cap, text);
}

static void open_gate(const char *gate)
{
    int fd = open(gate, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    close(fd);
}

/* Wait until the worker's probe is in progress (it sets busy just before it
 * calls into the sources, and takes its lock again only when they return). */
static void wait_busy(probe_worker *w)
{
    struct probe_worker_stats st;
    double end = now_s() + HANG_MS / 1e3;
    for (probe_worker_stats(w, &st); !st.busy; probe_worker_stats(w, &st)) {
        if (now_s() > end)
            fail_msg("the worker never started its probe");
        sleep_ms(1);
    }
}

static void test_holder_basics(void **state)
{
    (void)state;
    probe_holder *h = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(probe_holder_new(NULL, &err), DC_EINVAL);
    assert_int_equal(probe_holder_new(&h, &err), DC_OK);
    assert_null(probe_holder_get(h));
    assert_int_equal(probe_holder_generation(h), 0);
    uint64_t gen = 99;
    assert_int_equal(probe_holder_wait(h, 0, 20, &gen), DC_ELIMIT);
    assert_int_equal(gen, 0);

    struct fixture f;
    fixture_init(&f, "tpu-v4-x4");
    const struct probe_snapshot *s1 = run_ok(&f.cfg);
    probe_holder_publish(h, s1); /* the holder now owns that reference */
    assert_int_equal(probe_holder_generation(h), 1);
    assert_int_equal(probe_holder_wait(h, 0, 1000, &gen), DC_OK);
    assert_int_equal(gen, 1);
    const struct probe_snapshot *r1 = probe_holder_get(h);
    assert_ptr_equal(r1, s1);

    /* A reader keeps its snapshot alive across a swap. */
    fixture_init(&f, "empty");
    probe_holder_publish(h, run_ok(&f.cfg));
    const struct probe_snapshot *r2 = probe_holder_get(h);
    assert_ptr_not_equal(r2, r1);
    assert_int_equal(r2->n_devices, 0);
    assert_int_equal(r1->n_devices, 4);
    assert_string_equal(r1->devices[3].nodes[0], "/dev/accel3");
    probe_snapshot_release(r1);
    probe_snapshot_release(r2);

    /* A reference outlives the holder too. */
    const struct probe_snapshot *r3 = probe_holder_get(h);
    probe_holder_release(h);
    assert_int_equal(r3->host.logical_cores, 4);
    assert_ptr_equal(probe_snapshot_retain(r3), r3);
    probe_snapshot_release(r3);
    probe_snapshot_release(r3);

    /* NULL holder: the snapshot is released, nothing else happens. */
    probe_holder_publish(NULL, run_ok(&f.cfg));
    probe_holder_release(NULL);
    assert_null(probe_holder_get(NULL));
    assert_int_equal(probe_holder_generation(NULL), 0);
    assert_int_equal(probe_holder_wait(NULL, 0, 1, NULL), DC_EINVAL);
}

struct readers {
    probe_holder *h;
    atomic_bool done;
    atomic_ulong reads;
    atomic_int bad;
};

static void *reader_main(void *arg)
{
    struct readers *r = arg;
    uint64_t last_gen = 0;
    while (!atomic_load(&r->done)) {
        uint64_t gen = probe_holder_generation(r->h);
        if (gen < last_gen)
            atomic_fetch_add(&r->bad, 1);
        last_gen = gen;
        const struct probe_snapshot *s = probe_holder_get(r->h);
        if (s == NULL)
            continue;
        /* Touch everything: a freed snapshot would trip ASan here. */
        size_t sum = 0;
        for (size_t i = 0; i < s->n_devices; i++) {
            const struct probe_device *d = &s->devices[i];
            sum += strlen(d->name) + strlen(d->vendor) + d->n_pids + d->n_nodes;
            for (size_t j = 0; j < d->n_nodes; j++)
                sum += strlen(d->nodes[j]);
        }
        for (size_t i = 0; i < s->n_warnings; i++)
            sum += strlen(s->warnings[i]);
        if (s->n_devices != 0 && s->n_devices != 4 && s->n_devices != 8)
            atomic_fetch_add(&r->bad, 1);
        if (sum == (size_t)-1)
            atomic_fetch_add(&r->bad, 1);
        probe_snapshot_release(s);
        atomic_fetch_add(&r->reads, 1);
    }
    return NULL;
}

static void test_holder_concurrent(void **state)
{
    (void)state;
    enum { READERS = 6, PUBLISHES = 150 };
    struct readers r;
    memset(&r, 0, sizeof(r));
    assert_int_equal(probe_holder_new(&r.h, NULL), DC_OK);
    pthread_t t[READERS];
    for (int i = 0; i < READERS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, reader_main, &r), 0);
    static const char *const hosts[] = {"empty", "tpu-v4-x4", "h100x8"};
    struct fixture f;
    for (int i = 0; i < PUBLISHES; i++) {
        fixture_init(&f, hosts[i % 3]);
        probe_holder_publish(r.h, run_ok(&f.cfg));
    }
    /* Let the readers see the last one too: a hundred reads more. */
    unsigned long before = atomic_load(&r.reads);
    for (double end = now_s() + HANG_MS / 1e3; atomic_load(&r.reads) < before + 100;) {
        if (now_s() > end)
            fail_msg("the readers made %lu reads", atomic_load(&r.reads));
        sleep_ms(5);
    }
    atomic_store(&r.done, true);
    for (int i = 0; i < READERS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&r.bad), 0);
    assert_true(atomic_load(&r.reads) > 0);
    assert_int_equal(probe_holder_generation(r.h), PUBLISHES);
    probe_holder_release(r.h);
}

static void test_worker_refreshes(void **state)
{
    (void)state;
    probe_holder *h = NULL;
    assert_int_equal(probe_holder_new(&h, NULL), DC_OK);
    /* The config lives in buffers the test scribbles over after start: the
     * worker must have copied it, ids included. */
    struct fixture *f = calloc(1, sizeof(*f));
    struct probe_pci_id *ids = calloc(N_TEST_IDS, sizeof(*ids));
    char *names = calloc(N_TEST_IDS, 64);
    assert_non_null(f);
    assert_non_null(ids);
    assert_non_null(names);
    fixture_init_nvml(f, "h100x8", FAKE_NVML_LIB, "nvml.conf");
    for (size_t i = 0; i < N_TEST_IDS; i++) {
        ids[i] = test_ids[i];
        snprintf(names + i * 64, 64, "%s", test_ids[i].catalog_id);
        ids[i].catalog_id = names + i * 64;
    }
    f->cfg.ids = ids;
    probe_worker *w = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(probe_worker_start(&f->cfg, 20, h, &w, &err), DC_OK);
    memset(names, 'x', N_TEST_IDS * 64 - 1);
    memset(ids, 0, N_TEST_IDS * sizeof(*ids));
    memset(f, 0, sizeof(*f));
    free(names);
    free(ids);
    free(f);

    uint64_t gen = 0;
    assert_int_equal(probe_holder_wait(h, 2, HANG_MS, &gen), DC_OK);
    assert_true(gen >= 3);
    const struct probe_snapshot *s = probe_holder_get(h);
    assert_non_null(s);
    assert_int_equal(s->n_devices, 8);
    assert_string_equal(s->devices[0].catalog_id, "h100");
    assert_int_equal(s->devices[0].source, PROBE_DATA_NVML);
    probe_snapshot_release(s);

    struct probe_worker_stats st;
    probe_worker_stats(w, &st);
    assert_true(st.runs >= 3);
    assert_int_equal(st.failures, 0);
    assert_int_equal(st.last_status, DC_OK);
    assert_string_equal(st.last_error, "");
    assert_int_equal(st.source_errors[PROBE_SOURCE_NVML], 0);
    assert_true(st.last_duration_seconds > 0);

    assert_int_equal(probe_worker_stop(w, 0), DC_OK);
    /* Stopped: nothing is published any more; the last snapshot stays. */
    gen = probe_holder_generation(h);
    sleep_ms(60);
    assert_int_equal(probe_holder_generation(h), gen);
    s = probe_holder_get(h);
    assert_non_null(s);
    probe_snapshot_release(s);
    probe_holder_release(h);
}

static void test_worker_refresh_now_and_errors(void **state)
{
    (void)state;
    probe_holder *h = NULL;
    assert_int_equal(probe_holder_new(&h, NULL), DC_OK);
    struct probe_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.sysfs_root = "/nonexistent/sys";
    cfg.proc_root = "/nonexistent/proc";
    cfg.nvml_mode = PROBE_NVML_OFF;
    probe_worker *w = NULL;
    /* A long interval: the second probe comes only when asked for. */
    assert_int_equal(probe_worker_start(&cfg, 600000, h, &w, NULL), DC_OK);
    assert_int_equal(probe_holder_wait(h, 0, HANG_MS, NULL), DC_OK);
    assert_int_equal(probe_holder_wait(h, 1, 100, NULL), DC_ELIMIT);
    probe_worker_refresh(w);
    assert_int_equal(probe_holder_wait(h, 1, HANG_MS, NULL), DC_OK);

    /* Every snapshot had the PCI and host sources in error: counted. */
    struct probe_worker_stats st;
    probe_worker_stats(w, &st);
    assert_true(st.runs >= 2);
    assert_true(st.source_errors[PROBE_SOURCE_PCI] >= 2);
    assert_true(st.source_errors[PROBE_SOURCE_HOST] >= 2);
    assert_int_equal(st.source_errors[PROBE_SOURCE_NVML], 0);
    /* The worker holds its own reference: the holder may go first. */
    probe_holder_release(h);
    probe_worker_refresh(w);
    sleep_ms(20);
    /* Stopping interrupts the 10-minute wait: the thread ends within a limit
     * far shorter than the interval (it would be left running, DC_ELIMIT). */
    assert_int_equal(probe_worker_stop(w, HANG_MS), DC_OK);
}

static void test_worker_invalid(void **state)
{
    (void)state;
    probe_holder *h = NULL;
    assert_int_equal(probe_holder_new(&h, NULL), DC_OK);
    struct fixture f;
    fixture_init(&f, "empty");
    probe_worker *w = (probe_worker *)h; /* must come back NULL */
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(probe_worker_start(&f.cfg, 100, h, NULL, &err), DC_EINVAL);
    assert_int_equal(probe_worker_start(NULL, 100, h, &w, &err), DC_EINVAL);
    assert_null(w);
    assert_int_equal(probe_worker_start(&f.cfg, 100, NULL, &w, &err), DC_EINVAL);
    assert_int_equal(probe_worker_start(&f.cfg, PROBE_WORKER_INTERVAL_MIN_MS - 1, h, &w, &err),
                     DC_EINVAL);
    assert_non_null(strstr(err.msg, "shorter than the minimum"));
    f.cfg.nvml_mode = PROBE_NVML_PATH;
    assert_int_equal(probe_worker_start(&f.cfg, 100, h, &w, &err), DC_EINVAL);
    assert_non_null(strstr(err.msg, "library path"));
    assert_null(w);
    assert_int_equal(probe_worker_stop(NULL, 0), DC_OK);
    probe_worker_refresh(NULL);
    struct probe_worker_stats st;
    st.runs = 42;
    probe_worker_stats(NULL, &st);
    assert_int_equal(st.runs, 0);
    probe_worker_stats(NULL, NULL);
    probe_holder_release(h);
}

/* A driver stuck in its initialisation: readers keep getting the last snapshot
 * (were they to wait on the probe, this test would hang, as the driver is let go
 * only at its end), the stats show the probe in progress, and a stop with a
 * short limit leaves the thread to finish (and free itself) on its own,
 * publishing nothing. Last in the file: its thread may outlive the test. */
static void test_slow_probe(void **state)
{
    (void)state;
    char conf[64], gate[64];
    write_gated_conf(conf, sizeof(conf), gate, sizeof(gate));
    struct fixture f;
    fixture_init_nvml(&f, "h100x8", FAKE_NVML_LIB, conf);
    probe_holder *h = NULL;
    assert_int_equal(probe_holder_new(&h, NULL), DC_OK);
    struct fixture quick;
    fixture_init(&quick, "h100x8");
    const struct probe_snapshot *first = run_ok(&quick.cfg);
    probe_holder_publish(h, probe_snapshot_retain(first));

    probe_worker *w = NULL;
    assert_int_equal(probe_worker_start(&f.cfg, 10, h, &w, NULL), DC_OK);
    wait_busy(w);
    struct probe_worker_stats st;
    probe_worker_stats(w, &st);
    assert_true(st.busy);
    assert_true(st.busy_seconds >= 0);
    assert_int_equal(st.runs, 0);

    for (int i = 0; i < 1000; i++) {
        const struct probe_snapshot *s = probe_holder_get(h);
        assert_ptr_equal(s, first);
        probe_snapshot_release(s);
    }
    assert_int_equal(probe_holder_generation(h), 1);

    /* The driver is still held: the stop gives up on the thread. */
    assert_int_equal(probe_worker_stop(w, 50), DC_ELIMIT);
    open_gate(gate); /* the probe returns; the thread frees itself */
    /* And publishes nothing: no new generation while it finishes. */
    assert_int_equal(probe_holder_wait(h, 1, 1500, NULL), DC_ELIMIT);
    probe_holder_release(h);
    probe_snapshot_release(first);
    unlink(conf);
    unlink(gate);
}

/* Lets the driver go once the thread `tid` is asleep in a futex wait after it
 * has said it is about to stop the worker: inside probe_worker_stop's wait, the
 * stop asked (its first blocking call: the worker's lock is free while the
 * probe runs, so taking it does not block). */
struct opener {
    pid_t tid;
    const char *gate;
    atomic_bool armed;
};

static bool in_futex_wait(pid_t tid)
{
    char path[64], buf[64] = "";
    snprintf(path, sizeof(path), "/proc/self/task/%ld/syscall", (long)tid);
    FILE *fp = fopen(path, "r");
    if (fp == NULL)
        return false;
    bool got = fgets(buf, sizeof(buf), fp) != NULL;
    fclose(fp);
    long nr = got ? strtol(buf, NULL, 10) : -1;
#ifdef SYS_futex_time64
    if (nr == SYS_futex_time64)
        return true;
#endif
    return got && buf[0] != 'r' && nr == SYS_futex;
}

static void *opener_main(void *arg)
{
    struct opener *o = arg;
    while (!atomic_load(&o->armed))
        sleep_ms(1);
    for (double end = now_s() + HANG_MS / 1e3; !in_futex_wait(o->tid) && now_s() < end;)
        sleep_ms(1);
    open_gate(o->gate);
    return NULL;
}

/* The same stop limit when the probe finishes in time: the stop waits for it,
 * and a probe stopped while it ran publishes nothing. */
static void test_slow_probe_waited_for(void **state)
{
    (void)state;
    char conf[64], gate[64];
    write_gated_conf(conf, sizeof(conf), gate, sizeof(gate));
    struct fixture f;
    fixture_init_nvml(&f, "h100x8", FAKE_NVML_LIB, conf);
    probe_holder *h = NULL;
    assert_int_equal(probe_holder_new(&h, NULL), DC_OK);
    probe_worker *w = NULL;
    assert_int_equal(probe_worker_start(&f.cfg, 10, h, &w, NULL), DC_OK);
    wait_busy(w);
    struct opener o = {(pid_t)syscall(SYS_gettid), gate, false};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, opener_main, &o), 0);
    atomic_store(&o.armed, true);
    assert_int_equal(probe_worker_stop(w, HANG_MS), DC_OK);
    pthread_join(t, NULL);
    /* Stop was asked during the probe: its result is not published. */
    assert_int_equal(probe_holder_generation(h), 0);
    probe_holder_release(h);
    unlink(conf);
    unlink(gate);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_holder_basics),
        cmocka_unit_test(test_holder_concurrent),
        cmocka_unit_test(test_worker_refreshes),
        cmocka_unit_test(test_worker_refresh_now_and_errors),
        cmocka_unit_test(test_worker_invalid),
        cmocka_unit_test(test_slow_probe_waited_for),
        cmocka_unit_test(test_slow_probe),
    };
    return cmocka_run_group_tests_name("probe worker", tests, NULL, NULL);
}
