/* api/src/schema_regex.c -- ECMA-262 (unicode mode) regular expressions for
 * `pattern` and `patternProperties`, compiled to a Thompson automaton.
 *
 * Why our own engine rather than POSIX regcomp: ECMA-262 semantics differ from
 * POSIX ERE in ways the JSON Schema suite checks (\d is ASCII only, \s is the
 * Unicode white-space set, `$` does not match before a trailing newline, `.`
 * and ranges work on code points, \p{...} property escapes), and instance
 * strings come from untrusted clients, so matching must not backtrack: the
 * automaton is simulated breadth-first (Pike/Thompson), which takes time
 * linear in the subject for a given pattern. The price is that the features
 * needing backtracking -- backreferences and lookaround -- are refused at
 * compile time with a clear message.
 *
 * Pipeline: recursive-descent parser -> small AST in one array -> size check
 * -> code generation (counted repetition is expanded) -> immutable program.
 * The search keeps per-call scratch (on the stack for small programs), so a
 * compiled regex is shared freely between threads. */
#include "schema_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RE_INF    UINT32_MAX /* unbounded repetition maximum */
#define RE_MAX_CP 0x10FFFFu  /* last Unicode code point */
/* Programs up to this many instructions search with stack scratch only. */
#define RE_STACK_INSNS 256
/* "No instruction/node": ends the chains of forward jumps that gen_node()
 * links through their own target field until the target is known. */
#define RE_NO_PC UINT32_MAX

/* ---- Compiled form ------------------------------------------------------ */

enum re_op {
    OP_CHAR,   /* x: code point */
    OP_ANY,    /* any code point but a line terminator */
    OP_CLASS,  /* x: index into classes */
    OP_SPLIT,  /* fork to x and y */
    OP_JMP,    /* go to x */
    OP_BOL,    /* assert start of input */
    OP_EOL,    /* assert end of input */
    OP_WORDB,  /* assert a word boundary */
    OP_NWORDB, /* assert no word boundary */
    OP_MATCH
};

struct re_insn {
    uint8_t op;
    uint32_t x;
    uint32_t y;
};

/* A set of code points: sorted, disjoint, non-adjacent [lo, hi] ranges, plus a
 * mask of General_Category values, the union of both optionally negated. */
struct re_class {
    uint32_t *ranges; /* 2 * nranges values */
    size_t nranges;
    uint32_t gc_mask;
    bool negate;
};

struct api__sch_regex {
    struct re_insn *prog;
    size_t ninsn;
    struct re_class *classes;
    size_t nclasses;
    bool anchored; /* the program starts with OP_BOL: only position 0 can match */
};

/* ---- Parser state ------------------------------------------------------- */

enum re_kind {
    RN_EMPTY,
    RN_CHAR,
    RN_ANY,
    RN_CLASS,
    RN_CAT,
    RN_ALT,
    RN_REPEAT,
    RN_BOL,
    RN_EOL,
    RN_WORDB,
    RN_NWORDB
};

struct re_node {
    uint8_t kind;
    uint32_t a;   /* RN_CHAR: code point; RN_CLASS: class index; RN_CAT/ALT/REPEAT: child */
    uint32_t b;   /* RN_CAT/ALT: second child */
    uint32_t min; /* RN_REPEAT */
    uint32_t max; /* RN_REPEAT; RE_INF for none */
};

struct re_parser {
    const char *p; /* next byte */
    const char *end;
    struct re_node *nodes;
    size_t nnodes, capnodes;
    struct re_class *classes;
    size_t nclasses, capclasses;
    unsigned depth;
    char *msg;
    size_t msglen;
    enum dc_status rc; /* first failure; parsing stops at it */
};

/* A class under construction. */
struct re_set {
    uint32_t *ranges;
    size_t n, cap; /* in ranges (pairs) */
    uint32_t gc_mask;
};

static bool re_fail(struct re_parser *ps, enum dc_status rc, const char *fmt, ...) DC_PRINTF(3, 4);
static bool parse_disjunction(struct re_parser *ps, uint32_t *out);

/* ---- Character sets ----------------------------------------------------- */

/* ECMA-262 WhiteSpace and LineTerminator: the set behind \s. */
static const uint32_t re_space_ranges[] = {
    0x0009, 0x000D, 0x0020, 0x0020, 0x00A0, 0x00A0, 0x1680, 0x1680, 0x2000, 0x200A,
    0x2028, 0x2029, 0x202F, 0x202F, 0x205F, 0x205F, 0x3000, 0x3000, 0xFEFF, 0xFEFF,
};
static const uint32_t re_digit_ranges[] = {'0', '9'};
static const uint32_t re_word_ranges[] = {'0', '9', 'A', 'Z', '_', '_', 'a', 'z'};

static bool re_fail(struct re_parser *ps, enum dc_status rc, const char *fmt, ...)
{
    if (ps->rc != DC_OK)
        return false;
    ps->rc = rc;
    if (ps->msg != NULL && ps->msglen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ps->msg, ps->msglen, fmt, ap);
        va_end(ap);
    }
    return false;
}

static bool set_add(struct re_parser *ps, struct re_set *s, uint32_t lo, uint32_t hi)
{
    if (s->n == s->cap) {
        size_t cap = s->cap != 0 ? s->cap * 2 : 8;
        uint32_t *r = SCH_REALLOC(s->ranges, cap * 2 * sizeof(*r));
        if (r == NULL)
            return re_fail(ps, DC_ENOMEM, "out of memory");
        s->ranges = r;
        s->cap = cap;
    }
    s->ranges[2 * s->n] = lo;
    s->ranges[2 * s->n + 1] = hi;
    s->n++;
    return true;
}

