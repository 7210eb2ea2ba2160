/* service/src/jsonpath.h -- `-o jsonpath=TEMPLATE`: the fields of a command's
 * JSON document picked out as kubectl's `-o jsonpath` picks them, a
 * documented subset of its template language (docs/cli.md, "Picking fields").
 * Owned by the CLI work (issue 34).
 *
 * A template is text with expressions in braces:
 *   {.a.b}  {['a b']}  {.list[0]}  {.list[-1]}  {.list[*].name}  {.map.*}
 *   {$.a} (from the root)  {@.a} or {.a} (from the current item of a range)
 *   {range .list[*]}...{end}  {"literal text\n"}
 * Text outside braces is copied as it is. The values one expression selects
 * are printed separated by single spaces: strings as they are (no quotes),
 * numbers, true, false and null as JSON writes them, objects and arrays as
 * one line of JSON. A field that is not there or an index out of range is an
 * error, naming the nearest field there is; so is what the subset leaves out
 * (filters [?()], slices [a:b], unions [a,b], recursive descent ..). */
#ifndef SVC_JSONPATH_H
#define SVC_JSONPATH_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "dc/common.h"

/* Characters in one template, and how deep ranges nest. */
#define SVC_JSONPATH_MAX_LEN   4096
#define SVC_JSONPATH_MAX_DEPTH 8

typedef struct svc_jsonpath svc_jsonpath;

/* Compile `tmpl`. DC_EPARSE with err->msg saying what and where (the
 * character's offset) when it is not a template of the subset; DC_ENOMEM. */
enum dc_status svc_jsonpath_compile(const char *tmpl, svc_jsonpath **out, struct dc_error *err);

/* Print what `p` selects from `doc` to `fp`, then a newline. DC_EINVAL with
 * err->msg when a field is missing or an index out of range (some output may
 * have been written before), DC_ENOMEM, DC_EIO when a write failed. */
enum dc_status svc_jsonpath_print(const svc_jsonpath *p, const cJSON *doc, FILE *fp,
                                  struct dc_error *err);

void svc_jsonpath_free(svc_jsonpath *p);

#endif /* SVC_JSONPATH_H */
