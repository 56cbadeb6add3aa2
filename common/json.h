/* A small JSON writer (json.c): one document, written as it goes, an item a line and indented; the strings
 * escaped (quotes, backslashes, control characters; other bytes pass as they are, UTF-8 included). --describe
 * prints with it (program.cu). Each call writes one item: inside an object, KEY names it; inside an array
 * or at the top, KEY is NULL. */
#ifndef REDUCE_JSON_H
#define REDUCE_JSON_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JSON_MAX_DEPTH 8

typedef struct JsonWriter {
    FILE *out;
    int depth;
    int items[JSON_MAX_DEPTH]; /* items written so far at each depth (a comma before the next) */
} JsonWriter;

JsonWriter json_writer(FILE *out);
void json_object_begin(JsonWriter *w, const char *key);
void json_object_end(JsonWriter *w);
void json_array_begin(JsonWriter *w, const char *key);
void json_array_end(JsonWriter *w);
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
