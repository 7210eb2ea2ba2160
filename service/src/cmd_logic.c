/* service/src/cmd_logic.c -- `accel-advisor logic`: evaluate JSONLogic, one
 * expression from the command line or many as JSON Lines, so rule authors can
 * test conditions in bulk with the same evaluator the service uses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "dc/logic.h"

/* Longest line of --jsonl input. */
#define LOGIC_MAX_LINE (1u << 20)

/* Its flags, for the shell completion; the arguments are parsed by hand below
 * (a RULE may begin with "-"). */
const struct option cmd_logic_options[] = {
    {"jsonl", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};

static void help(FILE *fp)
{
    fprintf(fp, "usage: accel-advisor logic RULE [DATA]\n"
                "       accel-advisor logic --jsonl < FILE\n\n"
                "RULE and DATA are JSON text. With --jsonl, each input line is a JSON array\n"
                "[rule, data] and each output line is the JSON result, or {\"error\": ...}\n"
                "for a line that fails.\n\n"
                "exit status: 0 all evaluated, 1 an expression failed, 2 usage\n");
}

/* Evaluate and print one result line. Returns 0 on success. */
static int eval_one(const cJSON *rule, const cJSON *data, const char *label)
{
    dc_logic *logic = NULL;
    cJSON *out = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    enum dc_status rc = dc_logic_compile(rule, NULL, &logic, &err);
    if (rc == DC_OK)
        rc = dc_logic_eval(logic, data, &out, &err);
    int status = 0;
    if (rc != DC_OK) {
        cJSON *e = cJSON_CreateObject();
        char msg[DC_ERROR_MSG_MAX + DC_ERROR_WHERE_MAX + 64];
        snprintf(msg, sizeof(msg), "%s%s%s%s", label, err.where[0] != '\0' ? err.where : "",
                 err.where[0] != '\0' ? ": " : "", err.msg);
        cJSON_AddStringToObject(e, "error", msg);
        char *s = cJSON_PrintUnformatted(e);
        printf("%s\n", s != NULL ? s : "{\"error\":\"out of memory\"}");
        cJSON_free(s);
        cJSON_Delete(e);
        status = 1;
    } else {
        char *s = cJSON_PrintUnformatted(out);
        printf("%s\n", s != NULL ? s : "null");
        cJSON_free(s);
    }
    cJSON_Delete(out);
    dc_logic_free(logic);
    return status;
}

static int run_jsonl(void)
{
    char *line = malloc(LOGIC_MAX_LINE + 2);
    if (line == NULL)
        return 2;
    int status = 0;
    unsigned long lineno = 0;
    while (fgets(line, LOGIC_MAX_LINE + 2, stdin) != NULL) {
        lineno++;
        size_t n = strlen(line);
        if (n > LOGIC_MAX_LINE) {
            printf("{\"error\":\"line %lu: longer than %u bytes\"}\n", lineno, LOGIC_MAX_LINE);
            /* Skip the rest of the over-long line. */
            int ch;
            while ((ch = getchar()) != EOF && ch != '\n')
                ;
            status = 1;
            continue;
        }
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0)
            continue;
        char label[64];
        snprintf(label, sizeof(label), "line %lu: ", lineno);
        cJSON *pair = cJSON_ParseWithLengthOpts(line, n + 1, NULL, true); /* NUL inside */
        if (!cJSON_IsArray(pair) || cJSON_GetArraySize(pair) < 1 || cJSON_GetArraySize(pair) > 2) {
            printf("{\"error\":\"line %lu: expected a JSON array [rule, data]\"}\n", lineno);
            cJSON_Delete(pair);
            status = 1;
            continue;
        }
        if (eval_one(cJSON_GetArrayItem(pair, 0), cJSON_GetArrayItem(pair, 1), label) != 0)
            status = 1;
        cJSON_Delete(pair);
    }
    free(line);
    return status;
}

int cmd_logic(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        help(stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--jsonl") == 0)
        return run_jsonl();
    if (argc < 2 || argc > 3) {
        help(stderr);
        return 2;
    }
    cJSON *rule = cJSON_Parse(argv[1]);
    cJSON *data = argc == 3 ? cJSON_Parse(argv[2]) : NULL;
    int status;
    if (rule == NULL || (argc == 3 && data == NULL)) {
        fprintf(stderr, "logic: %s is not valid JSON\n", rule == NULL ? "RULE" : "DATA");
        status = 2;
    } else {
        status = eval_one(rule, data, "");
    }
    cJSON_Delete(rule);
    cJSON_Delete(data);
    return status;
}
