/* core/src/vocab/names.c -- the vocabulary shared by rules, catalog and workloads. */
#include "names.h"

#include <string.h>

#include "dc/ruleset.h"

static const char *const family_names[DC_FAMILY_COUNT] = {"gpu", "tpu", "cpu", "asic"};
static const char *const precision_names[DC_PREC_COUNT] = {"fp64", "fp32", "bf16", "fp16",
                                                           "fp8",  "fp4",  "int8", "int4"};
static const char *const provider_names[DC_PROVIDER_COUNT] = {"aws", "gcp", "azure", "oci",
                                                              "neocloud"};

static bool lookup(const char *s, const char *const *names, size_t n, size_t *out)
{
    if (s == NULL)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return true;
        }
    }
    return false;
}

const char *dc_family_name(enum dc_family f)
{
    return (unsigned)f < DC_FAMILY_COUNT ? family_names[f] : "unknown";
}

const char *dc_precision_name(enum dc_precision p)
{
    return (unsigned)p < DC_PREC_COUNT ? precision_names[p] : "unknown";
}

const char *dc_provider_name(enum dc_provider p)
{
    return (unsigned)p < DC_PROVIDER_COUNT ? provider_names[p] : "unknown";
}

bool dc_family_parse(const char *s, enum dc_family *out)
{
    size_t i = 0;
    if (!lookup(s, family_names, DC_FAMILY_COUNT, &i))
        return false;
    *out = (enum dc_family)i;
    return true;
}

bool dc_precision_parse(const char *s, enum dc_precision *out)
{
    size_t i = 0;
    if (!lookup(s, precision_names, DC_PREC_COUNT, &i))
        return false;
    *out = (enum dc_precision)i;
    return true;
}

bool dc_provider_parse(const char *s, enum dc_provider *out)
{
    size_t i = 0;
    if (!lookup(s, provider_names, DC_PROVIDER_COUNT, &i))
        return false;
    *out = (enum dc_provider)i;
    return true;
}

static const char *const pricing_names[DC_PRICING_COUNT] = {"on_demand", "spot", "committed_1y",
                                                            "committed_3y"};

const char *dc_pricing_name(enum dc_pricing p)
{
    return (unsigned)p < DC_PRICING_COUNT ? pricing_names[p] : "unknown";
}

bool dc_pricing_parse(const char *s, enum dc_pricing *out)
{
    size_t i = 0;
    if (!lookup(s, pricing_names, DC_PRICING_COUNT, &i))
        return false;
    *out = (enum dc_pricing)i;
    return true;
}

static const char *const basis_names[DC_BASIS_COUNT] = {"on_demand", "spot", "committed_1y",
                                                        "committed_3y", "reserved"};
_Static_assert((int)DC_BASIS_RESERVED == (int)DC_PRICING_COUNT,
               "a price basis is a basis of the same name");

const char *dc_basis_name(enum dc_basis b)
{
    return (unsigned)b < DC_BASIS_COUNT ? basis_names[b] : "unknown";
}

bool dc_basis_parse(const char *s, enum dc_basis *out)
{
    size_t i = 0;
    if (!lookup(s, basis_names, DC_BASIS_COUNT, &i))
        return false;
    *out = (enum dc_basis)i;
    return true;
}

static const char *const regime_names[DC_REGIME_COUNT] = {
    "training", "training-dense", "training-moe", "fine-tuning",     "training-other",
    "serving",  "serving-dense",  "serving-moe",  "serving-latency", "serving-other"};

const char *dc_regime_name(enum dc_regime r)
{
    return (unsigned)r < DC_REGIME_COUNT ? regime_names[r] : "unknown";
}

bool dc_regime_parse(const char *s, enum dc_regime *out)
{
    size_t i = 0;
    if (!lookup(s, regime_names, DC_REGIME_COUNT, &i))
        return false;
    *out = (enum dc_regime)i;
    return true;
}

enum dc_regime dc_regime_pool(enum dc_regime r)
{
    return r < DC_REGIME_SERVING ? DC_REGIME_TRAINING : DC_REGIME_SERVING;
}

/* In enum dc_quantization order; the workload parser reads it too. */
const char *const dc__quantization_names[] = {"none", "awq", "gptq", "nf4", "mxfp4", "int8", NULL};

const char *dc__quantization_name(enum dc_quantization q)
{
    return dc__quantization_names[q];
}
