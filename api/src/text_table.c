/* api/src/text_table.c -- tables and lines of text for people (api/text_table.h):
 * columns as wide as their widest cell, fitted to a width by leaving columns
 * out and cutting one; lines wrapped at spaces. Used by the result's table
 * (result_table.c) and the CLI's other tables (`prices show`). Owned by the
 * CLI work (issue 34). The functions without a comment here have theirs in
 * the header. */
#include "api/text_table.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dc/utf8.h"

void api_grid_col(struct api_grid *g, const char *head, bool right, unsigned drop)
{
    if (g->ncols == API_GRID_MAX_COLS)
        return;
    g->head[g->ncols] = head;
    g->drop[g->ncols] = drop;
    g->right[g->ncols++] = right;
}

/* A new row; NULL when memory runs out (the row is then left out). */
char (*api_grid_row(struct api_grid *g))[API_GRID_CELL]
{
    if (g->nrows == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 16;
        void *p = realloc(g->cells, cap * sizeof(*g->cells));
        if (p == NULL)
            return NULL;
        g->cells = p;
        g->cap = cap;
    }
    char(*row)[API_GRID_CELL] = g->cells[g->nrows++];
    memset(row, 0, sizeof(*g->cells));
    return row;
}

void api_grid_cellf(char *cell, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cell, API_GRID_CELL, fmt, ap);
    va_end(ap);
}

/* Characters, not bytes (dc/utf8.h, the one count of every layer). */
size_t api_text_width(const char *s)
{
    return dc_utf8_count(s);
}

void api_text_pad(FILE *fp, const char *s, size_t w, bool right)
{
    size_t n = api_text_width(s);
    if (right)
        fprintf(fp, "%*s%s", (int)(w > n ? w - n : 0), "", s);
    else
        fprintf(fp, "%s%*s", s, (int)(w > n ? w - n : 0), "");
}

/* `s` cut to `w` characters, its last one an ellipsis, when it is longer. */
static void cut(FILE *fp, const char *s, size_t w)
{
    if (w == 0 || api_text_width(s) <= w) {
        fputs(s, fp);
        return;
    }
    size_t n = 0;
    const char *p = s;
    for (; *p != '\0'; p++) {
        if (((unsigned char)*p & 0xC0u) != 0x80u && n++ == w - 1)
            break;
    }
    fwrite(s, 1, (size_t)(p - s), fp);
    fputs("\u2026", fp);
}

/* Each shown column's width: its widest cell, or its limit. */
static size_t grid_widths(const struct api_grid *g, size_t *w)
{
    size_t total = 0, shown = 0;
    for (size_t c = 0; c < g->ncols; c++) {
        w[c] = api_text_width(g->head[c]);
        for (size_t r = 0; r < g->nrows; r++) {
            size_t n = api_text_width(g->cells[r][c]);
            w[c] = n > w[c] ? n : w[c];
        }
        if (g->limit[c] > 0 && w[c] > g->limit[c])
            w[c] = g->limit[c];
        if (!g->hidden[c]) {
            total += w[c];
            shown++;
        }
    }
    return total + (shown > 0 ? 2 * (shown - 1) : 0);
}

void api_grid_free(struct api_grid *g)
{
    free(g->cells);
    g->cells = NULL;
    g->nrows = g->cap = 0;
}

void api_grid_fit(struct api_grid *g, size_t columns, size_t cuttable, size_t min_cut, char *gone,
                  size_t len)
{
    size_t w[API_GRID_MAX_COLS];
    size_t k = 0;
    bool cut = cuttable < g->ncols && min_cut > 0;
    gone[0] = '\0';
    /* Columns go only while the grid is wider even with that column cut. */
    if (cut)
        g->limit[cuttable] = min_cut;
    for (unsigned order = 1;
         columns > 0 && order <= API_GRID_MAX_COLS && grid_widths(g, w) > columns; order++) {
        for (size_t c = 0; c < g->ncols; c++) {
            if (g->drop[c] != order)
                continue;
            g->hidden[c] = true;
            int n = snprintf(gone + k, len - k, "%s%s", k > 0 ? ", " : "", g->head[c]);
            k += n > 0 && (size_t)n < len - k ? (size_t)n : 0;
        }
    }
    if (!cut)
        return;
    g->limit[cuttable] = 0;
    size_t total = grid_widths(g, w);
    if (columns > 0 && total > columns && w[cuttable] > min_cut) {
        size_t over = total - columns;
        g->limit[cuttable] = w[cuttable] > over + min_cut ? w[cuttable] - over : min_cut;
    }
}

