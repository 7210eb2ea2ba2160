/* service/src/cmd_prices.c -- `accel-advisor prices`: which part is priced by
 * which provider on which basis, and how old each price is; `accel-advisor
 * prices import FORMAT FILE...`, which turns a public price catalog into
 * prices.yaml offers the loader accepts (service/src/prices_import.c); and
 * `accel-advisor prices merge PRICES.yaml IMPORTED...`, which updates a
 * prices.yaml in place (service/src/prices_merge.c); and `accel-advisor
 * prices show [PART[:COUNT]]`, what a part costs where (prices_show.c). The
 * coverage table itself is service/src/prices_coverage.c. Part of the price-data work (issues 18,
 * 31); format: docs/rules-format.md, "Importing prices"; the refresh: docs/operations.md,
 * "Refreshing prices". */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "dc/embedded.h"
#include "dc/yaml.h"
#include "prices_coverage.h"
#include "prices_import.h"
#include "prices_merge.h"
#include "prices_show.h"
#include "rulesrc.h"
#include "suggest.h"

/* The name table compiled in (data/accelerator-names.csv). */
#define EMBEDDED_MAP "data/accelerator-names.csv"

const struct option cmd_prices_options[] = {{"rules", required_argument, NULL, 'r'},
                                            {"cloud", required_argument, NULL, 'C'},
                                            {"provider", required_argument, NULL, 'p'},
                                            {"region", required_argument, NULL, 'R'},
                                            {"source", required_argument, NULL, 's'},
                                            {"via", required_argument, NULL, 'v'},
                                            {"as-of", required_argument, NULL, 'a'},
                                            {"confidence", required_argument, NULL, 'c'},
                                            {"map", required_argument, NULL, 'm'},
                                            {"dry-run", no_argument, NULL, 'n'},
                                            {"output", required_argument, NULL, 'o'},
                                            {"pretty", no_argument, NULL, 'P'},
                                            {"no-headers", no_argument, NULL, 'H'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};

static void help(FILE *fp)
{
    fprintf(
        fp,
        "usage: accel-advisor prices [--rules DIR]\n"
        "       accel-advisor prices show [--rules DIR] [-o FORMAT] [--no-headers]\n"
        "                     [PART[:COUNT]]\n"
        "       accel-advisor prices import skypilot --cloud CLOUD --source URL --as-of DATE\n"
        "                     [--via URL] [--region R] [--map CSV] [--rules DIR] FILE...\n"
        "       accel-advisor prices import aws [--region R] [--via URL] [--as-of DATE]\n"
        "                     [--map CSV] [--rules DIR] FILE...\n"
        "       accel-advisor prices import azure --as-of DATE [--region R] [--via URL]\n"
        "                     [--map CSV] [--rules DIR] FILE...\n"
        "       accel-advisor prices import gcp [--as-of DATE] [--region R] [--via URL]\n"
        "                     [--map CSV] [--rules DIR] pricing.yml\n"
        "       accel-advisor prices merge [--rules DIR] [--dry-run] PRICES.yaml IMPORTED...\n\n"
        "Without a subcommand, shows which part each provider prices on each basis\n"
        "(on_demand, spot, committed_1y, committed_3y): the number of offers and the\n"
        "age in days of the oldest of their prices, and why a part, or a provider of it,\n"
        "has none (prices.yaml's unpriced entries).\n\n");
    fprintf(fp,
            "show lists what a part costs where, as SkyPilot's `sky show-gpus H100:8` does:\n"
            "one row per provider, instance, region and basis with the instance's hourly\n"
            "price, the price per chip, its date and its confidence, cheapest per chip\n"
            "first. PART is a catalog id, short name or name (h100, H100, \"TPU v6e\");\n"
            "COUNT keeps the instances of that many chips, and prices the parts sold per\n"
            "chip (TPUs) at that many. -o table fits the terminal's width (or $COLUMNS,\n"
            "else 80), wide adds each price's source; json, yaml and jsonpath=TEMPLATE\n"
            "give {\"offers\": [...]}; name gives PROVIDER/REGION/INSTANCE a line.\n\n"
            "import writes a prices.yaml document to stdout from SkyPilot's catalog CSVs\n"
            "(catalogs/v8/<cloud>/vms.csv), the AWS Price List API's AmazonEC2 offer file\n"
            "pages of Azure's Retail Prices API ({\"Items\": [...]}) or Google's Cloud\n"
            "Billing catalog as Cyclenerd's pricing.yml mirrors it, mapping accelerator names to "
            "catalog ids with the table compiled in\n"
            "(data/accelerator-names.csv) or the one in --map. Each row it cannot map is\n"
            "reported on stderr as FILE:LINE: unmapped NAME (INSTANCE TYPE), each row it\n"
            "refuses as FILE:LINE: dropped: REASON; the document is checked by the loader\n"
            "(with the rule files of --rules, default the embedded ones) before it is\n"
            "written, and offers the loader refuses are dropped the same way.\n\n"
            "merge updates PRICES.yaml in place with the offers of the IMPORTED documents\n"
            "(import's output): a price is replaced where the import's is as new or newer\n"
            "and differs, a missing basis or offer added; comments, sources, notes, other\n"
            "offers, reserved bases and the other lists stay as they are. Each change is\n"
            "reported on stdout; the result is checked with the rule files beside\n"
            "PRICES.yaml (or --rules) and replaces the file in one rename, so a running\n"
            "server reloads it like any rule file.\n\n"
            "  --rules DIR         the rule set to show or check against (default: the\n"
            "                      embedded one; merge: PRICES.yaml's directory)\n"
            "  --cloud CLOUD       skypilot: the catalog's cloud (aws, gcp, azure, oci, or a\n"
            "                      neocloud such as lambda, nebius, runpod, whose regions\n"
            "                      are written \"CLOUD REGION\" as in prices.yaml)\n"
            "  --source URL        the provider's pricing page (skypilot; aws and azure\n"
            "                      have their own)\n"
            "  --as-of DATE        YYYY-MM or YYYY-MM-DD of the data (skypilot, azure; aws\n"
            "                      reads the file's publicationDate, gcp its timestamp)\n"
            "  --via URL           where the file was read\n"
            "  --region R          keep only the rows of this region (as the file writes it)\n"
            "  --confidence C      high or low (default: low for skypilot, else high)\n"
            "  --dry-run           merge: report the changes, write nothing\n"
            "  -o, --output FORMAT show: table (default), wide, json, yaml, name or\n"
            "                      jsonpath=TEMPLATE (docs/cli.md)\n"
            "  --pretty            show: indent the JSON (the default on a terminal)\n"
            "  --no-headers        show: the rows alone\n"
            "  -h, --help          this help\n\n"
            "exit status: 0 done, 1 a file is not of the format, nothing is mapped or\n"
            "nothing loadable is left (import), or the part is unknown or not offered\n"
            "(show), 2 usage or I/O error\n");
}

/* The rule set of `dir` (the embedded one when NULL), or NULL with its
 * problems printed on stderr. */
static dc_ruleset *load_rules(const char *dir)
{
    dc_ruleset *rs = NULL;
    struct dc_diags diags;
    dc_diags_init(&diags);
    if (svc_ruleset_load(dir, &rs, &diags) != DC_OK) {
        svc_print_diags(stderr, &diags);
        rs = NULL;
    }
    dc_diags_cleanup(&diags);
    return rs;
}

static int coverage(const char *dir)
{
    dc_ruleset *rs = load_rules(dir);
    if (rs == NULL)
        return 1;
    svc_prices_coverage(stdout, rs, time(NULL));
    dc_ruleset_release(rs);
    return 0;
}

const char *const cmd_prices_subcommands[] = {"show", "import", "merge", NULL};

/* prices show [PART[:COUNT]] with the rule set of `dir`. */
static int show(const char *dir, const char *filter, const struct svc_output_opts *o)
{
    dc_ruleset *rs = load_rules(dir);
    if (rs == NULL)
        return 2;
    int status = svc_prices_show(rs, filter, o);
    dc_ruleset_release(rs);
    return status;
}

/* SkyPilot's cloud names to a provider and region prefix: the four clouds
 * are providers of their own; any other is a neocloud whose regions
 * prices.yaml writes "CLOUD REGION" (one vocabulary with the shipped file). */
static bool cloud_provider(struct svc_import_opts *o, char *prefix, size_t len)
{
    static const char *const big[] = {"aws", "gcp", "azure", "oci"};
    const char *c = o->cloud;
    if (c == NULL || c[0] == '\0' || strlen(c) > 32 ||
        strspn(c, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(c))
        return false;
    for (size_t i = 0; i < 4; i++) {
        if (strcmp(c, big[i]) == 0) {
            o->provider = big[i];
            return true;
        }
    }
    o->provider = "neocloud";
    snprintf(prefix, len, "%s ", c);
    o->prefix = prefix;
    return true;
}

/* Whether an option's text may be copied into the document. */
static bool text_opt(const char *name, const char *v)
{
    if (v == NULL || svc_import_text_ok(v))
        return true;
    fprintf(stderr, "prices import: %s is not UTF-8 text without control characters\n", name);
    return false;
}

/* Check the statements an import needs; a message on stderr when one is off. */
static bool import_opts_ok(enum svc_price_format f, struct svc_import_opts *o)
{
    static char prefix[40];
    o->prefix = "";
    if (f == SVC_PRICES_AWS) {
        o->provider = "aws";
        o->source = o->source != NULL ? o->source : "https://aws.amazon.com/ec2/pricing/on-demand/";
    } else if (f == SVC_PRICES_GCP) {
        o->provider = "gcp";
        o->source = o->source != NULL ? o->source : "https://cloud.google.com/compute/gpus-pricing";
    } else if (f == SVC_PRICES_AZURE) {
        o->provider = "azure";
        o->source =
            o->source != NULL
                ? o->source
                : "https://azure.microsoft.com/en-us/pricing/details/virtual-machines/linux/";
        o->via = o->via != NULL ? o->via : "https://prices.azure.com/api/retail/prices";
    } else if (o->cloud == NULL && o->provider != NULL && strcmp(o->provider, "neocloud") != 0) {
        o->cloud = o->provider; /* --provider aws|gcp|azure|oci, as before */
    }
    if (o->confidence == NULL)
        o->confidence = f == SVC_PRICES_SKYPILOT ? "low" : "high";
    if (f == SVC_PRICES_AZURE && o->as_of == NULL) {
        fprintf(stderr, "prices import: azure needs --as-of (the day the export was read)\n");
        return false;
    }
    if ((f == SVC_PRICES_SKYPILOT && !cloud_provider(o, prefix, sizeof(prefix))) ||
        o->source == NULL || (f == SVC_PRICES_SKYPILOT && o->as_of == NULL)) {
        fprintf(stderr, "prices import: skypilot needs --cloud (aws, gcp, azure, oci, or the "
                        "neocloud's name: lambda, nebius, runpod, ...), --source and --as-of\n");
        return false;
    }
    int y, m, d;
    char tail;
    if (o->as_of != NULL && !(sscanf(o->as_of, "%4d-%2d%c", &y, &m, &tail) == 2 ||
                              sscanf(o->as_of, "%4d-%2d-%2d%c", &y, &m, &d, &tail) == 3)) {
        fprintf(stderr, "prices import: --as-of must be YYYY-MM or YYYY-MM-DD\n");
        return false;
    }
    if (strcmp(o->confidence, "high") != 0 && strcmp(o->confidence, "low") != 0) {
        fprintf(stderr, "prices import: --confidence must be high or low\n");
        return false;
    }
    return text_opt("--source", o->source) && text_opt("--via", o->via) &&
           text_opt("--as-of", o->as_of);
}

/* The name table: --map's file, or the one compiled in. */
static bool load_map(const char *path, struct svc_price_map *map)
{
    struct dc_error err;
    char *text = NULL;
    size_t len = 0;
    enum dc_status st;
    if (path == NULL) {
        for (const struct aa_embedded_file *f = aa_embedded_files; f->name != NULL; f++) {
            if (strcmp(f->name, EMBEDDED_MAP) == 0)
                text = (char *)(uintptr_t)f->data;
        }
        st = text != NULL ? svc_price_map_parse(EMBEDDED_MAP, text, map, &err)
                          : dc_error_set(&err, DC_EIO, NULL, "no name table compiled in");
    } else if ((st = svc_read_input(path, SVC_MAX_INPUT_BYTES, &text, &len, &err)) == DC_OK) {
        st = svc_price_map_parse(path, text, map, &err);
        free(text);
    }
    if (st != DC_OK)
        fprintf(stderr, "prices import: %s\n", err.msg);
    return st == DC_OK;
}

/* One file's text into the import, by its format. */
static enum dc_status import_one(enum svc_price_format f, const char *file, char *text, size_t len,
                                 const struct svc_price_map *map, const struct svc_import_opts *o,
                                 struct svc_import *im, struct dc_error *err)
{
    switch (f) {
    case SVC_PRICES_AWS:
        return svc_import_aws(file, text, len, map, o, im, stderr, err);
    case SVC_PRICES_AZURE:
        return svc_import_azure(file, text, len, map, o, im, stderr, err);
    case SVC_PRICES_GCP:
        return svc_import_gcp(file, text, map, o, im, stderr, err);
    case SVC_PRICES_SKYPILOT:
    default:
        return svc_import_skypilot(file, text, map, o, im, stderr, err);
    }
}

/* Read and parse every file; 0, or the exit status of the first failure. */
static int import_read(enum svc_price_format f, const struct svc_import_opts *o,
                       const struct svc_price_map *map, char **files, int n, struct svc_import *im)
{
    for (int i = 0; i < n; i++) {
        char *text = NULL;
        size_t len = 0;
        struct dc_error err;
        if (svc_read_input(files[i], SVC_PRICES_IMPORT_MAX_BYTES, &text, &len, &err) != DC_OK) {
            fprintf(stderr, "prices import: %s\n", err.msg);
            return 2;
        }
        enum dc_status st = import_one(f, files[i], text, len, map, o, im, &err);
        free(text);
        if (st != DC_OK) {
            fprintf(stderr, "prices import: %s\n", err.msg);
            return st == DC_ENOMEM ? 2 : 1;
        }
        if (im->full) {
            fprintf(stderr,
                    "prices import: more than %d offers, the loader's limit "
                    "(DC_RULESET_MAX_OFFERS): import fewer at once (--region)\n",
                    SVC_PRICES_IMPORT_MAX);
            return 1;
        }
    }
    return 0;
}

static int import_files(enum svc_price_format f, struct svc_import_opts *o, const char *map_path,
                        const char *rules, char **files, int n)
{
    static struct svc_price_map map;
    struct svc_import im;
    if (!load_map(map_path, &map))
        return 2;
    if (!svc_import_init(&im)) {
        fprintf(stderr, "prices import: out of memory\n");
        return 2;
    }
    int rc = import_read(f, o, &map, files, n, &im);
    char *doc = NULL;
    size_t len = 0;
    if (rc == 0) {
        enum dc_status st = svc_import_finish(&im, o, rules, &doc, &len, stderr);
        rc = st == DC_OK ? 0 : st == DC_EVALIDATE ? 1 : 2;
        if (st == DC_EIO)
            fprintf(stderr, "prices import: cannot read the rule files of %s\n", rules);
    }
    if (rc == 0 && (fwrite(doc, 1, len, stdout) != len || fflush(stdout) != 0)) {
        fprintf(stderr, "prices import: cannot write the document: %s\n", strerror(errno));
        rc = 2;
    }
    size_t written = 0;
    for (size_t i = 0; rc == 0 && i < im.n; i++)
        written += !im.offers[i].dropped;
    /* Nothing mapped is no document (issue 34): say which table to fix. */
    if (im.n == 0 && im.unmapped > 0)
        fprintf(stderr,
                "prices import: nothing mapped: the name table (%s) knows none of the %zu "
                "accelerator names read; add them with --map CSV (format,name,accelerator)\n",
                map_path != NULL ? map_path : EMBEDDED_MAP, im.unmapped);
    fprintf(stderr,
            "prices import: %zu offers, %zu unmapped rows, %zu rows skipped, %zu rows dropped\n",
            written, im.unmapped, im.skipped, im.dropped);
    free(doc);
    svc_import_free(&im);
    return rc;
}
/* Replace `path` with `len` bytes of `text` in one rename (a reader, the
 * server's reload among them, sees the old file or the new one, never half of
 * one), keeping its permissions. */
static bool replace_file(const char *path, const char *text, size_t len)
{
    char tmp[4096], dir[4096];
    struct stat st;
    snprintf(dir, sizeof(dir), "%s", path);
    int n = snprintf(tmp, sizeof(tmp), "%s/.prices-merge.XXXXXX", dirname(dir));
    if (n < 0 || (size_t)n >= sizeof(tmp) || stat(path, &st) != 0)
        return false;
    int fd = mkstemp(tmp);
    if (fd < 0)
        return false;
    bool ok = fchmod(fd, st.st_mode & 07777) == 0;
    for (size_t off = 0; ok && off < len;) {
        ssize_t w = write(fd, text + off, len - off);
        ok = w > 0;
        off += ok ? (size_t)w : 0;
    }
    ok = fsync(fd) == 0 && ok;
    ok = close(fd) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok)
        unlink(tmp);
    return ok;
}

/* Read PRICES.yaml and every import; false (reported) when one cannot be. */
static bool merge_read(char **files, int n, char **texts, size_t *lens)
{
    for (int i = 0; i < n; i++) {
        struct dc_error err;
        enum dc_status st =
            i == 0 ? svc_read_regular_file(files[i], DC_YAML_MAX_BYTES, &texts[i], &lens[i], &err)
                   : svc_read_input(files[i], DC_YAML_MAX_BYTES, &texts[i], &lens[i], &err);
        if (st != DC_OK) {
            fprintf(stderr, "prices merge: %s\n", err.msg);
            return false;
        }
    }
    return true;
}

/* Check the merged text with the rule files beside the target and write it. */
static int merge_write(const char *target, const char *rules, bool dry_run, const char *orig,
                       size_t orig_len, const char *out, size_t len)
{
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", target);
    struct dc_diags d;
    dc_diags_init(&d);
    enum dc_status st = svc_prices_validate(rules != NULL ? rules : dirname(dir), out, len, &d);
    if (st != DC_OK) {
        fprintf(stderr, "prices merge: the merged file does not load; %s is unchanged\n", target);
        svc_print_diags(stderr, &d);
        dc_diags_cleanup(&d);
        return st == DC_EIO ? 2 : 1;
    }
    dc_diags_cleanup(&d);
    if (dry_run || (len == orig_len && memcmp(out, orig, len) == 0))
        return 0;
    if (!replace_file(target, out, len)) {
        fprintf(stderr, "prices merge: cannot replace %s: %s\n", target, strerror(errno));
        return 2;
    }
    return 0;
}

static int merge_files(const char *rules, bool dry_run, char **files, int n)
{
    char **texts = calloc((size_t)n, sizeof(*texts));
    size_t *lens = calloc((size_t)n, sizeof(*lens));
    char *out = NULL;
    size_t len = 0;
    int rc = 2;
    struct svc_merge_counts c;
    struct dc_error err;
    if (texts != NULL && lens != NULL && merge_read(files, n, texts, lens)) {
        enum dc_status st = svc_prices_merge(
            files[0], texts[0], lens[0], (const char *const *)files + 1,
            (const char *const *)texts + 1, lens + 1, (size_t)n - 1, &out, &len, stdout, &c, &err);
        if (st != DC_OK)
            fprintf(stderr, "prices merge: %s\n", err.msg);
        rc = st == DC_OK       ? merge_write(files[0], rules, dry_run, texts[0], lens[0], out, len)
             : st == DC_ENOMEM ? 2
                               : 1;
        if (st == DC_OK)
            printf("prices merge: %zu prices changed, %zu added, %zu new offers, %zu kept (newer "
                   "in the file), %zu absent from the import, %zu skipped%s\n",
                   c.changed, c.added, c.offers, c.newer, c.absent, c.skipped,
                   rc != 0   ? "; nothing written"
                   : dry_run ? "; dry run, nothing written"
                             : "");
    }
    for (int i = 0; texts != NULL && i < n; i++)
        free(texts[i]);
    free(texts);
    free(lens);
    free(out);
    return rc;
}

int cmd_prices(int argc, char **argv)
{
    const char *dir = NULL, *map_path = NULL;
    struct svc_import_opts o = {0};
    bool dry_run = false;
    struct svc_output_opts out = {SVC_OUTPUT_TABLE, false, false, NULL};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:", cmd_prices_options, NULL)) != -1) {
        switch (c) {
        case 'r':
            dir = optarg;
            break;
        case 'C':
            o.cloud = optarg;
            break;
        case 'p':
            o.provider = optarg;
            break;
        case 'R':
            o.region = optarg;
            break;
        case 's':
            o.source = optarg;
            break;
        case 'v':
            o.via = optarg;
            break;
        case 'a':
            o.as_of = optarg;
            break;
        case 'c':
            o.confidence = optarg;
            break;
        case 'm':
            map_path = optarg;
            break;
        case 'n':
            dry_run = true;
            break;
        case 'o':
        case 'P':
        case 'H':
            if (!svc_output_option("prices show", c == 'P' ? 'p' : c, optarg,
                                   SVC_PRICES_SHOW_OUTPUTS, &out))
                return 2;
            break;
        case 'h':
            help(stdout);
            return 0;
        default:
            if (!svc_suggest_option("prices", argc, argv, cmd_prices_options))
                help(stderr);
            return 2;
        }
    }
    bool show_cmd = optind < argc && strcmp(argv[optind], "show") == 0;
    if (!show_cmd && (out.format != SVC_OUTPUT_TABLE || out.pretty || out.no_headers)) {
        fprintf(stderr, "prices: -o, --pretty and --no-headers are prices show's\n");
        return 2;
    }
    if (optind == argc)
        return coverage(dir);
    if (show_cmd && optind + 2 >= argc)
        return show(dir, optind + 1 < argc ? argv[optind + 1] : NULL, &out);
    const char *near = svc_suggest(argv[optind], cmd_prices_subcommands, 3);
    if (near != NULL && strcmp(near, argv[optind]) != 0) {
        fprintf(stderr, "prices: no subcommand \"%s\"; did you mean \"prices %s\"?\n", argv[optind],
                near);
        return 2;
    }
    if (strcmp(argv[optind], "merge") == 0 && optind + 2 < argc)
        return merge_files(dir, dry_run, argv + optind + 1, argc - optind - 1);
    enum svc_price_format f;
    if (strcmp(argv[optind], "import") == 0 && optind + 2 < argc &&
        !svc_price_format_parse(argv[optind + 1], &f)) {
        static const char *const formats[] = {"skypilot", "aws", "azure", "gcp"};
        const char *fmt = svc_suggest(argv[optind + 1], formats, 4);
        fprintf(stderr, "prices import: no format \"%s\" (skypilot, aws, azure or gcp)%s%s%s\n",
                argv[optind + 1], fmt != NULL ? "; did you mean " : "", fmt != NULL ? fmt : "",
                fmt != NULL ? "?" : "");
        return 2;
    }
    if (strcmp(argv[optind], "import") != 0 || optind + 2 >= argc) {
        help(stderr);
        return 2;
    }
    if (!import_opts_ok(f, &o))
        return 2;
    return import_files(f, &o, map_path, dir, argv + optind + 2, argc - optind - 2);
}
