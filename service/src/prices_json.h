/* service/src/prices_json.h -- walking a large JSON document as text, one
 * member or element at a time, for the price imports (prices_aws.c,
 * prices_azure.c): an offer file of up to SVC_PRICES_IMPORT_MAX_BYTES parsed
 * whole into a cJSON tree costs many times its size, so only the values an
 * import keeps are parsed (svc_json_parse), each alone. The walk checks that
 * strings end and brackets balance, to a nesting of SVC_JSON_DEPTH_MAX;
 * cJSON checks each value it parses. */
#ifndef SVC_PRICES_JSON_H
#define SVC_PRICES_JSON_H

#include <stdbool.h>

#include <cjson/cJSON.h>

/* Longest member name kept (decoded); a longer one reads as "". */
#define SVC_JSON_KEY_MAX   63
#define SVC_JSON_DEPTH_MAX 64

/* One member of an object, or one element of an array (key ""). */
struct svc_json_member {
    char key[SVC_JSON_KEY_MAX + 1];
    const char *val, *val_end;
};

/* Past the JSON whitespace at p. */
const char *svc_json_ws(const char *p, const char *end);

/* The next member of the object whose '{' *p is at (`first`) or after a
 * member: 1 found (*p past it), 0 the object ended (*p past its '}'), -1
 * malformed. */
int svc_json_next(const char **p, const char *end, bool first, struct svc_json_member *m);

/* The same for the elements of an array ('[' ... ']'). */
int svc_json_next_element(const char **p, const char *end, bool first, struct svc_json_member *m);

/* The value of `m` parsed alone (the caller's, cJSON_Delete), or NULL. */
cJSON *svc_json_parse(const struct svc_json_member *m);

#endif
