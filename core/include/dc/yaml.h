/* core/include/dc/yaml.h -- YAML documents (libyaml) as cJSON trees, with the
 * source line of every node so loaders can report `file:line`.
 *
 * Scalars resolve as in the YAML 1.2 core schema: plain null/~/empty -> null,
 * true/false -> bool, decimal/0x/0o integers and decimals -> number, anything
 * else -> string; quoted scalars are always strings. Aliases, anchors, tags
 * other than the standard ones, duplicate mapping keys, non-scalar mapping keys,
 * non-finite numbers and multi-document streams are errors: rule files are
 * untrusted input and none of those are needed to write them. */
#ifndef DC_YAML_H
#define DC_YAML_H

#include <cjson/cJSON.h>

#include "dc/common.h"

/* Named limits on untrusted YAML. */
#define DC_YAML_MAX_BYTES (1u << 20) /* one file */
#define DC_YAML_MAX_DEPTH 64         /* nesting of sequences and mappings */
#define DC_YAML_MAX_NODES 200000     /* nodes in one document */

typedef struct dc_yaml_doc dc_yaml_doc; /* opaque: a tree plus its line marks */

/* Parse `len` bytes at `data` (borrowed, need not be NUL-terminated). `name`
 * (borrowed) is used in error locations ("rules.yaml:12"). On DC_OK *out is owned
 * by the caller (dc_yaml_doc_free). Errors: DC_EINVAL, DC_EPARSE (syntax and the
 * rejected constructs above; err->where = "name:line"), DC_ELIMIT, DC_ENOMEM.
 * Thread-safe. */
DC_API DC_NODISCARD enum dc_status dc_yaml_parse(const char *data, size_t len, const char *name,
                                                 dc_yaml_doc **out, struct dc_error *err);

/* The document's root (returns view, valid until dc_yaml_doc_free). An empty
 * document has a null root. */
DC_API const cJSON *dc_yaml_root(const dc_yaml_doc *doc);

/* Detach the root: the caller owns the returned tree (cJSON_Delete); line marks
 * stay valid for lookups of its nodes until dc_yaml_doc_free. */
DC_API cJSON *dc_yaml_take_root(dc_yaml_doc *doc);

/* 1-based source line of `node` (a node of this document), or 0 if unknown. */
DC_API unsigned dc_yaml_line(const dc_yaml_doc *doc, const cJSON *node);

DC_API void dc_yaml_doc_free(dc_yaml_doc *doc);

#endif /* DC_YAML_H */
