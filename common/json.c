/* The JSON writer (json.h). */
#include "json.h"

#include <string.h>

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
    if (w->depth) fprintf(w->out, "%s%*s", w->items[w->depth]++ ? ",\n" : "\n", 2 * w->depth, "");
    if (key) {
        quoted(w->out, key, strlen(key));
        fputs(": ", w->out);
    }
}

void json_open(JsonWriter *w, const char *key, char bracket)
{
    item(w, key);
    fputc(bracket, w->out);
    w->items[++w->depth] = 0;
}

void json_close(JsonWriter *w, char bracket)
{
    if (w->items[w->depth--]) fprintf(w->out, "\n%*s", 2 * w->depth, "");
    fputc(bracket, w->out);
    if (w->depth == 0) fputc('\n', w->out);
}

void json_string(JsonWriter *w, const char *key, const char *value)
{
    item(w, key);
    if (value) quoted(w->out, value, strlen(value));
    else fputs("null", w->out);
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
    json_open(w, key, '[');
    for (const char *s = text + strspn(text, separators); *s; s += strspn(s, separators)) {
        size_t len = strcspn(s, separators);
        item(w, NULL);
        quoted(w->out, s, len);
        s += len;
    }
    json_close(w, ']');
}
