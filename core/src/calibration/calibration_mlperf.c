/* core/src/calibration/calibration_mlperf.c -- MLPerf Inference result summaries into
 * calibration rows (dc_calibration_import_mlperf, dc/calibration.h): what
 * `accel-advisor calibrate import-mlperf` runs, so that a new round's results
 * become rows of tests/fixtures/calibration.json by one command
 * (docs/calibration.md, "Importing MLPerf results"). Owned by the serving
 * physics work (issue 30).
 *
 * The input is a results repository's summary_results.json (for example
 * github.com/mlcommons/inference_results_v5.1): one object a result, with
 * Model, Scenario, Accelerator, a#, Nodes, Performance_Result and
 * weight_data_types. Only Offline results of benchmarks whose workload is
 * known become rows: each benchmark's workload (model, steps, lengths) is
 * stated below with its source. A result that is not what the summary
 * promises (a field missing or of the wrong type) is reported by its JSON
 * Pointer and left out; the others are still imported. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dc/calibration.h"
#include "ruleset_internal.h"

/* Longest text a row's run, id or evidence is built into. */
#define MLPERF_TEXT 512

/* The summary's accelerator names, as substrings, and the catalog part each
 * is (the first that matches: GB200 before B200, L40S before L4). */
static const struct {
    const char *name;
    const char *id;
} parts[] = {{"GB200", "gb200"},  {"B200", "b200"},  {"H200-SXM", "h200"}, {"H100-SXM", "h100"},
             {"L40S", "l40s"},    {"L4-PCIe", "l4"}, {"NVIDIA L4", "l4"},  {"A100-SXM", "a100"},
             {"T4", "t4"},        {"A10G", "a10g"},  {"MI300X", "mi300x"}, {"MI325X", "mi325x"},
             {"MI355X", "mi355x"}};

/* One benchmark: its name in the summary, how the row's run names it, the
 * measure its Performance_Result is, and the workload it runs (a JSON text
 * whose "precision" the result's weight_data_types sets). */
struct benchmark {
    const char *model;
    const char *title;
    const char *measure;
    const char *units; /* the summary's Performance_Units an Offline result must carry */
    double per_sample; /* the measure's units in one of the result's (DLRM: pairs a sample;
                          Whisper: clips a word) */
    const char *workload;
    const char *note;
};

/* MLPerf's SDXL: 20 Euler steps with guidance 8 (two U-Net passes a step) at
 * 1024 x 1024 (text_to_image/backend_pytorch.py in github.com/mlcommons/inference);
 * one U-Net pass 5.979 TFLOPs (the registry's sdxl, diffusers' benchmarks).
 * Whisper: clips of up to 30 s, 1,500 encoder frames each. The summary's
 * Performance_Result is the log's "tokens" a second, which NVIDIA's harness
 * (every GPU result) counts as words, 63.459 a clip in every GPU log
 * (closed/NVIDIA/code/whisper/tensorrt/whisper_models.py: `word_counts`,
 * passed to loadgen as the response's token count); MLPerf's reference (the
 * CPU results) counts the decoder's tokens, 76.005 a clip. The row is the
 * log's clips a second (Performance_Result / 63.459), each decoding 76
 * tokens, its audio decoded before the timed run (the harness's QSL loads
 * 16 kHz samples). Llama 2 70B: the
 * 218-token mean prompt of MLPerf's OpenOrca calibration subset (docs/calibration.md,
 * row I14's note); the output length is the result's own TOKENS_PER_SAMPLE.
 * DLRMv2: one MLPerf sample is a query of user-item pairs, their number drawn
 * uniformly from the 20 quantiles of recommendation/dlrm_v2/pytorch/tools/
 * dist_quantile.txt in github.com/mlcommons/inference (100, 100, 200 twelve
 * times, 300, 300, 400, 500, 600, 700: a mean of 270), and the model's request is
 * one pair (the registry's dlrm-dcnv2 counts its FLOPs and lookups a pair), so
 * a result's samples/s is 270 times as many requests/s. */
