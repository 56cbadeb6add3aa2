/* A small JSON writer (json.c), for --describe: one document, written as it goes, an item a line and
 * indented, at most 7 levels deep; strings escaped (quotes, backslashes, control characters; other bytes
 * pass as they are, UTF-8 included). Each call writes one item: inside an object, KEY names it; inside an
 * array or at the top, KEY is NULL. */
#ifndef REDUCE_JSON_H
#define REDUCE_JSON_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct JsonWriter {
    FILE *out;
    int depth;
    int items[8]; /* items written so far at each depth (a comma before the next) */
} JsonWriter;

/* An object ('{') or an array ('['), closed by its bracket ('}' or ']'). */
void json_open(JsonWriter *w, const char *key, char bracket);
void json_close(JsonWriter *w, char bracket);
/* A string; NULL writes null. */
void json_string(JsonWriter *w, const char *key, const char *value);
void json_number(JsonWriter *w, const char *key, double value);
void json_bool(JsonWriter *w, const char *key, int value);
/* An array of the words of TEXT, split at each of SEPARATORS (empty words left out): "a b" -> ["a", "b"]. */
void json_words(JsonWriter *w, const char *key, const char *text, const char *separators);

#ifdef __cplusplus
}
#endif
#endif
