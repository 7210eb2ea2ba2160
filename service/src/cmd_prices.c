/* service/src/cmd_prices.c -- `accel-advisor prices`: which part is priced by
 * which provider on which basis, and how old each price is; and `accel-advisor
 * prices import FORMAT FILE...`, which turns a public price catalog into
 * prices.yaml offers (service/src/prices_import.c). The table itself is
 * service/src/prices_coverage.c. Part of the price-data work (issue 18);
 * format: docs/rules-format.md. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "prices_coverage.h"
#include "prices_import.h"
#include "rulesrc.h"

const struct option cmd_prices_options[] = {{"rules", required_argument, NULL, 'r'},
                                            {"provider", required_argument, NULL, 'p'},
                                            {"region", required_argument, NULL, 'R'},
                                            {"source", required_argument, NULL, 's'},
                                            {"via", required_argument, NULL, 'v'},
                                            {"as-of", required_argument, NULL, 'a'},
                                            {"confidence", required_argument, NULL, 'c'},
                                            {"map", required_argument, NULL, 'm'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};

static void help(FILE *fp)
{
    fprintf(
        fp,
        "usage: accel-advisor prices [--rules DIR]\n"
        "       accel-advisor prices import skypilot --provider P --source URL --as-of DATE\n"
        "                                  [--via URL] [--region R] [--map CSV] FILE...\n"
        "       accel-advisor prices import aws [--region R] [--via URL] [--map CSV] FILE...\n\n"
        "Without a subcommand, shows which part each provider prices on each basis\n"
        "(on_demand, spot, committed_1y, committed_3y): the number of offers and the\n"
        "age in days of the oldest of their prices, and why a part, or a provider of it,\n"
        "has none (prices.yaml's unpriced entries).\n\n"
        "import writes a prices.yaml document to stdout from SkyPilot's catalog CSVs\n"
        "(catalogs/v7/<cloud>/vms.csv) or the AWS Price List API's AmazonEC2 offer\n"
        "file, mapping accelerator names to catalog ids with the table in --map\n"
        "(default data/accelerator-names.csv); each row it cannot map is reported on\n"
        "stderr as FILE:LINE: unmapped NAME (INSTANCE TYPE).\n\n"
        "  --rules DIR         the rule set to show (default: the embedded one)\n"
        "  --provider P        aws, gcp, azure, oci or neocloud (skypilot)\n"
        "  --source URL        the provider's pricing page (skypilot; aws has its own)\n"
        "  --as-of DATE        YYYY-MM or YYYY-MM-DD of the data (skypilot; aws reads\n"
        "                      the file's publicationDate)\n"
        "  --via URL           where the file was read\n"
        "  --region R          keep only the rows of this region\n"
        "  --confidence C      high or low (default: low for skypilot, high for aws)\n"
        "  -h, --help          this help\n\n"
        "exit status: 0 done, 1 a file is not of the format, 2 usage or I/O error\n");
}

static int coverage(const char *dir)
{
    dc_ruleset *rs = NULL;
    struct dc_diags diags;
    dc_diags_init(&diags);
    if (svc_ruleset_load(dir, &rs, &diags) != DC_OK) {
        svc_print_diags(stderr, &diags);
        dc_diags_cleanup(&diags);
        return 1;
    }
    dc_diags_cleanup(&diags);
    svc_prices_coverage(stdout, rs, time(NULL));
    dc_ruleset_release(rs);
    return 0;
}

/* Check the statements an import needs; a message on stderr when one is off. */
static bool import_opts_ok(enum svc_price_format f, struct svc_import_opts *o)
{
    enum dc_provider p;
    if (f == SVC_PRICES_AWS) {
        o->provider = "aws";
        o->source = o->source != NULL ? o->source : "https://aws.amazon.com/ec2/pricing/on-demand/";
    }
    if (o->confidence == NULL)
        o->confidence = f == SVC_PRICES_AWS ? "high" : "low";
    if (o->provider == NULL || !dc_provider_parse(o->provider, &p) || o->source == NULL ||
        (f == SVC_PRICES_SKYPILOT && o->as_of == NULL)) {
        fprintf(stderr,
                "prices import: %s needs --provider (aws, gcp, azure, oci, neocloud), "
                "--source and --as-of\n",
                f == SVC_PRICES_AWS ? "aws" : "skypilot");
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
    return true;
}

static int import_files(enum svc_price_format f, struct svc_import_opts *o, const char *map_path,
                        char **files, int n)
{
    static struct svc_price_map map;
    struct svc_import im = {calloc(SVC_PRICES_IMPORT_MAX, sizeof(*im.offers)), 0, 0, 0};
    struct dc_error rerr;
    struct dc_error err;
    int rc = 0;
    if (im.offers == NULL || svc_price_map_load(map_path, &map, &err) != DC_OK) {
        fprintf(stderr, "prices import: %s\n", im.offers == NULL ? "out of memory" : err.msg);
        free(im.offers);
        return 2;
    }
    for (int i = 0; i < n && rc == 0; i++) {
        char *text = NULL;
        size_t len = 0;
        if (svc_read_input(files[i], SVC_PRICES_IMPORT_MAX_BYTES, &text, &len, &rerr) != DC_OK) {
            fprintf(stderr, "prices import: %s\n", rerr.msg);
            rc = 2;
            break;
        }
        enum dc_status st = f == SVC_PRICES_AWS
                                ? svc_import_aws(files[i], text, &map, o, &im, stderr, &err)
                                : svc_import_skypilot(files[i], text, &map, o, &im, stderr, &err);
        free(text);
        if (st != DC_OK) {
            fprintf(stderr, "prices import: %s\n", err.msg);
            rc = 1;
        }
    }
    if (rc == 0) {
        svc_import_write(stdout, &im, o);
        fprintf(stderr, "prices import: %zu offers, %zu unmapped rows, %zu rows skipped\n", im.n,
                im.unmapped, im.skipped);
    }
    free(im.offers);
    return rc;
}

int cmd_prices(int argc, char **argv)
{
    const char *dir = NULL, *map_path = "data/accelerator-names.csv";
    struct svc_import_opts o = {0};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", cmd_prices_options, NULL)) != -1) {
        switch (c) {
        case 'r':
            dir = optarg;
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
        case 'h':
            help(stdout);
            return 0;
        default:
            help(stderr);
            return 2;
        }
    }
    if (optind == argc)
        return coverage(dir);
    enum svc_price_format f;
    if (strcmp(argv[optind], "import") != 0 || optind + 2 >= argc ||
        !svc_price_format_parse(argv[optind + 1], &f)) {
        help(stderr);
        return 2;
    }
    if (!import_opts_ok(f, &o))
        return 2;
    return import_files(f, &o, map_path, argv + optind + 2, argc - optind - 2);
}
