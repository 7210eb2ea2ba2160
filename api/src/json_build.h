/* api/src/json_build.h -- the tree of a JSON text that api_json_parse's scan
 * has proven valid, built in one pass: the nodes cJSON's parser would make,
 * field for field, allocated from an arena or by cJSON's allocator. Owned by
 * api/ (api/src/json_build.c); used by json_read.c alone. */
#ifndef API_JSON_BUILD_H
#define API_JSON_BUILD_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "arena.h"

/* The tree of `data` (len bytes, data[len] a NUL byte), which must be exactly
 * one JSON value that api_json_parse's scan accepted: strict grammar, valid
 * UTF-8, no \u0000, paired surrogates, numbers of at most 63 characters,
 * nesting bounded. Nodes and strings come from `ar`, or with `ar` NULL from
 * cJSON_malloc, one block each, so that cJSON_Delete frees the tree. Every
 * node is what cJSON_ParseWithLengthOpts makes of the same text (type,
 * valueint, valuedouble, valuestring, string, and the links, the first
 * child's prev naming the last). NULL when out of memory (a partial tree is
 * freed, or left to the arena). */
cJSON *api__json_build(const char *data, size_t len, struct dc__arena *ar);

#endif /* API_JSON_BUILD_H */