static bool set_add_table(struct re_parser *ps, struct re_set *s, const uint32_t *tab, size_t n,
                          bool negate)
{
    if (!negate) {
        for (size_t i = 0; i < n; i += 2) {
            if (!set_add(ps, s, tab[i], tab[i + 1]))
                return false;
        }
        return true;
    }
    /* The complement of a sorted range table. */
    uint32_t next = 0;
    for (size_t i = 0; i < n; i += 2) {
        if (tab[i] > next && !set_add(ps, s, next, tab[i] - 1))
            return false;
        next = tab[i + 1] + 1;
    }
    return next > RE_MAX_CP || set_add(ps, s, next, RE_MAX_CP);
}

static int range_cmp(const void *a, const void *b)
{
    const uint32_t *x = a;
    const uint32_t *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0;
}

/* Turn a finished set into a class (sorted, merged); the set's memory moves
 * into the class. */
static bool set_finish(struct re_parser *ps, struct re_set *s, bool negate, uint32_t *out_idx)
{
    if (s->n > 1)
        qsort(s->ranges, s->n, 2 * sizeof(uint32_t), range_cmp);
    size_t w = 0;
    for (size_t i = 0; i < s->n; i++) {
        uint32_t lo = s->ranges[2 * i];
        uint32_t hi = s->ranges[2 * i + 1];
        if (w > 0 && lo <= s->ranges[2 * w - 1] + 1) {
            if (hi > s->ranges[2 * w - 1])
                s->ranges[2 * w - 1] = hi;
            continue;
        }
        s->ranges[2 * w] = lo;
        s->ranges[2 * w + 1] = hi;
        w++;
    }
    if (ps->nclasses == ps->capclasses) {
        size_t cap = ps->capclasses != 0 ? ps->capclasses * 2 : 4;
        struct re_class *c = SCH_REALLOC(ps->classes, cap * sizeof(*c));
        if (c == NULL)
            return re_fail(ps, DC_ENOMEM, "out of memory");
        ps->classes = c;
        ps->capclasses = cap;
    }
    struct re_class *c = &ps->classes[ps->nclasses];
    c->ranges = s->ranges;
    c->nranges = w;
    c->gc_mask = s->gc_mask;
    c->negate = negate;
    s->ranges = NULL;
    s->n = s->cap = 0;
    *out_idx = (uint32_t)ps->nclasses++;
    return true;
}

static bool class_has(const struct re_class *c, uint32_t cp)
{
    bool in = false;
    size_t lo = 0;
    size_t hi = c->nranges;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < c->ranges[2 * mid])
            hi = mid;
        else if (cp > c->ranges[2 * mid + 1])
            lo = mid + 1;
        else {
            in = true;
            break;
        }
    }
    if (!in && c->gc_mask != 0)
        in = (c->gc_mask >> api__sch_unicode_category(cp)) & 1u;
    return in != c->negate;
}

/* ---- Unicode property names --------------------------------------------- */

#define GC(x)  (1u << API_SCH_GC_##x)
#define GC_L   (GC(LU) | GC(LL) | GC(LT) | GC(LM) | GC(LO))
#define GC_M   (GC(MN) | GC(MC) | GC(ME))
#define GC_N   (GC(ND) | GC(NL) | GC(NO))
#define GC_P   (GC(PC) | GC(PD) | GC(PS) | GC(PE) | GC(PI) | GC(PF) | GC(PO))
#define GC_S   (GC(SM) | GC(SC) | GC(SK) | GC(SO))
#define GC_Z   (GC(ZS) | GC(ZL) | GC(ZP))
#define GC_C   (GC(CC) | GC(CF) | GC(CS) | GC(CO) | GC(CN))
#define GC_ALL ((1u << API_SCH_GC_COUNT) - 1u)

