/* core/src/vocab/names.h -- the vocabulary names that have no public API:
 * the quantization formats (core/src/vocab/names.c). The public names
 * (families, precisions, providers, pricing, bases, regimes) are declared
 * in dc/ruleset.h. Used by the workload parser
 * (workload.c) and the reason texts (reasons.c). Not part of the public
 * API. */
#ifndef DC_VOCAB_NAMES_H
#define DC_VOCAB_NAMES_H

#include "dc/workload.h"

/* The quantization formats, in enum dc_quantization order and NULL-terminated,
 * and one of them by its enum. */
extern const char *const dc__quantization_names[];
const char *dc__quantization_name(enum dc_quantization q);

#endif
