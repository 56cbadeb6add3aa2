/* The values of the options (parse.h). */
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int parse_u64(const char **p, uint64_t *out)
{
    if (!isdigit((unsigned char)**p)) return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(*p, &end, 10);
    if (errno == ERANGE) return -1;
    *out = v;
    *p = end;
    return 0;
}

/* One size without 'x'. */
static int parse_one_size(const char *p, uint64_t *out)
{
    uint64_t v;
    if (parse_u64(&p, &v)) return -1;
    if (*p == '^') { /* 2^k, 2^k+c, 2^k-c */
        uint64_t k, c = 0;
        p++;
        if (v != 2 || parse_u64(&p, &k) || k > 40) return -1;
        int neg = *p == '-';
        if (*p == '+' || neg) {
            p++;
            if (parse_u64(&p, &c)) return -1;
        }
        v = 1ull << k;
        if (neg ? c >= v : c > MAX_ELEMENTS) return -1;
        v = neg ? v - c : v + c;
    } else if (*p) { /* K, M, G: 2^10, 2^20, 2^30 */
        static const char suffixes[] = "KMG";
        const char *at = strchr(suffixes, toupper((unsigned char)*p++));
        if (!at) return -1;
        int shift = 10 * (int)(at - suffixes + 1);
        if (v > (MAX_ELEMENTS >> shift)) return -1;
        v <<= shift;
    }
    if (*p || v == 0 || v > MAX_ELEMENTS) return -1;
    *out = v;
    return 0;
}

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

int parse_size(const char *s, uint64_t *out)
{
    uint64_t rows, cols;
    if (!s || !*s || parse_matrix(s, &rows, &cols)) return -1;
    *out = rows * cols;
    return 0;
}

int parse_size_list(const char *s, uint64_t *out, int max)
{
    for (int count = 0; s; count++) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        char item[64];
        if (len == 0 || len >= sizeof item || count == max) return -1;
        memcpy(item, s, len);
        item[len] = '\0';
        if (parse_size(item, &out[count])) return -1;
        if (!comma) return count + 1;
        s = comma + 1;
    }
    return -1;
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