/* General_Category values by short and long name (PropertyValueAliases.txt). */
static const struct {
    const char *name;
    uint32_t mask;
} re_gc_names[] = {
    {"L", GC_L},
    {"Letter", GC_L},
    {"LC", GC(LU) | GC(LL) | GC(LT)},
    {"Cased_Letter", GC(LU) | GC(LL) | GC(LT)},
    {"Lu", GC(LU)},
    {"Uppercase_Letter", GC(LU)},
    {"Ll", GC(LL)},
    {"Lowercase_Letter", GC(LL)},
    {"Lt", GC(LT)},
    {"Titlecase_Letter", GC(LT)},
    {"Lm", GC(LM)},
    {"Modifier_Letter", GC(LM)},
    {"Lo", GC(LO)},
    {"Other_Letter", GC(LO)},
    {"M", GC_M},
    {"Mark", GC_M},
    {"Combining_Mark", GC_M},
    {"Mn", GC(MN)},
    {"Nonspacing_Mark", GC(MN)},
    {"Mc", GC(MC)},
    {"Spacing_Mark", GC(MC)},
    {"Me", GC(ME)},
    {"Enclosing_Mark", GC(ME)},
    {"N", GC_N},
    {"Number", GC_N},
    {"Nd", GC(ND)},
    {"Decimal_Number", GC(ND)},
    {"digit", GC(ND)},
    {"Nl", GC(NL)},
    {"Letter_Number", GC(NL)},
    {"No", GC(NO)},
    {"Other_Number", GC(NO)},
    {"P", GC_P},
    {"Punctuation", GC_P},
    {"punct", GC_P},
    {"Pc", GC(PC)},
    {"Connector_Punctuation", GC(PC)},
    {"Pd", GC(PD)},
    {"Dash_Punctuation", GC(PD)},
    {"Ps", GC(PS)},
    {"Open_Punctuation", GC(PS)},
    {"Pe", GC(PE)},
    {"Close_Punctuation", GC(PE)},
    {"Pi", GC(PI)},
    {"Initial_Punctuation", GC(PI)},
    {"Pf", GC(PF)},
    {"Final_Punctuation", GC(PF)},
    {"Po", GC(PO)},
    {"Other_Punctuation", GC(PO)},
    {"S", GC_S},
    {"Symbol", GC_S},
    {"Sm", GC(SM)},
    {"Math_Symbol", GC(SM)},
    {"Sc", GC(SC)},
    {"Currency_Symbol", GC(SC)},
    {"Sk", GC(SK)},
    {"Modifier_Symbol", GC(SK)},
    {"So", GC(SO)},
    {"Other_Symbol", GC(SO)},
    {"Z", GC_Z},
    {"Separator", GC_Z},
    {"Zs", GC(ZS)},
    {"Space_Separator", GC(ZS)},
    {"Zl", GC(ZL)},
    {"Line_Separator", GC(ZL)},
    {"Zp", GC(ZP)},
    {"Paragraph_Separator", GC(ZP)},
    {"C", GC_C},
    {"Other", GC_C},
    {"Cc", GC(CC)},
    {"Control", GC(CC)},
    {"cntrl", GC(CC)},
    {"Cf", GC(CF)},
    {"Format", GC(CF)},
    {"Cs", GC(CS)},
    {"Surrogate", GC(CS)},
    {"Co", GC(CO)},
    {"Private_Use", GC(CO)},
    {"Cn", GC(CN)},
    {"Unassigned", GC(CN)},
    {"Any", GC_ALL},
    {"Assigned", GC_ALL & ~GC(CN)},
};

/* \p{NAME} / \P{NAME} after the 'p' or 'P': adds the property to `s`. Only
 * General_Category (bare, gc=, General_Category=), Any, Assigned and ASCII are
 * known; scripts and other binary properties are refused. */
static bool parse_property(struct re_parser *ps, struct re_set *s, bool negate)
{
    if (ps->p >= ps->end || *ps->p != '{')
        return re_fail(ps, DC_EPARSE, "\\p must be followed by {property}");
    const char *name = ++ps->p;
    while (ps->p < ps->end && *ps->p != '}')
        ps->p++;
    if (ps->p >= ps->end)
        return re_fail(ps, DC_EPARSE, "unterminated \\p{...}");
    size_t len = (size_t)(ps->p - name);
    ps->p++;
    const char *eq = memchr(name, '=', len);
    if (eq != NULL) {
        size_t klen = (size_t)(eq - name);
        if (!((klen == 2 && memcmp(name, "gc", 2) == 0) ||
              (klen == 16 && memcmp(name, "General_Category", 16) == 0)))
            return re_fail(ps, DC_EPARSE,
                           "unsupported Unicode property \\p{%.*s}: only "
                           "General_Category values are supported",
                           (int)len, name);
        len -= klen + 1;
        name = eq + 1;
    }
    if (eq == NULL && len == 5 && memcmp(name, "ASCII", 5) == 0) {
        static const uint32_t ascii[] = {0, 0x7F};
        return set_add_table(ps, s, ascii, 2, negate);
    }
    for (size_t i = 0; i < sizeof(re_gc_names) / sizeof(re_gc_names[0]); i++) {
        if (strlen(re_gc_names[i].name) == len && memcmp(re_gc_names[i].name, name, len) == 0) {
            /* Every code point has exactly one category, so the complement of a
             * category set is the complement of its mask. */
            s->gc_mask |= negate ? (GC_ALL & ~re_gc_names[i].mask) : re_gc_names[i].mask;
            return true;
        }
    }
    return re_fail(ps, DC_EPARSE,
                   "unsupported Unicode property \\p{%.*s}: only "
                   "General_Category values are supported",
                   (int)len, name);
}

/* ---- Lexing helpers ----------------------------------------------------- */

static uint32_t next_cp(struct re_parser *ps)
{
    size_t adv = 0;
    uint32_t cp = dc_utf8_decode_lenient(ps->p, (size_t)(ps->end - ps->p), &adv);
    ps->p += adv;
    return cp;
}

/* Exactly `n` hex digits; false (nothing consumed) if they are not there. */
static bool read_hex(struct re_parser *ps, int n, uint32_t *out)
{
    if (ps->end - ps->p < n)
        return false;
    uint32_t v = 0;
    for (int i = 0; i < n; i++) {
        int h = dc_hex_digit((unsigned char)ps->p[i]);
        if (h < 0)
            return false;
        v = v * 16 + (uint32_t)h;
    }
    ps->p += n;
    *out = v;
    return true;
}

/* \u escapes after the 'u': \uHHHH, a surrogate pair \uHHHH\uHHHH, \u{H...}. */
static bool parse_unicode_escape(struct re_parser *ps, uint32_t *out)
{
    uint32_t v = 0;
    if (ps->p < ps->end && *ps->p == '{') {
        ps->p++;
        int digits = 0;
        while (ps->p < ps->end && dc_hex_digit((unsigned char)*ps->p) >= 0) {
            v = v * 16 + (uint32_t)dc_hex_digit((unsigned char)*ps->p++);
            if (v > RE_MAX_CP)
                return re_fail(ps, DC_EPARSE, "\\u{...} beyond U+10FFFF");
            digits++;
        }
        if (digits == 0 || ps->p >= ps->end || *ps->p != '}')
            return re_fail(ps, DC_EPARSE, "malformed \\u{...} escape");
        ps->p++;
        *out = v;
        return true;
    }
    if (!read_hex(ps, 4, &v))
        return re_fail(ps, DC_EPARSE, "malformed \\u escape: need 4 hex digits");
    if (v >= 0xD800 && v <= 0xDBFF && ps->end - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u') {
        const char *save = ps->p;
        uint32_t lo = 0;
        ps->p += 2;
        if (read_hex(ps, 4, &lo) && lo >= 0xDC00 && lo <= 0xDFFF)
            v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
        else
            ps->p = save;
    }
    *out = v;
    return true;
}

