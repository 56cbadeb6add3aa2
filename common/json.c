/* The JSON writer (json.h). */
#include "json.h"

#include <string.h>

JsonWriter json_writer(FILE *out)
{
    JsonWriter w;
    memset(&w, 0, sizeof w);
    w.out = out;
    return w;
}

static void quoted(FILE *out, const char *s, size_t len)
{
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c == '\n') fputs("\\n", out);
        else if (c == '\t') fputs("\\t", out);
        else if (c < 0x20 || c == 0x7f) fprintf(out, "\\u%04x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

/* The start of an item: the comma after the one before, a new line, the indent and the key. */
static void item(JsonWriter *w, const char *key)
{
    if (w->depth) {
        fputs(w->items[w->depth]++ ? ",\n" : "\n", w->out);
        fprintf(w->out, "%*s", 2 * w->depth, "");
    }
    if (key) {
        quoted(w->out, key, strlen(key));
        fputs(": ", w->out);
    }
}

static void nest(JsonWriter *w, const char *key, char bracket)
{
    item(w, key);
    fputc(bracket, w->out);
    if (w->depth + 1 < JSON_MAX_DEPTH) w->depth++;
    w->items[w->depth] = 0;
}

static void unnest(JsonWriter *w, char bracket)
{
    int had_items = w->items[w->depth] > 0;
    if (w->depth > 0) w->depth--;
    if (had_items) fprintf(w->out, "\n%*s", 2 * w->depth, "");
    fputc(bracket, w->out);
    if (w->depth == 0) fputc('\n', w->out);
}

void json_object_begin(JsonWriter *w, const char *key) { nest(w, key, '{'); }
void json_object_end(JsonWriter *w) { unnest(w, '}'); }
void json_array_begin(JsonWriter *w, const char *key) { nest(w, key, '['); }
void json_array_end(JsonWriter *w) { unnest(w, ']'); }

/* The LEN bytes at VALUE as a string. */
static void json_string_n(JsonWriter *w, const char *key, const char *value, size_t len)
{
    item(w, key);
    quoted(w->out, value, len);
}

void json_string(JsonWriter *w, const char *key, const char *value)
{
    if (value) json_string_n(w, key, value, strlen(value));
    else {
        item(w, key);
        fputs("null", w->out);
    }
}

void json_number(JsonWriter *w, const char *key, double value)
{
    item(w, key);
    fprintf(w->out, "%.15g", value);
}

void json_bool(JsonWriter *w, const char *key, int value)
{
    item(w, key);
    fputs(value ? "true" : "false", w->out);
}

void json_words(JsonWriter *w, const char *key, const char *text, const char *separators)
{
    json_array_begin(w, key);
    for (const char *s = text; *s;) {
        size_t len = strcspn(s, separators);
        if (len) json_string_n(w, NULL, s, len);
        s += len + (s[len] != '\0');
    }
    json_array_end(w);
}
