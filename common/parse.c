/* The values of the options (parse.h). */
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int parse_u64(const char **p, uint64_t *out)
{
    const char *s = *p;
    if (!isdigit((unsigned char)*s)) return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE) return -1;
    *out = v;
    *p = end;
    return 0;
}

int parse_size(const char *s, uint64_t *out)
{
    uint64_t rows, cols;
    if (!s || !*s || parse_matrix(s, &rows, &cols)) return -1;
    *out = rows * cols;
    return 0;
}

static int parse_one_size(const char *s, uint64_t *out);

int parse_matrix(const char *s, uint64_t *rows, uint64_t *cols)
{
    if (!s) return -1;
    const char *x = strchr(s, 'x');
    if (!x) {
        *rows = 1;
        return parse_one_size(s, cols);
    }
    char left[64];
    size_t len = (size_t)(x - s);
    if (len == 0 || len >= sizeof left || strchr(x + 1, 'x')) return -1;
    memcpy(left, s, len);
    left[len] = '\0';
    if (parse_one_size(left, rows) || parse_one_size(x + 1, cols) || *rows > MAX_ELEMENTS / *cols) return -1;
    return 0;
}

/* One size without 'x'. */
static int parse_one_size(const char *s, uint64_t *out)
{
    if (!s || !*s) return -1;
    const char *p = s;
    uint64_t v;
    if (parse_u64(&p, &v)) return -1;
    if (*p == '^') {                      /* 2^k, 2^k+c, 2^k-c */
        uint64_t k, c = 0;
        int neg = 0;
        p++;
        if (v != 2 || parse_u64(&p, &k) || k > 40) return -1;
        if (*p == '+' || *p == '-') {
            neg = *p == '-';
            p++;
            if (parse_u64(&p, &c)) return -1;
        }
        v = 1ull << k;
        if (neg) {
            if (c >= v) return -1;
            v -= c;
        } else {
            if (c > MAX_ELEMENTS) return -1;
            v += c;
        }
    } else if (*p) {
        int shift;
        switch (toupper((unsigned char)*p)) {
        case 'K': shift = 10; break;
        case 'M': shift = 20; break;
        case 'G': shift = 30; break;
        default: return -1;
        }
        p++;
        if (v > (MAX_ELEMENTS >> shift)) return -1;
        v <<= shift;
    }
    if (*p || v == 0 || v > MAX_ELEMENTS) return -1;
    *out = v;
    return 0;
}

int parse_size_list(const char *s, uint64_t *out, int max)
{
    if (!s || !*s) return -1;
    int count = 0;
    const char *p = s;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[64];
        if (len == 0 || len >= sizeof item || count == max) return -1;
        memcpy(item, p, len);
        item[len] = '\0';
        if (parse_size(item, &out[count])) return -1;
        count++;
        if (!comma) return count;
        p = comma + 1;
    }
}

int parse_int(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s) return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}
