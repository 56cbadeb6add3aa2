/* The values of the options: sizes ("16M", "2^24+1", "4096x2048"), lists of them and whole numbers
 * (parse.c). Each returns -1 on a value it refuses, for the caller to say so. */
#ifndef REDUCE_PARSE_H
#define REDUCE_PARSE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest size any option accepts (2^40 elements). */
#define MAX_ELEMENTS (1ull << 40)

/* "1000003", "16M", "1G", "64K", "2^24+1": a count of elements. Suffixes are binary (K = 1024).
 * Returns 0 and sets *out on success, -1 on anything else (empty, junk, zero, negative, overflow). */
int parse_size(const char *s, uint64_t *out);

/* "SxK": S rows of K columns; a plain size N is one row of N. Returns 0 on success, -1 otherwise. */
int parse_matrix(const char *s, uint64_t *rows, uint64_t *cols);

/* A comma-separated list of sizes ("1,31,1M"); at most max entries. Returns the count, -1 on error. */
int parse_size_list(const char *s, uint64_t *out, int max);

/* A whole number in [lo, hi]; returns 0 on success, -1 otherwise. */
int parse_int(const char *s, long lo, long hi, long *out);

#ifdef __cplusplus
}
#endif
#endif