/* What one escape stands for: a single code point, or a set (\d, \p{..}, ...)
 * already added to `set`. */
enum esc_kind { ESC_CP, ESC_SET };

/* Escape after the backslash, shared by atoms and classes. `in_class` changes
 * \b (backspace) and allows \-. Assertions (\b, \B outside classes) and
 * backreferences are handled by the caller before this. */
static bool parse_escape(struct re_parser *ps, bool in_class, struct re_set *set,
                         enum esc_kind *kind, uint32_t *cp)
{
    if (ps->p >= ps->end)
        return re_fail(ps, DC_EPARSE, "pattern ends with a lone backslash");
    char c = *ps->p++;
    *kind = ESC_CP;
    switch (c) {
    case 'd':
    case 'D':
        *kind = ESC_SET;
        return set_add_table(ps, set, re_digit_ranges, 2, c == 'D');
    case 'w':
    case 'W':
        *kind = ESC_SET;
        return set_add_table(ps, set, re_word_ranges, 8, c == 'W');
    case 's':
    case 'S':
        *kind = ESC_SET;
        return set_add_table(ps, set, re_space_ranges,
                             sizeof(re_space_ranges) / sizeof(re_space_ranges[0]), c == 'S');
    case 'p':
    case 'P':
        *kind = ESC_SET;
        return parse_property(ps, set, c == 'P');
    case 't':
        *cp = '\t';
        return true;
    case 'n':
        *cp = '\n';
        return true;
    case 'v':
        *cp = '\v';
        return true;
    case 'f':
        *cp = '\f';
        return true;
    case 'r':
        *cp = '\r';
        return true;
    case 'b':
        if (!in_class)
            break;
        *cp = '\b';
        return true;
    case '-':
        if (!in_class)
            break;
        *cp = '-';
        return true;
    case 'c':
        if (ps->p < ps->end &&
            ((*ps->p >= 'a' && *ps->p <= 'z') || (*ps->p >= 'A' && *ps->p <= 'Z'))) {
            *cp = (uint32_t)(unsigned char)*ps->p++ % 32u;
            return true;
        }
        return re_fail(ps, DC_EPARSE, "\\c must be followed by a letter");
    case '0':
        if (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            return re_fail(ps, DC_EPARSE, "octal escapes are not allowed");
        *cp = 0;
        return true;
    case 'x':
        if (!read_hex(ps, 2, cp))
            return re_fail(ps, DC_EPARSE, "malformed \\x escape: need 2 hex digits");
        return true;
    case 'u':
        return parse_unicode_escape(ps, cp);
    case 'k':
        return re_fail(ps, DC_EPARSE, "backreferences (\\k<name>) are not supported");
    default:
        if (c >= '1' && c <= '9')
            return re_fail(ps, DC_EPARSE, "backreferences (\\%c) are not supported", c);
        /* Identity escapes: any ASCII punctuation stands for itself (ECMA allows
         * only syntax characters and '/' in unicode mode; accepting the rest
         * changes no meaning). */
        if ((unsigned char)c < 0x80 && c > 0x20 &&
            !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
            *cp = (uint32_t)c;
            return true;
        }
        break;
    }
    return re_fail(ps, DC_EPARSE, "invalid escape \\%c", c);
}

/* ---- AST ---------------------------------------------------------------- */

static bool node_new(struct re_parser *ps, uint8_t kind, uint32_t a, uint32_t b, uint32_t *out)
{
    if (ps->nnodes == ps->capnodes) {
        size_t cap = ps->capnodes != 0 ? ps->capnodes * 2 : 32;
        struct re_node *n = SCH_REALLOC(ps->nodes, cap * sizeof(*n));
        if (n == NULL)
            return re_fail(ps, DC_ENOMEM, "out of memory");
        ps->nodes = n;
        ps->capnodes = cap;
    }
    struct re_node *n = &ps->nodes[ps->nnodes];
    n->kind = kind;
    n->a = a;
    n->b = b;
    n->min = n->max = 0;
    *out = (uint32_t)ps->nnodes++;
    return true;
}

/* [...] after the '['. */
static bool parse_class(struct re_parser *ps, uint32_t *out)
{
    struct re_set set = {0};
    bool negate = false;
    if (ps->p < ps->end && *ps->p == '^') {
        negate = true;
        ps->p++;
    }
    for (;;) {
        if (ps->p >= ps->end) {
            re_fail(ps, DC_EPARSE, "unterminated character class");
            goto fail;
        }
        if (*ps->p == ']') {
            ps->p++;
            break;
        }
        enum esc_kind k1 = ESC_CP;
        uint32_t lo = 0;
        if (*ps->p == '\\') {
            ps->p++;
            if (!parse_escape(ps, true, &set, &k1, &lo))
                goto fail;
        } else {
            lo = next_cp(ps);
        }
        /* A range needs '-' followed by something other than ']'. */
        if (ps->end - ps->p >= 2 && ps->p[0] == '-' && ps->p[1] != ']') {
            ps->p++;
            enum esc_kind k2 = ESC_CP;
            uint32_t hi = 0;
            if (*ps->p == '\\') {
                ps->p++;
                if (!parse_escape(ps, true, &set, &k2, &hi))
                    goto fail;
            } else {
                hi = next_cp(ps);
            }
            if (k1 == ESC_SET || k2 == ESC_SET) {
                re_fail(ps, DC_EPARSE, "a class escape cannot bound a range");
                goto fail;
            }
            if (lo > hi) {
                re_fail(ps, DC_EPARSE, "range out of order in character class");
                goto fail;
            }
            if (!set_add(ps, &set, lo, hi))
                goto fail;
            continue;
        }
        if (k1 == ESC_CP && !set_add(ps, &set, lo, lo))
            goto fail;
    }
    uint32_t idx = 0;
    if (!set_finish(ps, &set, negate, &idx))
        goto fail;
    return node_new(ps, RN_CLASS, idx, 0, out);
fail:
    free(set.ranges);
    return false;
}

/* One set escape (\d, \S, \p{..}) outside a class becomes a class node. */
static bool atom_set_escape(struct re_parser *ps, struct re_set *set, uint32_t *out)
{
    uint32_t idx = 0;
    if (!set_finish(ps, set, false, &idx)) {
        free(set->ranges);
        return false;
    }
    return node_new(ps, RN_CLASS, idx, 0, out);
}

/* Decimal number for {n,m}; false if none. */
static bool read_count(struct re_parser *ps, uint32_t *out)
{
    const char *start = ps->p;
    uint32_t v = 0;
    while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
        if (v <= API_SCH_REGEX_MAX_COUNT)
            v = v * 10 + (uint32_t)(*ps->p - '0');
        ps->p++;
    }
    *out = v;
    return ps->p != start;
}

