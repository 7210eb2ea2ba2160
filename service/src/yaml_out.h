/* service/src/yaml_out.h -- a JSON document written as block-style YAML for
 * `-o yaml` of the CLI.
 *
 * What is written loads back (core/include/dc/yaml.h, or any YAML 1.2 parser)
 * into the same document: a string is plain only when it cannot read as
 * anything else (it starts with a letter, holds only letters, digits, spaces
 * and `_ . / - ( ) + , % = '`, a colon only when no space follows it, does not
 * end in a space, and is no YAML 1.1 or 1.2 keyword such as null, true, yes or
 * off); any other string is double-quoted with JSON's escapes plus \uXXXX for
 * the characters YAML may not carry raw (DEL, C1 controls, U+2028, U+2029,
 * U+FEFF, U+FFFE, U+FFFF). Bytes that are not UTF-8 are written as U+FFFD.
 * Numbers are written as cJSON prints them, so they read back as the same
 * doubles. Empty arrays and objects are [] and {}. */
#ifndef SVC_YAML_OUT_H
#define SVC_YAML_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "dc/common.h"

/* Write `doc` (borrowed) to `fp` (borrowed) as one YAML document ending in a
 * newline. DC_EIO when a write failed (the output is then incomplete). */
enum dc_status svc_yaml_write(FILE *fp, const cJSON *doc);

#endif /* SVC_YAML_OUT_H */
