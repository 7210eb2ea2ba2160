/* service/src/http_json.h -- response bodies rendered fast, byte for byte as cJSON
 * renders them.
 *
 * cJSON_PrintUnformatted formats every non-integer number with sprintf("%1.15g"),
 * reads it back with sscanf and grows its buffer by reallocating; on a
 * recommendation body that costs several times the decision itself. This writer
 * produces exactly the same bytes (so `accel-advisor recommend` prints what the
 * server sends) with a fast path for the numbers a body actually holds: integers,
 * and decimals with at most 15 significant digits (which %1.15g prints as they
 * are); anything else takes cJSON's own sprintf path. */
#ifndef SVC_HTTP_JSON_H
#define SVC_HTTP_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Render `item` (borrowed) on one line. Returns owned text (free()) of *len
 * bytes plus a NUL, or NULL when out of memory or `item` is NULL. `hint` is the
 * expected size (0 for a default). Thread-safe. */
char *svc_json_print(const cJSON *item, size_t hint, size_t *len);

/* Format one number as cJSON does (into buf, >= 32 bytes); returns its length. */
size_t svc_json_number(double d, char *buf, size_t cap);

#endif /* SVC_HTTP_JSON_H */