/* A {n}, {n,} or {n,m} quantifier at ps->p (which is '{'). Returns false with
 * ps->p unchanged when the text is not a quantifier; then the brace is an
 * ordinary character (ECMA-262 Annex B). */
static bool read_braces(struct re_parser *ps, uint32_t *min, uint32_t *max)
{
    const char *save = ps->p;
    ps->p++;
    if (!read_count(ps, min))
        goto no;
    *max = *min;
    if (ps->p < ps->end && *ps->p == ',') {
        ps->p++;
        if (!read_count(ps, max))
            *max = RE_INF;
    }
    if (ps->p >= ps->end || *ps->p != '}')
        goto no;
    ps->p++;
    return true;
no:
    ps->p = save;
    return false;
}

static bool parse_term(struct re_parser *ps, uint32_t *out, bool *is_assertion)
{
    char c = *ps->p;
    *is_assertion = false;
    switch (c) {
    case '^':
        ps->p++;
        *is_assertion = true;
        return node_new(ps, RN_BOL, 0, 0, out);
    case '$':
        ps->p++;
        *is_assertion = true;
        return node_new(ps, RN_EOL, 0, 0, out);
    case '.':
        ps->p++;
        return node_new(ps, RN_ANY, 0, 0, out);
    case '[':
        ps->p++;
        return parse_class(ps, out);
    case '(': {
        ps->p++;
        if (ps->p < ps->end && *ps->p == '?') {
            if (ps->end - ps->p >= 2 && ps->p[1] == ':') {
                ps->p += 2;
            } else if (ps->end - ps->p >= 2 && (ps->p[1] == '=' || ps->p[1] == '!')) {
                return re_fail(ps, DC_EPARSE, "lookahead assertions are not supported");
            } else if (ps->end - ps->p >= 3 && ps->p[1] == '<' &&
                       (ps->p[2] == '=' || ps->p[2] == '!')) {
                return re_fail(ps, DC_EPARSE, "lookbehind assertions are not supported");
            } else if (ps->end - ps->p >= 2 && ps->p[1] == '<') {
                /* A named group: the name only matters to backreferences. */
                const char *gt = memchr(ps->p, '>', (size_t)(ps->end - ps->p));
                if (gt == NULL || gt == ps->p + 2)
                    return re_fail(ps, DC_EPARSE, "malformed group name");
                ps->p = gt + 1;
            } else {
                return re_fail(ps, DC_EPARSE, "invalid group: (? must be followed by : or a name");
            }
        }
        if (++ps->depth > API_SCH_REGEX_MAX_NESTING)
            return re_fail(ps, DC_EPARSE, "groups nested deeper than %d",
                           API_SCH_REGEX_MAX_NESTING);
        if (!parse_disjunction(ps, out))
            return false;
        ps->depth--;
        if (ps->p >= ps->end || *ps->p != ')')
            return re_fail(ps, DC_EPARSE, "missing )");
        ps->p++;
        return true;
    }
    case ')':
        return re_fail(ps, DC_EPARSE, "unmatched )");
    case '*':
    case '+':
    case '?':
        return re_fail(ps, DC_EPARSE, "nothing to repeat before '%c'", c);
    case '{': {
        uint32_t mn = 0;
        uint32_t mx = 0;
        if (read_braces(ps, &mn, &mx))
            return re_fail(ps, DC_EPARSE, "nothing to repeat before '{'");
        ps->p++;
        return node_new(ps, RN_CHAR, '{', 0, out);
    }
    case '\\': {
        ps->p++;
        if (ps->p < ps->end && (*ps->p == 'b' || *ps->p == 'B')) {
            *is_assertion = true;
            return node_new(ps, *ps->p++ == 'b' ? RN_WORDB : RN_NWORDB, 0, 0, out);
        }
        struct re_set set = {0};
        enum esc_kind k = ESC_CP;
        uint32_t cp = 0;
        if (!parse_escape(ps, false, &set, &k, &cp)) {
            free(set.ranges);
            return false;
        }
        if (k == ESC_SET)
            return atom_set_escape(ps, &set, out);
        return node_new(ps, RN_CHAR, cp, 0, out);
    }
    default:
        return node_new(ps, RN_CHAR, next_cp(ps), 0, out);
    }
}