/* The header (unless `headers` is false), then `between` (a line under it, or
 * NULL), then the rows, each line after `indent`. */
void api_grid_print(const struct api_grid *g, FILE *fp, const char *indent, const char *between,
                    bool headers)
{
    size_t w[API_GRID_MAX_COLS];
    grid_widths(g, w);
    size_t lastc = 0;
    for (size_t c = 0; c < g->ncols; c++)
        lastc = g->hidden[c] ? lastc : c;
    for (size_t r = headers ? 0 : 1; r <= g->nrows; r++) {
        fputs(indent, fp);
        for (size_t c = 0; c < g->ncols; c++) {
            if (g->hidden[c])
                continue;
            const char *s = r == 0 ? g->head[c] : g->cells[r - 1][c];
            bool last = c == lastc;
            if (g->limit[c] > 0 && api_text_width(s) > g->limit[c]) {
                cut(fp, s, g->limit[c]);
                if (!last)
                    fputs("  ", fp);
                continue;
            }
            if (last && !g->right[c])
                fputs(s, fp);
            else
                api_text_pad(fp, s, w[c], g->right[c]);
            if (!last)
                fputs("  ", fp);
        }
        fputc('\n', fp);
        if (r == 0 && between != NULL)
            fputs(between, fp);
    }
}

/* ---- lines of text that fit a width ------------------------------------------------ */

/* One line `s` (no newline in it) ended by a newline, broken at spaces so
 * that no line is wider than `cols` (0: never broken), the lines after the
 * first indented by `indent`; a space before column `indent` of the first line
 * (its own columns) is no place to break, and a word longer than a line (a URL)
 * is kept whole. */
void api_text_wrap_line(FILE *fp, const char *s, size_t indent, size_t cols)
{
    const char *seg = s;
    size_t col0 = 0;
    if (indent + 20 > cols)
        indent = cols > 20 ? cols - 20 : 0;
    while (cols > 0) {
        size_t room = cols > col0 ? cols - col0 : 0, n = 0;
        const char *p = seg, *brk = NULL;
        for (; *p != '\0'; p++) {
            bool lead = ((unsigned char)*p & 0xC0u) != 0x80u;
            if (lead && n == room)
                break;
            if (*p == ' ' && col0 + n >= indent && p > seg)
                brk = p;
            n += lead;
        }
        if (*p == '\0')
            break;
        if (*p == ' ')
            brk = p;
        if (brk == NULL && (brk = strchr(p, ' ')) == NULL)
            break;
        fwrite(seg, 1, (size_t)(brk - seg), fp);
        fprintf(fp, "\n%*s", (int)indent, "");
        col0 = indent;
        for (seg = brk; *seg == ' '; seg++)
            ;
        if (*seg == '\0')
            return;
    }
    fputs(seg, fp);
    fputc('\n', fp);
}

/* printf to `fp`, each line of the text wrapped (wrap_line) at `cols` with
 * `indent`; the text ends in a newline (one is added when it does not). */
void api_text_say(FILE *fp, size_t cols, size_t indent, const char *fmt, ...)
{
    char small[1024], *buf = small;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof(small) && (buf = malloc((size_t)n + 1)) != NULL) {
        va_start(ap, fmt);
        vsnprintf(buf, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    if (buf == NULL)
        buf = small; /* out of memory: the text cut at sizeof(small) */
    for (char *line = buf; *line != '\0';) {
        char *eol = strchr(line, '\n');
        if (eol != NULL)
            *eol = '\0';
        api_text_wrap_line(fp, line, indent, cols);
        line = eol != NULL ? eol + 1 : line + strlen(line);
    }
    if (buf != small)
        free(buf);
}