#define DLRM_PAIRS_PER_SAMPLE  270.0
#define WHISPER_WORDS_PER_CLIP 63.459
#define DLRM_WORKLOAD                                                                              \
    "{\"task\":\"inference\",\"model\":{\"name\":\"dlrm-dcnv2\"},\"inference\":"                   \
    "{\"requests_per_second\":10000000}}"
#define DLRM_NOTE                                                                                  \
    "One MLPerf DLRMv2 sample is a query of user-item pairs drawn uniformly from the 20 "          \
    "quantiles of recommendation/dlrm_v2/pytorch/tools/dist_quantile.txt in "                      \
    "github.com/mlcommons/inference (a mean of 270), and the model's request is one pair: "        \
    "the measure is Performance_Result x 270."
static const struct benchmark benchmarks[] = {
    {"stable-diffusion-xl", "SDXL", "requests_per_second", "Samples/s", 1,
     "{\"task\":\"inference\",\"model\":{\"name\":\"sdxl\",\"architecture\":\"diffusion\","
     "\"parameters\":3.5e9,\"flops_per_sample\":5.979e12,\"denoising_steps\":20,"
     "\"guidance_passes\":2},\"inference\":{\"requests_per_second\":1000000}}",
     "20 Euler steps with guidance 8 (the U-Net on the conditional and unconditional latents "
     "as one batch of two) at 1024 x 1024 (https://github.com/mlcommons/inference/blob/master/"
     "text_to_image/backend_pytorch.py); precision: the U-Net's weight_data_types."},
    {"whisper", "Whisper large-v3", "requests_per_second", "Samples/s",
     1.0 / WHISPER_WORDS_PER_CLIP,
     "{\"task\":\"inference\",\"model\":{\"name\":\"whisper-large-v3\"},\"inference\":"
     "{\"requests_per_second\":1000000,\"input_tokens\":1500,\"output_tokens\":76,"
     "\"audio_decoded\":true}}",
     "Clips of up to 30 s (1,500 encoder frames), 76 decoder tokens a clip (76.005 tokens "
     "over samples in the v5.1 logs of MLPerf's reference, which counts tokens); "
     "Performance_Result is the log's tokens/s as NVIDIA's harness counts them, in words "
     "(63.459 a clip), so the row is clips a second: Performance_Result / 63.459."},
    {"llama2-70b-99", "Llama 2 70B", "tokens_per_second", "Tokens/s", 1, NULL,
     "Input length assumed 218 tokens (MLPerf's OpenOrca calibration subset; docs/calibration.md, "
     "row I14); output length the result's own TOKENS_PER_SAMPLE."},
    {"llama2-70b-99.9", "Llama 2 70B (99.9%)", "tokens_per_second", "Tokens/s", 1, NULL,
     "Input length assumed 218 tokens (MLPerf's OpenOrca calibration subset; docs/calibration.md, "
     "row I14); output length the result's own TOKENS_PER_SAMPLE."},
    {"dlrm-v2-99", "DLRMv2", "requests_per_second", "Samples/s", DLRM_PAIRS_PER_SAMPLE,
     DLRM_WORKLOAD, DLRM_NOTE},
    {"dlrm-v2-99.9", "DLRMv2 (99.9%)", "requests_per_second", "Samples/s", DLRM_PAIRS_PER_SAMPLE,
     DLRM_WORKLOAD, DLRM_NOTE},
};

static const struct benchmark *find_benchmark(const char *model)
{
    for (size_t i = 0; i < sizeof(benchmarks) / sizeof(benchmarks[0]); i++)
        if (strcmp(benchmarks[i].model, model) == 0)
            return &benchmarks[i];
    return NULL;
}

/* The catalog part a summary's accelerator name is, or NULL (none, or a
 * system of mixed parts, "MI300X (x32), MI325X (x16)"). */
static const char *part_of(const dc_ruleset *rs, const char *name)
{
    if (strchr(name, ',') != NULL)
        return NULL;
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        if (strstr(name, parts[i].name) != NULL)
            return dc_ruleset_find_accelerator(rs, parts[i].id) != NULL ? parts[i].id : NULL;
    return NULL;
}

/* A precision word of weight_data_types ("fp8", "nvfp4", "fp16") as the
 * contract names it, or NULL. */
