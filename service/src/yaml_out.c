/* service/src/yaml_out.c -- block-style YAML from a cJSON document. */
#include "yaml_out.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "api/jsonw.h"
#include "dc/utf8.h"

static bool letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* True when `s` may be written plain and reads back as this string. */
static bool plain_ok(const char *s)
{
    /* Scalars YAML 1.2 or 1.1 resolve to null or a boolean. */
    static const char *const keywords[] = {"null", "true", "false", "yes", "no",
                                           "on",   "off",  "y",     "n"};
    if (!letter(s[0]))
        return false;
    for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++) {
        if (strcasecmp(s, keywords[i]) == 0)
            return false;
    }
    size_t n = strlen(s);
    if (s[n - 1] == ' ')
        return false;
    for (const char *p = s; *p != '\0'; p++) {
        if (letter(*p) || (*p >= '0' && *p <= '9') || strchr(" _./-()+,%='", *p) != NULL)
            continue;
        if (*p == ':' && p[1] != ' ' && p[1] != '\0')
            continue;
        return false;
    }
    return true;
}

/* Code points YAML may not carry raw in a double-quoted scalar: outside its
 * printable set, or line breaks in YAML 1.1 (NEL, LS, PS), or the BOM. */
static bool must_escape(uint32_t cp)
{
    return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0xfeff || cp == 0xfffe || cp == 0xffff;
}

static void quoted(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0';) {
        uint32_t cp = 0;
        size_t n = dc_utf8_seq(p, SIZE_MAX, &cp);
        bool bad = n == 0;
        if (bad) {
            cp = 0xfffd; /* a byte that is not UTF-8: the replacement character */
            n = 1;
        }
        static const char shorts[] = "\b\f\n\r\t", letters[] = "bfnrt";
        const char *sh = cp != 0 && cp < 0x20 ? strchr(shorts, (int)cp) : NULL;
        if (cp == '"' || cp == '\\')
            fprintf(fp, "\\%c", (int)cp);
        else if (sh != NULL)
            fprintf(fp, "\\%c", letters[sh - shorts]);
        else if (bad || must_escape(cp))
            fprintf(fp, "\\u%04x", (unsigned)cp);
        else
            fwrite(p, 1, n, fp);
        p += n;
    }
    fputc('"', fp);
}

static void string(FILE *fp, const char *s)
{
    if (plain_ok(s))
        fputs(s, fp);
    else
        quoted(fp, s);
}

static void scalar(FILE *fp, const cJSON *v)
{
    char num[API_JSON_NUMBER_BUF];
    if (cJSON_IsString(v)) {
        string(fp, v->valuestring);
    } else if (cJSON_IsNumber(v)) {
        size_t n = api_json_number(v->valuedouble, num, sizeof(num));
        fwrite(num, 1, n, fp);
    } else if (cJSON_IsBool(v)) {
        fputs(cJSON_IsTrue(v) ? "true" : "false", fp);
    } else if (cJSON_IsArray(v)) {
        fputs("[]", fp);
    } else if (cJSON_IsObject(v)) {
        fputs("{}", fp);
    } else {
        fputs("null", fp);
    }
}

static bool nested(const cJSON *v)
{
    return (cJSON_IsArray(v) || cJSON_IsObject(v)) && v->child != NULL;
}

static void indent(FILE *fp, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        fputc(' ', fp);
}

/* Write `v` whose first line starts where the cursor is: at column `col` on a
 * fresh line, or right after "- " (`inline_first`), in which case only the lines
 * after the first are indented to `col`. */
static void block(FILE *fp, const cJSON *v, unsigned col, bool inline_first)
{
    bool first = true;
    const cJSON *it = NULL;
    if (!nested(v)) {
        scalar(fp, v);
        fputc('\n', fp);
        return;
    }
    cJSON_ArrayForEach(it, v)
    {
        if (!(first && inline_first))
            indent(fp, col);
        first = false;
        if (cJSON_IsArray(v)) {
            fputs("- ", fp);
            if (nested(it)) {
                block(fp, it, col + 2, true);
                continue;
            }
        } else {
            string(fp, it->string);
            fputc(':', fp);
            if (nested(it)) {
                fputc('\n', fp);
                block(fp, it, col + 2, false);
                continue;
            }
            fputc(' ', fp);
        }
        scalar(fp, it);
        fputc('\n', fp);
    }
}

enum dc_status svc_yaml_write(FILE *fp, const cJSON *doc)
{
    block(fp, doc, 0, false);
    return ferror(fp) == 0 ? DC_OK : DC_EIO;
}
