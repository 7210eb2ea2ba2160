/* api/src/problem.c -- RFC 9457 problem details. */
#include "api/problem.h"

#include <stdio.h>
#include <string.h>

const char *api_http_reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 204:
        return "No Content";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 413:
        return "Content Too Large";
    case 414:
        return "URI Too Long";
    case 415:
        return "Unsupported Media Type";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 503:
        return "Service Unavailable";
    default:
        return "Error";
    }
}

cJSON *api_problem_new(int status, const char *type, const char *title, const char *detail,
                       const char *request_id)
{
    char type_uri[128];
    cJSON *p = cJSON_CreateObject();
    if (p == NULL)
        return NULL;
    if (type != NULL)
        snprintf(type_uri, sizeof(type_uri), "%s%s", API_PROBLEM_TYPE_PREFIX, type);
    else
        snprintf(type_uri, sizeof(type_uri), "about:blank");
    bool ok = cJSON_AddStringToObject(p, "type", type_uri) != NULL &&
              cJSON_AddStringToObject(p, "title",
                                      title != NULL ? title : api_http_reason(status)) != NULL &&
              cJSON_AddNumberToObject(p, "status", status) != NULL;
    if (ok && detail != NULL)
        ok = cJSON_AddStringToObject(p, "detail", detail) != NULL;
    if (ok && request_id != NULL)
        ok = cJSON_AddStringToObject(p, "request_id", request_id) != NULL;
    if (!ok) {
        cJSON_Delete(p);
        return NULL;
    }
    return p;
}

enum dc_status api_problem_add_error(cJSON *problem, const char *pointer, const char *message)
{
    if (!cJSON_IsObject(problem) || pointer == NULL || message == NULL)
        return DC_EINVAL;
    cJSON *errors = cJSON_GetObjectItemCaseSensitive(problem, "errors");
    if (errors == NULL) {
        errors = cJSON_AddArrayToObject(problem, "errors");
        if (errors == NULL)
            return DC_ENOMEM;
    }
    cJSON *e = cJSON_CreateObject();
    if (e == NULL)
        return DC_ENOMEM;
    if (cJSON_AddStringToObject(e, "pointer", pointer) == NULL ||
        cJSON_AddStringToObject(e, "message", message) == NULL ||
        !cJSON_AddItemToArray(errors, e)) {
        cJSON_Delete(e);
        return DC_ENOMEM;
    }
    return DC_OK;
}

/* True when `ptr` is `prefix` or lies under it ("/a/1" is under "/a", "/ab" is not). */
static bool under(const char *ptr, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(ptr, prefix, n) == 0 && (ptr[n] == '\0' || ptr[n] == '/' || n == 0);
}

enum dc_status api_problem_add_violations(cJSON *problem, const struct api_schema_result *res,
                                          const char *prefix, const char *prepend, size_t *added)
{
    char ptr[1024];
    size_t n = 0;
    if (added != NULL)
        *added = 0;
    if (problem == NULL || res == NULL)
        return DC_EINVAL;
    if (prefix == NULL)
        prefix = "";
    for (size_t i = 0; i < res->count; i++) {
        const struct api_schema_violation *v = &res->items[i];
        const char *p = v->pointer != NULL ? v->pointer : "";
        if (!under(p, prefix))
            continue;
        snprintf(ptr, sizeof(ptr), "%s%s", prepend != NULL ? prepend : "", p);
        enum dc_status rc =
            api_problem_add_error(problem, ptr, v->message != NULL ? v->message : "is invalid");
        if (rc != DC_OK)
            return rc;
        n++;
    }
    if (res->truncated && n > 0) {
        enum dc_status rc = api_problem_add_error(
            problem, prepend != NULL ? prepend : "",
            "more violations were found than are listed; fix these and retry");
        if (rc != DC_OK)
            return rc;
        n++;
    }
    if (added != NULL)
        *added = n;
    return DC_OK;
}

char *api_problem_render(const cJSON *problem)
{
    return problem != NULL ? cJSON_PrintUnformatted(problem) : NULL;
}