static const char *precision_word(const char *w, size_t len)
{
    static const struct {
        const char *word;
        const char *precision;
    } words[] = {{"fp8", "fp8"},   {"e4m3", "fp8"},  {"fp16", "fp16"}, {"bf16", "bf16"},
                 {"fp32", "fp32"}, {"nvfp4", "fp4"}, {"mxfp4", "fp4"}, {"fp4", "fp4"},
                 {"int8", "int8"}, {"int4", "int4"}};
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (strlen(words[i].word) == len && strncmp(w, words[i].word, len) == 0)
            return words[i].precision;
    return NULL;
}

/* The precision of the network a result times: weight_data_types is a word
 * ("fp8"), a list ("fp8,fp16,int8": the first), an object of parts, or a
 * "clip1:fp32,unet:fp8" list or "{'unet': 'fp8', ...}" text (SDXL: the
 * U-Net's). NULL when none is known ("UNSET"). */
static const char *precision_of(const cJSON *types)
{
    const cJSON *unet = cJSON_GetObjectItemCaseSensitive(types, "unet");
    const char *s = cJSON_IsString(unet) ? unet->valuestring
                                         : (cJSON_IsString(types) ? types->valuestring : NULL);
    if (s == NULL)
        return NULL;
    const char *u = strstr(s, "unet");
    if (u != NULL)
        s = u + strlen("unet") + strspn(u + strlen("unet"), "'\": ");
    return precision_word(s, strcspn(s, ",; '\"}"));
}

/* Llama 2 70B as rows I11-I20 give it (the registry's shape, spelled out). */
static cJSON *llama2_workload(double output_tokens, const char *precision)
{
    char text[MLPERF_TEXT];
    snprintf(text, sizeof(text),
             "{\"task\":\"inference\",\"model\":{\"name\":\"llama-2-70b\",\"parameters\":6.9e10,"
             "\"layers\":80,\"hidden_size\":8192,\"attention_heads\":64,\"kv_heads\":8},"
             "\"inference\":{\"requests_per_second\":1000000,\"input_tokens\":218,"
             "\"output_tokens\":%.0f%s}}",
             output_tokens, strcmp(precision, "fp8") == 0 ? ",\"kv_cache_precision\":\"fp8\"" : "");
    return cJSON_Parse(text);
}

/* "TOKENS_PER_SAMPLE: 301.1" in a result's Accuracy text, or NAN. */
static double tokens_per_sample(const cJSON *entry)
{
    const cJSON *acc = cJSON_GetObjectItemCaseSensitive(entry, "Accuracy");
    const char *t = cJSON_IsString(acc) ? strstr(acc->valuestring, "TOKENS_PER_SAMPLE:") : NULL;
    if (t == NULL)
        return NAN;
    char *end = NULL;
    double v = strtod(t + strlen("TOKENS_PER_SAMPLE:"), &end);
    return end != NULL && isfinite(v) && v >= 1 ? v : NAN;
}

/* ---- one result ----------------------------------------------------------------- */

/* The fields of one summary entry this importer reads. */
struct result {
    const char *model, *scenario, *accelerator, *location, *submitter, *platform, *version;
    const char *units; /* Performance_Units, or NULL when absent */
    double chips, performance;
    const cJSON *types;
};

static bool problem(cJSON *problems, size_t i, const char *field, const char *msg)
{
    char text[MLPERF_TEXT];
    snprintf(text, sizeof(text), "/%zu/%s: %s", i, field, msg);
    cJSON_AddItemToArray(problems, cJSON_CreateString(text));
    return false;
}

static bool get_string(const cJSON *e, const char *key, const char **out, cJSON *problems, size_t i)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, key);
    *out = cJSON_IsString(v) ? v->valuestring : NULL;
    return *out != NULL || problem(problems, i, key, "missing or not a string");
}

static bool get_count(const cJSON *e, const char *key, double *out, cJSON *problems, size_t i)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, key);
    /* A CPU-only system leaves a# empty: no accelerators, not a malformed entry. */
    if (cJSON_IsString(v) && v->valuestring[0] == '\0') {
        *out = 0;
        return true;
    }
    *out = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    return (isfinite(*out) && *out >= 0 && *out == floor(*out) && *out <= 1e6) ||
           problem(problems, i, key, "missing or not a whole number of at most 1000000");
}

