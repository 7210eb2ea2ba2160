/* api/text_table.h -- tables and lines of text for people: the result's table
 * (CLI -o table and -o wide, api_result_print_table_opts) and the CLI's other
 * tables (`prices show`). Owned by the CLI work (issue 34).
 *
 * A grid is built row by row, then printed with each column as wide as its
 * widest cell, counted in characters (the cells hold UTF-8). To fit a width,
 * columns are left out in the order the table gives them and one text column
 * may be cut, its last character an ellipsis. Lines of text wrap at spaces. */
#ifndef API_TEXT_TABLE_H
#define API_TEXT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "dc/common.h"

#define API_GRID_MAX_COLS 24
#define API_GRID_CELL     160 /* bytes of one cell, with its NUL */

struct api_grid {
    size_t ncols, nrows, cap;
    const char *head[API_GRID_MAX_COLS];
    bool right[API_GRID_MAX_COLS]; /* numbers align right */
    /* To fit a width: the order in which a column is left out (1 first; 0
     * never), whether it was, and the width a column is cut to (0: none). */
    unsigned drop[API_GRID_MAX_COLS];
    bool hidden[API_GRID_MAX_COLS];
    size_t limit[API_GRID_MAX_COLS];
    char (*cells)[API_GRID_MAX_COLS][API_GRID_CELL];
};

/* A column named `head` (borrowed), aligned right when `right`, left out in
 * the order `drop` (1 first, 0 never) when the grid does not fit. Columns past
 * API_GRID_MAX_COLS are ignored. */
DC_API void api_grid_col(struct api_grid *g, const char *head, bool right, unsigned drop);

/* A new row, its cells empty; NULL when memory runs out (the row is then left
 * out). */
DC_API char (*api_grid_row(struct api_grid *g))[API_GRID_CELL];

/* printf into one cell, cut at API_GRID_CELL bytes. */
DC_API void api_grid_cellf(char *cell, const char *fmt, ...) DC_PRINTF(2, 3);

/* Fit the grid in `columns` characters (0: no limit): leave out columns in
 * their drop order while it is wider even with column `cuttable` (an index;
 * past the last: none) cut to `min_cut` characters, then cut that column as
 * far as needed, to no fewer than `min_cut`. The names of the columns left out
 * go to `gone` ("$/H, CHIPS"; "" if none). */
DC_API void api_grid_fit(struct api_grid *g, size_t columns, size_t cuttable, size_t min_cut,
                         char *gone, size_t len);

/* The column names (unless `headers` is false), then `between` (a line under
 * them, or NULL), then the rows, each line after `indent`. */
DC_API void api_grid_print(const struct api_grid *g, FILE *fp, const char *indent,
                           const char *between, bool headers);

/* Release the rows (the grid may then be filled again). */
DC_API void api_grid_free(struct api_grid *g);

/* Characters, not bytes: dc_utf8_count (dc/utf8.h). */
DC_API size_t api_text_width(const char *s);

/* `s` padded with spaces to `w` characters, on the left when `right`. */
DC_API void api_text_pad(FILE *fp, const char *s, size_t w, bool right);

/* One line `s` (no newline in it) ended by a newline, broken at spaces so
 * that no line is wider than `cols` (0: never broken), the lines after the
 * first indented by `indent`; a space before column `indent` of the first line
 * (its own columns) is no place to break, and a word longer than a line (a URL)
 * is kept whole. */
DC_API void api_text_wrap_line(FILE *fp, const char *s, size_t indent, size_t cols);

/* printf to `fp`, each line of the text wrapped (api_text_wrap_line) at `cols`
 * with `indent`; the text ends in a newline (one is added when it does not). */
DC_API void api_text_say(FILE *fp, size_t cols, size_t indent, const char *fmt, ...)
    DC_PRINTF(4, 5);

#endif /* API_TEXT_TABLE_H */
