/* service/src/log.h -- structured logs: one JSON object per line on stderr.
 *
 * Every line has "time" (RFC 3339, UTC, milliseconds), "level", "event" and
 * "msg" (a sentence for people; log tools show it as the line's message); the
 * caller adds fields. A line is built in a caller-owned buffer and written with
 * one write(2), so lines from many threads never interleave. Lines longer than
 * SVC_LOG_LINE_MAX are cut inside a string value and stay valid JSON. Lines
 * below the level set with svc_log_set_level are not written at all. */
#ifndef SVC_LOG_H
#define SVC_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dc/common.h"

#define SVC_LOG_LINE_MAX 4096 /* bytes of one log line, newline included */

/* Severities, least severe first. */
enum svc_log_level { SVC_LOG_DEBUG, SVC_LOG_INFO, SVC_LOG_WARN, SVC_LOG_ERROR };

struct svc_log_line {
    char buf[SVC_LOG_LINE_MAX];
    size_t len;
    bool full;    /* something was cut */
    bool muted;   /* below the level: nothing is written */
    bool has_msg; /* a "msg" field was written */
    const char *event;
};

/* Where lines go (default 2, stderr). Set once, before threads start. */
void svc_log_set_fd(int fd);

/* The least severe level written (default SVC_LOG_INFO). Set once, before
 * threads start. */
void svc_log_set_level(enum svc_log_level level);
/* "debug", "info", "warn" or "error" to *out; false for anything else. */
bool svc_log_level_parse(const char *name, enum svc_log_level *out);
/* True when a line of `level` ("debug" ... "error") would be written. */
bool svc_log_enabled(const char *level);

/* Start a line: {"time":"...","level":LEVEL,"event":EVENT. `level` is "debug",
 * "info", "warn" or "error" (anything else is written as error); `event` is
 * borrowed until svc_log_end. */
void svc_log_begin(struct svc_log_line *l, const char *level, const char *event);
/* Add a field; `val` NULL writes null. Keys are written as given (no escaping:
 * they are literals in our code). The key "msg" sets the line's message. */
void svc_log_str(struct svc_log_line *l, const char *key, const char *val);
void svc_log_int(struct svc_log_line *l, const char *key, long long val);
void svc_log_uint(struct svc_log_line *l, const char *key, unsigned long long val);
void svc_log_num(struct svc_log_line *l, const char *key, double val);
void svc_log_bool(struct svc_log_line *l, const char *key, bool val);
/* Close the line and write it. A line given no "msg" gets its event as one,
 * so every line has a message. */
void svc_log_end(struct svc_log_line *l);
/* Add "msg" (formatted), close the line and write it. */
void svc_log_end_msg(struct svc_log_line *l, const char *fmt, ...) DC_PRINTF(2, 3);

/* Add "msg" as svc_log_end_msg(l, "%s %s %lld", a, b, n) would, without
 * printf (the access log's "POST /v1/recommendations 200"), close the line and
 * write it. */
void svc_log_end_msg_words(struct svc_log_line *l, const char *a, const char *b, long long n);

/* One-call form: {"time","level","event","msg": formatted}. */
void svc_log_msg(const char *level, const char *event, const char *fmt, ...) DC_PRINTF(3, 4);

/* Format the current UTC time as RFC 3339 with milliseconds into buf (>= 32 bytes). */
void svc_log_time(char *buf, size_t len);

#endif /* SVC_LOG_H */