/* The entry's fields, or false with each problem reported. */
static bool read_result(const cJSON *e, size_t i, struct result *r, cJSON *problems)
{
    if (!cJSON_IsObject(e))
        return problem(problems, i, "", "a result must be an object");
    bool ok = get_string(e, "Model", &r->model, problems, i);
    ok = get_string(e, "Scenario", &r->scenario, problems, i) && ok;
    ok = get_string(e, "Accelerator", &r->accelerator, problems, i) && ok;
    ok = get_string(e, "Location", &r->location, problems, i) && ok;
    ok = get_string(e, "Submitter", &r->submitter, problems, i) && ok;
    ok = get_string(e, "Platform", &r->platform, problems, i) && ok;
    ok = get_string(e, "version", &r->version, problems, i) && ok;
    double per_node = 0, nodes = 0;
    ok = get_count(e, "a#", &per_node, problems, i) && ok;
    ok = get_count(e, "Nodes", &nodes, problems, i) && ok;
    r->chips = per_node * nodes;
    const cJSON *perf = cJSON_GetObjectItemCaseSensitive(e, "Performance_Result");
    r->performance = cJSON_IsNumber(perf) ? perf->valuedouble : NAN;
    if (!(isfinite(r->performance) && r->performance > 0))
        ok = problem(problems, i, "Performance_Result", "missing or not a positive number");
    if (ok && (strncmp(r->version, "v", 1) != 0 ||
               strspn(r->version + 1, "0123456789.") != strlen(r->version + 1)))
        ok = problem(problems, i, "version", "not a round such as \"v5.1\"");
    r->types = cJSON_GetObjectItemCaseSensitive(e, "weight_data_types");
    const cJSON *units = cJSON_GetObjectItemCaseSensitive(e, "Performance_Units");
    r->units = cJSON_IsString(units) ? units->valuestring : NULL;
    return ok;
}

/* The workload of a result, or NULL when it cannot be stated (*why says). */
static cJSON *workload_of(const struct benchmark *b, const cJSON *entry, const char *precision,
                          const char **why)
{
    cJSON *w = NULL;
    if (b->workload != NULL) {
        w = cJSON_Parse(b->workload);
    } else {
        double out = tokens_per_sample(entry);
        if (!isfinite(out)) {
            *why = "no TOKENS_PER_SAMPLE in its Accuracy";
            return NULL;
        }
        w = llama2_workload(out, precision);
    }
    if (w != NULL)
        cJSON_AddStringToObject(w, "precision", precision);
    return w;
}

static cJSON *row_of(const struct result *r, const struct benchmark *b, const char *part,
                     const char *precision, cJSON *workload, const char *id)
{
    char run[MLPERF_TEXT], source[MLPERF_TEXT], evidence[2 * MLPERF_TEXT];
    snprintf(run, sizeof(run), "MLPerf Inference %s %s Offline, %.0f x %s (%s %s), %s", r->version,
             b->title, r->chips, part, r->submitter, r->platform, precision);
    snprintf(source, sizeof(source), "https://github.com/mlcommons/inference_results_%s",
             r->version);
    int n = snprintf(evidence, sizeof(evidence),
                     "summary_results.json (imported by accel-advisor calibrate import-mlperf): "
                     "Location '%s', Accelerator '%s', %.0f chips, Performance_Result %.6g %s",
                     r->location, r->accelerator, r->chips, r->performance, r->units);
    /* A multiple is whole (DLRM's 270 pairs a sample); a share (Whisper's
     * words to clips) reads as the division it is. */
    if (b->per_sample > 1 && n > 0 && (size_t)n < sizeof(evidence))
        snprintf(evidence + n, sizeof(evidence) - (size_t)n, " (x %.0f = %.6g)", b->per_sample,
                 r->performance * b->per_sample);
    else if (b->per_sample < 1 && b->per_sample > 0 && n > 0 && (size_t)n < sizeof(evidence))
        snprintf(evidence + n, sizeof(evidence) - (size_t)n, " (/ %.5g = %.6g)",
                 1.0 / b->per_sample, r->performance * b->per_sample);
    cJSON *row = cJSON_CreateObject();
    cJSON *measured = cJSON_CreateObject();
    if (row == NULL || measured == NULL) {
        cJSON_Delete(row);
        cJSON_Delete(measured);
        cJSON_Delete(workload);
        return NULL;
    }
    cJSON_AddStringToObject(row, "id", id);
    cJSON_AddStringToObject(row, "run", run);
    cJSON_AddStringToObject(row, "accelerator", part);
    cJSON_AddNumberToObject(row, "chips", r->chips);
    cJSON_AddStringToObject(row, "split", "fit");
    cJSON_AddItemToObject(row, "workload", workload);
    cJSON_AddNumberToObject(measured, b->measure, r->performance * b->per_sample);
    cJSON_AddItemToObject(row, "measured", measured);
    cJSON_AddStringToObject(row, "source", source);
    cJSON_AddStringToObject(row, "evidence", evidence);
    cJSON_AddStringToObject(row, "note", b->note);
    return row;
}