/* Apply a quantifier following an atom, if there is one. */
static bool parse_quantifier(struct re_parser *ps, uint32_t atom, bool is_assertion, uint32_t *out)
{
    uint32_t mn = 0;
    uint32_t mx = 0;
    *out = atom;
    if (ps->p >= ps->end)
        return true;
    switch (*ps->p) {
    case '*':
        mn = 0;
        mx = RE_INF;
        ps->p++;
        break;
    case '+':
        mn = 1;
        mx = RE_INF;
        ps->p++;
        break;
    case '?':
        mn = 0;
        mx = 1;
        ps->p++;
        break;
    case '{':
        if (!read_braces(ps, &mn, &mx))
            return true;
        if (mn > API_SCH_REGEX_MAX_COUNT || (mx != RE_INF && mx > API_SCH_REGEX_MAX_COUNT))
            return re_fail(ps, DC_EPARSE, "repetition count above %d", API_SCH_REGEX_MAX_COUNT);
        if (mx < mn)
            return re_fail(ps, DC_EPARSE, "numbers out of order in {} quantifier");
        break;
    default:
        return true;
    }
    if (is_assertion)
        return re_fail(ps, DC_EPARSE, "an assertion cannot be repeated");
    /* A lazy quantifier matches the same strings as a greedy one; only the
     * captured text differs, and nothing here captures. */
    if (ps->p < ps->end && *ps->p == '?')
        ps->p++;
    if (ps->p < ps->end && (*ps->p == '*' || *ps->p == '+' || *ps->p == '?' || *ps->p == '{')) {
        uint32_t a = 0;
        uint32_t b = 0;
        if (*ps->p != '{' || read_braces(ps, &a, &b))
            return re_fail(ps, DC_EPARSE, "nothing to repeat: quantifier after quantifier");
    }
    if (!node_new(ps, RN_REPEAT, atom, 0, out))
        return false;
    ps->nodes[*out].min = mn;
    ps->nodes[*out].max = mx;
    return true;
}

/* Append `item` to the right-leaning CAT or ALT chain `*head` whose last link
 * is `*tail` (RE_NO_PC while the chain is a single item). Right-leaning chains
 * let node_size() and gen_node() walk them in a loop instead of recursing once
 * per term. */
static bool append_chain(struct re_parser *ps, uint8_t kind, uint32_t *head, uint32_t *tail,
                         uint32_t item)
{
    uint32_t link = 0;
    uint32_t left = *tail == RE_NO_PC ? *head : ps->nodes[*tail].b;
    if (!node_new(ps, kind, left, item, &link))
        return false;
    if (*tail == RE_NO_PC)
        *head = link;
    else
        ps->nodes[*tail].b = link;
    *tail = link;
    return true;
}

static bool parse_alternative(struct re_parser *ps, uint32_t *out)
{
    bool have = false;
    uint32_t seq = 0;
    uint32_t tail = RE_NO_PC; /* last CAT of the chain, whose b is the last term */
    while (ps->p < ps->end && *ps->p != '|' && *ps->p != ')') {
        uint32_t atom = 0;
        uint32_t term = 0;
        bool is_assertion = false;
        if (!parse_term(ps, &atom, &is_assertion))
            return false;
        if (!parse_quantifier(ps, atom, is_assertion, &term))
            return false;
        if (!have) {
            seq = term;
            have = true;
        } else if (!append_chain(ps, RN_CAT, &seq, &tail, term)) {
            return false;
        }
    }
    if (!have)
        return node_new(ps, RN_EMPTY, 0, 0, out);
    *out = seq;
    return true;
}

static bool parse_disjunction(struct re_parser *ps, uint32_t *out)
{
    uint32_t head = 0;
    uint32_t tail = RE_NO_PC;
    if (!parse_alternative(ps, &head))
        return false;
    while (ps->p < ps->end && *ps->p == '|') {
        ps->p++;
        uint32_t right = 0;
        if (!parse_alternative(ps, &right))
            return false;
        if (!append_chain(ps, RN_ALT, &head, &tail, right))
            return false;
    }
    *out = head;
    return true;
}

/* ---- Code generation ---------------------------------------------------- */

/* Instructions node `i` needs, saturated just above the limit so the
 * arithmetic cannot overflow. The parser builds CAT and ALT chains
 * right-leaning, so walking `b` in a loop keeps the recursion depth at the
 * group nesting depth, which the parser bounds. */
static uint64_t node_size(const struct re_parser *ps, uint32_t i)
{
    const uint64_t cap = (uint64_t)API_SCH_REGEX_MAX_INSNS + 1;
    uint64_t total = 0;
    for (;;) {
        const struct re_node *n = &ps->nodes[i];
        uint64_t sz = 0;
        if (n->kind == RN_CAT || n->kind == RN_ALT) {
            total += node_size(ps, n->a) + (n->kind == RN_ALT ? 2 : 0);
            if (total > cap)
                return cap;
            i = n->b;
            continue;
        }
        if (n->kind == RN_REPEAT) {
            uint64_t c = node_size(ps, n->a);
            if (n->max == RE_INF)
                sz = (uint64_t)n->min * c + c + 2;
            else
                sz = (uint64_t)n->min * c + (uint64_t)(n->max - n->min) * (c + 1);
        } else if (n->kind != RN_EMPTY) {
            sz = 1;
        }
        total += sz;
        return total > cap ? cap : total;
    }
}

