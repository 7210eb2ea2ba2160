/* core/include/dc/hash.h -- the project's one non-cryptographic hash: 64-bit
 * FNV-1a (Fowler, Noll and Vo, http://www.isthe.com/chongo/tech/comp/fnv/),
 * for hash tables, cache keys and stable orders, never for anything an
 * attacker may choose to collide. Used by core (yaml.c's key index,
 * calibration.c's held-out split, which the published tables depend on: the
 * function must never change), api (schema_json.c's value hash) and the
 * service (rulesrc.c's directory fingerprint). Header-only. */
#ifndef DC_HASH_H
#define DC_HASH_H

#include <stddef.h>
#include <stdint.h>

#define DC_FNV64_OFFSET 0xcbf29ce484222325ull
#define DC_FNV64_PRIME  0x100000001b3ull

/* `n` bytes of `p` into the running hash `h` (start from DC_FNV64_OFFSET). */
static inline uint64_t dc_fnv64(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= DC_FNV64_PRIME;
    }
    return h;
}

/* The hash of a NUL-terminated string. */
static inline uint64_t dc_fnv64_str(const char *s)
{
    uint64_t h = DC_FNV64_OFFSET;
    for (const unsigned char *c = (const unsigned char *)s; *c != '\0'; c++) {
        h ^= *c;
        h *= DC_FNV64_PRIME;
    }
    return h;
}

#endif /* DC_HASH_H */