/* ---- the summary ------------------------------------------------------------------ */

/* One entry: a row appended to `rows`, a problem reported, or neither (a
 * result this importer does not take: not Offline, a benchmark or part it has
 * no workload for). */
static void import_one(const dc_ruleset *rs, const cJSON *e, size_t i, const char *prefix,
                       cJSON *rows, cJSON *problems, struct dc_mlperf_counts *c)
{
    struct result r = {0};
    if (!read_result(e, i, &r, problems)) {
        c->malformed++;
        return;
    }
    const struct benchmark *b = find_benchmark(r.model);
    const char *part = part_of(rs, r.accelerator);
    if (strcmp(r.scenario, "Offline") != 0 || b == NULL || part == NULL || r.chips < 1) {
        c->skipped++;
        return;
    }
    /* The measure is read from the result's units: one this importer does not
     * expect (a renamed metric, a Server result filed as Offline) is reported. */
    if (r.units == NULL || strcmp(r.units, b->units) != 0) {
        char msg[128];
        snprintf(msg, sizeof(msg), "missing or not \"%s\", the units this importer reads %s in",
                 b->units, b->model);
        problem(problems, i, "Performance_Units", msg);
        c->malformed++;
        return;
    }
    const char *precision = precision_of(r.types), *why = "not stated";
    cJSON *w = precision != NULL ? workload_of(b, e, precision, &why) : NULL;
    if (w == NULL) {
        problem(problems, i, precision == NULL ? "weight_data_types" : "Accuracy",
                precision == NULL ? "no precision this importer knows" : why);
        c->malformed++;
        return;
    }
    char id[64];
    snprintf(id, sizeof(id), "%s%zu", prefix, c->imported + 1);
    cJSON *row = row_of(&r, b, part, precision, w, id);
    if (row != NULL) {
        cJSON_AddItemToArray(rows, row);
        c->imported++;
    }
}

enum dc_status dc_calibration_import_mlperf(const dc_ruleset *rs, const cJSON *summary,
                                            const char *prefix, cJSON *rows, cJSON *problems,
                                            struct dc_mlperf_counts *counts, struct dc_error *err)
{
    if (rs == NULL || prefix == NULL || !cJSON_IsArray(rows) || !cJSON_IsArray(problems) ||
        counts == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "dc_calibration_import_mlperf: bad argument");
    if (!cJSON_IsArray(summary))
        return dc_error_set(err, DC_EINVAL, "",
                            "an MLPerf summary must be a JSON array of results");
    if (strlen(prefix) == 0 || strlen(prefix) > 16 ||
        strspn(prefix, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != strlen(prefix))
        return dc_error_set(err, DC_EINVAL, NULL, "the row prefix must be 1 to 16 capital letters");
    *counts = (struct dc_mlperf_counts){0, 0, 0};
    size_t i = 0;
    const cJSON *e = NULL;
    cJSON_ArrayForEach(e, summary)
    {
        if (i == DC_MLPERF_MAX_RESULTS)
            return dc_error_set(err, DC_ELIMIT, NULL, "more than %d results in the summary",
                                DC_MLPERF_MAX_RESULTS);
        import_one(rs, e, i++, prefix, rows, problems, counts);
    }
    return DC_OK;
}
