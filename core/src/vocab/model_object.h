/* core/src/vocab/model_object.h -- the Workload `model` object: its fields and
 * their checks (core/src/vocab/model_object.c). Used by the workload parser
 * (workload.c) and the model registry (models.c). Not part of the public
 * API. */
#ifndef DC_MODEL_OBJECT_H
#define DC_MODEL_OBJECT_H

#include <cjson/cJSON.h>

#include "dc/workload.h"

/* The fields of a Workload `model` object, NULL-terminated: first the
 * DC__MODEL_REQUEST_KEYS that only a request gives (a registry entry has its
 * name and architecture beside its facts, does not name another, and
 * custom_ops and dynamic_shapes describe the user's code, not the model),
 * then the model's own, which a registry entry's facts give too. */
extern const char *const dc__model_keys[];
#define DC__MODEL_REQUEST_KEYS 4

/* The model fields of `w` from `m`, an object whose keys were checked against
 * dc__model_keys. Errors: DC_EINVAL with err->where the field's pointer. */
enum dc_status dc__model_parse(const cJSON *m, struct dc_workload *w, struct dc_error *err);

/* Check a Workload `model` object as a request's would be (a registry entry,
 * core/src/rules/models.c). Errors: DC_EINVAL with err->where its pointer. */
enum dc_status dc__model_check(const dc_ruleset *rs, const cJSON *model, struct dc_error *err);

#endif