struct re_gen {
    const struct re_parser *ps;
    struct re_insn *prog;
    size_t n;
};

static size_t emit(struct re_gen *g, uint8_t op, uint32_t x, uint32_t y)
{
    g->prog[g->n].op = op;
    g->prog[g->n].x = x;
    g->prog[g->n].y = y;
    return g->n++;
}

/* Emit node `i`. The program was sized by node_size(), which this mirrors
 * instruction for instruction. */
static void gen_node(struct re_gen *g, uint32_t i)
{
    uint32_t jmps = RE_NO_PC; /* chain through .x of the JMPs ending ALT branches */
    for (;;) {
        const struct re_node *n = &g->ps->nodes[i];
        if (n->kind == RN_CAT) {
            gen_node(g, n->a);
            i = n->b;
            continue;
        }
        if (n->kind == RN_ALT) {
            size_t split = emit(g, OP_SPLIT, (uint32_t)(g->n + 1), 0);
            gen_node(g, n->a);
            jmps = (uint32_t)emit(g, OP_JMP, jmps, 0);
            g->prog[split].y = (uint32_t)g->n;
            i = n->b;
            continue;
        }
        switch (n->kind) {
        case RN_CHAR:
            emit(g, OP_CHAR, n->a, 0);
            break;
        case RN_ANY:
            emit(g, OP_ANY, 0, 0);
            break;
        case RN_CLASS:
            emit(g, OP_CLASS, n->a, 0);
            break;
        case RN_BOL:
            emit(g, OP_BOL, 0, 0);
            break;
        case RN_EOL:
            emit(g, OP_EOL, 0, 0);
            break;
        case RN_WORDB:
            emit(g, OP_WORDB, 0, 0);
            break;
        case RN_NWORDB:
            emit(g, OP_NWORDB, 0, 0);
            break;
        case RN_REPEAT:
            for (uint32_t k = 0; k < n->min; k++)
                gen_node(g, n->a);
            if (n->max == RE_INF) {
                size_t split = emit(g, OP_SPLIT, (uint32_t)(g->n + 1), 0);
                gen_node(g, n->a);
                emit(g, OP_JMP, (uint32_t)split, 0);
                g->prog[split].y = (uint32_t)g->n;
            } else {
                /* x{0,k}: k optional copies, each one's split skipping to the end. */
                uint32_t skips = RE_NO_PC;
                for (uint32_t k = n->min; k < n->max; k++) {
                    skips = (uint32_t)emit(g, OP_SPLIT, (uint32_t)(g->n + 1), skips);
                    gen_node(g, n->a);
                }
                while (skips != RE_NO_PC) {
                    uint32_t prev = g->prog[skips].y;
                    g->prog[skips].y = (uint32_t)g->n;
                    skips = prev;
                }
            }
            break;
        default: /* RN_EMPTY */
            break;
        }
        break;
    }
    while (jmps != RE_NO_PC) {
        uint32_t prev = g->prog[jmps].x;
        g->prog[jmps].x = (uint32_t)g->n;
        jmps = prev;
    }
}

/* ---- Public (library-internal) functions -------------------------------- */

static void classes_free(struct re_class *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(c[i].ranges);
    free(c);
}

enum dc_status api__sch_regex_compile(const char *pattern, api__sch_regex **out, char *msg,
                                      size_t msglen)
{
    struct re_parser ps = {0};
    api__sch_regex *re = NULL;
    enum dc_status rc = DC_OK;
    uint32_t root = 0;

    if (out == NULL)
        return DC_EINVAL;
    *out = NULL;
    if (msg != NULL && msglen > 0)
        msg[0] = '\0';
    if (pattern == NULL)
        return DC_EINVAL;
    ps.p = pattern;
    ps.end = pattern + strlen(pattern);
    ps.msg = msg;
    ps.msglen = msglen;

    if (!parse_disjunction(&ps, &root))
        goto fail;
    if (ps.p < ps.end) {
        re_fail(&ps, DC_EPARSE, "unmatched )");
        goto fail;
    }
    uint64_t size = node_size(&ps, root) + 1;
    if (size > API_SCH_REGEX_MAX_INSNS) {
        re_fail(&ps, DC_EPARSE, "pattern too large: more than %d automaton states",
                API_SCH_REGEX_MAX_INSNS);
        goto fail;
    }
    re = SCH_CALLOC(1, sizeof(*re));
    if (re == NULL) {
        re_fail(&ps, DC_ENOMEM, "out of memory");
        goto fail;
    }
    re->prog = SCH_MALLOC((size_t)size * sizeof(*re->prog));
    if (re->prog == NULL) {
        re_fail(&ps, DC_ENOMEM, "out of memory");
        goto fail;
    }
    struct re_gen g = {.ps = &ps, .prog = re->prog, .n = 0};
    gen_node(&g, root);
    emit(&g, OP_MATCH, 0, 0);
    re->ninsn = g.n;
    re->anchored = re->prog[0].op == OP_BOL;
    re->classes = ps.classes;
    re->nclasses = ps.nclasses;
    ps.classes = NULL;
    free(ps.nodes);
    *out = re;
    return DC_OK;
fail:
    rc = ps.rc != DC_OK ? ps.rc : DC_EPARSE;
    free(ps.nodes);
    classes_free(ps.classes, ps.nclasses);
    if (re != NULL) {
        free(re->prog);
        free(re);
    }
    return rc;
}

void api__sch_regex_free(api__sch_regex *re)
{
    if (re == NULL)
        return;
    free(re->prog);
    classes_free(re->classes, re->nclasses);
    free(re);
}

/* ---- Search ------------------------------------------------------------- */

static bool is_word(uint32_t cp)
{
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
           cp == '_';
}

static bool is_line_terminator(uint32_t cp)
{
    return cp == '\n' || cp == '\r' || cp == 0x2028 || cp == 0x2029;
}

/* Scratch of one search: two thread lists, visit marks, and the closure stack. */
struct re_run {
    const api__sch_regex *re;
    uint32_t *list[2];
    size_t nlist[2];
    uint32_t *mark;
    uint32_t *stack;
    uint32_t gen;
};

/* Context of the position a closure is computed at. */
struct re_pos {
    bool at_start;
    bool at_end;
    uint32_t prev; /* code point before the position, if !at_start */
    uint32_t next; /* code point after the position, if !at_end */
};

/* Add `pc` and everything reachable from it without consuming input to list
 * `which`. Returns true as soon as MATCH is reachable. Each instruction is
 * marked when pushed, so the stack never holds more than ninsn entries. */
static bool add_thread(struct re_run *r, int which, uint32_t pc0, const struct re_pos *pos)
{
    const struct re_insn *prog = r->re->prog;
    size_t sp = 0;
    if (r->mark[pc0] == r->gen)
        return false;
    r->mark[pc0] = r->gen;
    r->stack[sp++] = pc0;
    while (sp > 0) {
        uint32_t pc = r->stack[--sp];
        const struct re_insn *in = &prog[pc];
        uint32_t next[2];
        int nnext = 0;
        switch (in->op) {
        case OP_MATCH:
            return true;
        case OP_JMP:
            next[nnext++] = in->x;
            break;
        case OP_SPLIT:
            next[nnext++] = in->y;
            next[nnext++] = in->x;
            break;
        case OP_BOL:
            if (pos->at_start)
                next[nnext++] = pc + 1;
            break;
        case OP_EOL:
            if (pos->at_end)
                next[nnext++] = pc + 1;
            break;
        case OP_WORDB:
        case OP_NWORDB: {
            bool a = !pos->at_start && is_word(pos->prev);
            bool b = !pos->at_end && is_word(pos->next);
            if ((a != b) == (in->op == OP_WORDB))
                next[nnext++] = pc + 1;
            break;
        }
        default:
            r->list[which][r->nlist[which]++] = pc;
            break;
        }
        for (int k = 0; k < nnext; k++) {
            if (r->mark[next[k]] != r->gen) {
                r->mark[next[k]] = r->gen;
                r->stack[sp++] = next[k];
            }
        }
    }
    return false;
}

static bool insn_accepts(const api__sch_regex *re, const struct re_insn *in, uint32_t cp)
{
    switch (in->op) {
    case OP_CHAR:
        return in->x == cp;
    case OP_ANY:
        return !is_line_terminator(cp);
    case OP_CLASS:
        return class_has(&re->classes[in->x], cp);
    default:
        return false;
    }
}

static bool run_search(struct re_run *r, const char *s, size_t len)
{
    size_t i = 0;
    int cur = 0;
    struct re_pos pos = {.at_start = true, .at_end = len == 0, .prev = 0, .next = 0};
    size_t adv = 0;
    if (len > 0)
        pos.next = dc_utf8_decode_lenient(s, len, &adv);
    r->gen = 1;
    r->nlist[0] = r->nlist[1] = 0;
    for (;;) {
        /* Unanchored search: a new thread starts at every position. */
        if ((i == 0 || !r->re->anchored) && add_thread(r, cur, 0, &pos))
            return true;
        if (i >= len || (r->nlist[cur] == 0 && r->re->anchored))
            return false;
        uint32_t cp = pos.next;
        size_t ni = i + adv;
        struct re_pos npos = {.at_start = false, .at_end = ni >= len, .prev = cp, .next = 0};
        size_t nadv = 0;
        if (ni < len)
            npos.next = dc_utf8_decode_lenient(s + ni, len - ni, &nadv);
        int nxt = 1 - cur;
        r->gen++;
        r->nlist[nxt] = 0;
        for (size_t k = 0; k < r->nlist[cur]; k++) {
            uint32_t pc = r->list[cur][k];
            if (insn_accepts(r->re, &r->re->prog[pc], cp) && add_thread(r, nxt, pc + 1, &npos))
                return true;
        }
        cur = nxt;
        i = ni;
        adv = nadv;
        pos = npos;
    }
}

enum dc_status api__sch_regex_search(const api__sch_regex *re, const char *s, size_t len, bool *out)
{
    uint32_t small[4 * RE_STACK_INSNS];
    uint32_t *scratch = small;
    if (re == NULL || (s == NULL && len > 0) || out == NULL)
        return DC_EINVAL;
    size_t m = re->ninsn;
    if (m > RE_STACK_INSNS) {
        scratch = SCH_MALLOC(4 * m * sizeof(*scratch));
        if (scratch == NULL)
            return DC_ENOMEM;
    }
    struct re_run r = {.re = re};
    r.list[0] = scratch;
    r.list[1] = scratch + m;
    r.mark = scratch + 2 * m;
    r.stack = scratch + 3 * m;
    memset(r.mark, 0, m * sizeof(*r.mark));
    bool found = run_search(&r, s != NULL ? s : "", len);
    if (scratch != small)
        free(scratch);
    *out = found;
    return DC_OK;
}
