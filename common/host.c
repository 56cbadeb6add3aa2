/* Host-only helpers of the harness (see host.h). */
#include "host.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest element count a program accepts: 2^40 elements is already terabytes. */

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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

const DtypeInfo dtypes[DT_COUNT] = {
    {"f32", 4, FLT_MAX}, {"f16", 2, 65504.0}, {"bf16", 2, 3.3895313892515355e38}, {"fp8_e4m3", 1, 448.0},
    {"fp8_e5m2", 1, 57344.0}, {"i8", 1, 127.0}, {"i32", 4, 2147483520.0}, {"f64", 8, DBL_MAX},
};

/* The Dtype of a type's name, or -1. */
static int parse_type_name(const char *name)
{
    for (int t = 0; t < DT_COUNT; t++)
        if (!strcmp(name, dtypes[t].name)) return t;
    return -1;
}

/* The value of KEY in a .npy header (a Python dict literal): a pointer just past "'KEY':" and its spaces. */
static const char *npy_value(const char *header, const char *key)
{
    char quoted[32];
    snprintf(quoted, sizeof quoted, "'%s':", key);
    const char *at = strstr(header, quoted);
    if (!at) return NULL;
    at += strlen(quoted);
    while (*at == ' ') at++;
    return at;
}

/* The .npy type strings the programs read, and their types' names (the first of a type is the one written). */
static const char *const descr[][2] = {{"'<f4'", "f32"}, {"'<f2'", "f16"}, {"'|i1'", "i8"}, {"'<i1'", "i8"},
                                       {"'<i4'", "i32"}, {"'<f8'", "f64"}};

/* The .npy header's descr, fortran_order and shape: 0, or -1 with err. */
static int npy_header(const char *header, ArrayFile *a, char *err, size_t err_size)
{
    const char *d = npy_value(header, "descr"), *f = npy_value(header, "fortran_order"), *sh = npy_value(header, "shape");
    if (!d || !f || !sh || *sh != '(') return snprintf(err, err_size, "a malformed .npy header (no descr, fortran_order or shape)"), -1;
    a->type = -1;
    for (size_t i = 0; i < sizeof descr / sizeof descr[0]; i++)
        if (!strncmp(d, descr[i][0], strlen(descr[i][0]))) a->type = parse_type_name(descr[i][1]);
    if (a->type < 0) {
        int len = (int)strcspn(d, ",}");
        return snprintf(err, err_size, "a .npy of dtype %.*s: the programs read float32, float64, float16, int8 and int32 "
                                       "(little-endian; bf16 and fp8 as raw bytes with --dtype)", len, d), -1;
    }
    if (strncmp(f, "False", 5)) return snprintf(err, err_size, "a .npy in Fortran order: save it in C order (numpy.ascontiguousarray)"), -1;
    uint64_t dims[3];
    int count = 0;
    for (const char *c = sh + 1; *c && *c != ')';) {
        while (*c == ' ' || *c == ',') c++;
        if (*c == ')') break;
        char *end;
        unsigned long long v = strtoull(c, &end, 10);
        if (end == c || count == 3) return snprintf(err, err_size, "a malformed .npy shape"), -1;
        dims[count++] = v;
        c = end;
    }
    if (count < 1 || count > 2) return snprintf(err, err_size, "a .npy of %d dimensions: give one (a vector) or two (rows)", count), -1;
    a->rows = count == 2 ? dims[0] : 0;
    a->cols = count == 2 ? dims[1] : dims[0];
    if (a->cols && (count == 2 ? dims[0] : 1) > MAX_ELEMENTS / a->cols)
        return snprintf(err, err_size, "a .npy of more than 2^40 elements"), -1;
    a->count = (count == 2 ? dims[0] : 1) * a->cols;
    return 0;
}

int read_array_file(const char *path, const char *raw_type, ArrayFile *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return snprintf(err, err_size, "cannot read it: %s", strerror(errno)), -1;
    unsigned char magic[12] = {0};
    size_t got = fread(magic, 1, sizeof magic, f);
    uint64_t data_at = 0;
    ArrayFile a = {0};
    int status = -1;
    if (got >= 10 && !memcmp(magic, "\x93NUMPY", 6)) {
        int major = magic[6];
        uint64_t len = (uint64_t)magic[8] | (uint64_t)magic[9] << 8;
        if (major != 1) len |= (uint64_t)magic[10] << 16 | (uint64_t)magic[11] << 24;
        data_at = (major == 1 ? 10 : 12) + len;
        char *header = major >= 1 && major <= 3 && len < 65536 ? calloc(len + 1, 1) : NULL;
        if (!header) snprintf(err, err_size, "a .npy of format %d or a header of %llu bytes: not one this reads", major, (unsigned long long)len);
        else if (fseek(f, (long)(major == 1 ? 10 : 12), SEEK_SET) || fread(header, 1, len, f) != len)
            snprintf(err, err_size, "a truncated .npy header");
        else if (!npy_header(header, &a, err, err_size)) {
            if (raw_type && parse_type_name(raw_type) != a.type)
                snprintf(err, err_size, "a .npy of %s, but --dtype says %s", dtypes[a.type].name, raw_type);
            else status = 0;
        }
        free(header);
    } else if (!raw_type) {
        snprintf(err, err_size, "not a .npy file (no \\x93NUMPY at its start): for raw bytes, give their --dtype");
    } else {
        a.type = parse_type_name(raw_type);
        if (a.type >= 0) status = 0;
        else {
            int len = snprintf(err, err_size, "--dtype %s: give one of", raw_type);
            for (int t = 0; t < DT_COUNT && len > 0 && (size_t)len < err_size; t++)
                len += snprintf(err + len, err_size - (size_t)len, " %s", dtypes[t].name);
        }
    }
    if (status == 0) { /* the data: exactly count elements after data_at (raw: the whole file, a whole number of them) */
        status = -1;
        fseek(f, 0, SEEK_END);
        long end = ftell(f);
        uint64_t bytes = end > (long)data_at ? (uint64_t)end - data_at : 0, size = (uint64_t)dtypes[a.type].bytes;
        if (!data_at) a.count = a.cols = bytes / size; /* raw: one dimension, as a 1-D .npy */
        if (!data_at && bytes % size)
            snprintf(err, err_size, "%llu bytes: not a whole number of %s elements (truncated?)", (unsigned long long)bytes, dtypes[a.type].name);
        else if (a.count == 0) snprintf(err, err_size, "no elements in it");
        else if (a.count > MAX_ELEMENTS) snprintf(err, err_size, "more than 2^40 elements");
        else if (bytes != a.count * size)
            snprintf(err, err_size, "%s: the header says %llu elements (%llu bytes), the file holds %llu bytes",
                     bytes < a.count * size ? "truncated" : "bytes after the array", (unsigned long long)a.count,
                     (unsigned long long)(a.count * size), (unsigned long long)bytes);
        else if (!(a.bytes = malloc(bytes))) snprintf(err, err_size, "out of host memory for %llu bytes", (unsigned long long)bytes);
        else if (fseek(f, (long)data_at, SEEK_SET) || fread(a.bytes, 1, bytes, f) != bytes)
            snprintf(err, err_size, "a read error: %s", strerror(errno));
        else status = 0;
    }
    fclose(f);
    if (status) free(a.bytes);
    else *out = a;
    return status;
}

double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static const char *const fill_names[FILL_COUNT] = {"shifted", "random", "ones", "seq", "mod100", "large", "nan", "inf",
                                                   "wide", "cond", "binades"};

int parse_fill(const char *s, Fill *out)
{
    for (int f = 0; s && f < FILL_COUNT; f++)
        if (!strcmp(s, fill_names[f])) {
            *out = (Fill)f;
            return 0;
        }
    return -1;
}

const char *fill_name(Fill f)
{
    return fill_names[f];
}

/* splitmix64's finaliser: a counter-based generator, so element i does not depend on element i-1. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The first half of the cond fill: either sign, magnitude (2^22 + 22 random bits) / 2^23 in [0.5, 1). */
static float cond_value(uint64_t seed, uint64_t i)
{
    uint64_t z = mix64(seed * 0x9e3779b97f4a7c15ull + i);
    float v = (float)((1u << 22) + (uint32_t)(z >> 42)) / (float)(1 << 23);
    return z & 1 ? -v : v;
}

/* The binades fill: a value made as its bits (so every value is exact): its sign and fraction from z's low
 * bits, its exponent field uniform in [0, top] from w's top 32 bits (a multiply and a shift: a bias of at most
 * top / 2^32). Field 0 holds the subnormals. The top is set by what sums of the data may reach: n <= 2^32
 * values below 2^T add up to less than 2^(T + 32) in magnitude, so the exact total and every partial sum, in
 * any order, stay below that.
 * fp32: top field 173, values below 2^47 (174 binades; stage 13's windows hold 2^68 of a tile of 16). Sums
 * stay below 2^79, and sums of squares (a row's variance, stage 09's LayerNorm) below 2^32 (2^47)^2 = 2^126:
 * under FLT_MAX, 2^128, with room for a computed sum's rounding.
 * fp64: top field 2013, values below 2^991 (2014 binades; the windows hold 2^89 of a tile of 8): sums below
 * 2^1023, half of DBL_MAX's 2^1024. */
#define BINADES_TOP_FIELD 173
#define BINADES_TOP_FIELD64 2013
static uint64_t binade_bits(uint64_t z, uint64_t w, unsigned top, int fraction_bits, int sign_bit)
{
    uint64_t field = ((w >> 32) * (uint64_t)(top + 1)) >> 32, fraction = (z >> 1) & ((1ull << fraction_bits) - 1);
    return (z & 1) << sign_bit | field << fraction_bits | fraction;
}

float fill_value(Fill f, uint64_t seed, uint64_t i)
{
    switch (f) {
    case FILL_ONES: return 1.0f;
    case FILL_SEQ: return (float)(i % 16);
    case FILL_MOD100: return (float)(i % 100);
    case FILL_LARGE: return 0.5f + (float)(mix64(seed * 0x9e3779b97f4a7c15ull + i) >> 41) / (float)(1 << 24);
    case FILL_NAN:
    case FILL_INF:
        if (i == NONFINITE_INDEX) return f == FILL_NAN ? NAN : INFINITY;
        return fill_value(FILL_SHIFTED, seed, i);
    case FILL_WIDE: {
        uint64_t z = mix64(seed * 0x9e3779b97f4a7c15ull + i);
        int large = (int)(z & 1), negative = large ? ((z >> 1) & 3) == 0 : (int)((z >> 1) & 1);
        float v = ldexpf(1.0f + (float)(z >> 41) / (float)(1 << 23), large ? 19 : -20); /* 24 bits: exact */
        return negative ? -v : v;
    }
    case FILL_COND: return cond_value(seed, i);
    case FILL_BINADES: {
        uint64_t z = mix64(seed * 0x9e3779b97f4a7c15ull + i);
        uint32_t bits = (uint32_t)binade_bits(z, z, BINADES_TOP_FIELD, 23, 31); /* the field from z's top 32 bits */
        float v;
        memcpy(&v, &bits, sizeof v);
        return v;
    }
    case FILL_SHIFTED: return fill_value(FILL_RANDOM, seed, i) + 0.5f; /* (m - 2^22) / 2^23: exact */
    default: {
        /* 24 random bits m, value (m - 2^23) / 2^23: exactly representable in fp32. */
        int64_t m = (int64_t)(mix64(seed * 0x9e3779b97f4a7c15ull + i) >> 40);
        return (float)(m - (1 << 23)) / (float)(1 << 23);
    }
    }
}

double fill_value64(Fill f, uint64_t seed, uint64_t i)
{
    uint64_t z = mix64(seed * 0x9e3779b97f4a7c15ull + i);
    switch (f) {
    case FILL_RANDOM: return ldexp((double)(int64_t)(z >> 11) - 4503599627370496.0, -52); /* (m - 2^52) / 2^52 */
    case FILL_SHIFTED: return fill_value64(FILL_RANDOM, seed, i) + 0.5;                 /* exact: 2^-53 grid */
    case FILL_WIDE: {
        int large = (int)(z & 1), negative = large ? ((z >> 1) & 3) == 0 : (int)((z >> 1) & 1);
        double v = ldexp(1.0 + ldexp((double)(z >> 12), -52), large ? 19 : -20); /* 53 bits: exact */
        return negative ? -v : v;
    }
    case FILL_BINADES: { /* 53 bits of z for the sign and fraction: the field from z mixed again */
        uint64_t bits = binade_bits(z, mix64(z), BINADES_TOP_FIELD64, 52, 63);
        double v;
        memcpy(&v, &bits, sizeof v);
        return v;
    }
    default: return fill_value(f, seed, i);
    }
}

void fill_array(float *x, uint64_t n, Fill f, uint64_t seed)
{
    if (f == FILL_COND) {
        fill_cond(x, n, seed, DEFAULT_COND);
        return;
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)n; i++) x[i] = fill_value(f, seed, (uint64_t)i);
}

void fill_cond(float *x, uint64_t n, uint64_t seed, double cond)
{
    uint64_t half = n / 2;
    double abs_half = 0.0; /* exact: at most 2^39 multiples of 2^-23, each below 1 */
    for (uint64_t k = 0; k < half; k++) abs_half += fabs(x[k] = cond_value(seed, k));
    if (n % 2) x[n - 1] = 0.0f;
    if (n == 1) x[0] = cond_value(seed, 0);
    if (half == 0) return;
    /* sum x = J 2^-23 for J = (2 sum|first half|) 2^23 / cond, spread over the second half as evenly as
     * integers allow (element k gets floor((k+1)J/half) - floor(kJ/half)); at most 2^21 each, so that
     * -v + j 2^-23 stays in (0.25, 1.25]: a multiple of 2^-23 there is exact in fp32. */
    double want = nearbyint(2.0 * abs_half * 8388608.0 / (cond < COND_MIN ? COND_MIN : cond));
    double most = (double)half * (double)(1u << 21);
    uint64_t total = want < 1.0 ? 1 : want > most ? (uint64_t)most : (uint64_t)want;
    unsigned __int128 prev = 0;
    for (uint64_t k = 0; k < half; k++) {
        unsigned __int128 next = (unsigned __int128)(k + 1) * total / half;
        x[half + k] = -x[k] + (float)(uint64_t)(next - prev) / 8388608.0f;
        prev = next;
    }
}

/* Neumaier's compensated addition: s + v, keeping in *c the low-order part that the sum lost. */
static void neumaier_add(double *s, double *c, double v)
{
    double t = *s + v;
    *c += fabs(*s) >= fabs(v) ? (*s - t) + v : (v - t) + *s;
    *s = t;
}

/* Chunks of a fixed size, summed in parallel (OpenMP where the build has it) and combined in order:
 * the same result whatever the number of threads. */
#define CHUNK (1ull << 20)

/* The exact sum of fp32 and of fp64 values. A finite fp64 value is an integer q < 2^53 times
 * 2^(e - 1074), 0 <= e < 2046 (e = 0: a subnormal), and every fp32 value is one of them, so it is added as
 * the integer q 2^e counted in units of 2^-1074, in three 32-bit digits held in int64: a digit takes 2^31
 * additions before it could overflow (a chunk is 2^20), and carries are made only where chunks meet.
 * Integer additions are associative: the total is the same for any order and any chunking. 68 digits reach
 * 2^2176: fp64's range with room for 2^78 inputs. */
#define EXACT_DIGITS 68
typedef struct {
    int64_t digit[EXACT_DIGITS];
} ExactSum;

static void exact_add(ExactSum *a, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    unsigned field = (unsigned)(bits >> 52 & 0x7ffu), e = field ? field - 1 : 0;
    uint64_t q = (bits & 0xfffffffffffffull) | (field ? 1ull << 52 : 0);
    unsigned __int128 mag = (unsigned __int128)q << (e % 32); /* < 2^85 */
    int sign = bits >> 63 ? -1 : 1;
    for (unsigned k = 0; k < 3; k++, mag >>= 32)
        a->digit[e / 32 + k] += sign * (int64_t)(uint64_t)(mag & 0xffffffffu);
}

/* Every digit but the top one into [0, 2^32); the top one keeps the sign. */
static void exact_carry(ExactSum *a)
{
    for (int k = 0; k + 1 < EXACT_DIGITS; k++) {
        int64_t carry = a->digit[k] >> 32; /* arithmetic shift: floor division by 2^32 */
        a->digit[k] -= carry * 4294967296LL;
        a->digit[k + 1] += carry;
    }
}

/* A carried total, rounded once to a format of p significand bits whose smallest unit is 2^min_exp (fp64:
 * 53, -1074; fp32: 24, -149): to nearest, ties to even, by integer arithmetic on its bits. The top three
 * digits that are not all 0 hold its leading bits (more than p + 1 of them where there are three), a sticky
 * bit whether any digit below them is not 0. The rounded significand q has at most p bits (p + 1 after a
 * carry, which is 2^p) and ldexp(q, unit) is exact, or Inf where it passes the format's largest value, as
 * IEEE rounds. */
static double exact_round(ExactSum a, int p, int min_exp)
{
    int negative = a.digit[EXACT_DIGITS - 1] < 0;
    if (negative) {
        for (int k = 0; k < EXACT_DIGITS; k++) a.digit[k] = -a.digit[k];
        exact_carry(&a);
    }
    int top = EXACT_DIGITS - 1;
    while (top > 0 && a.digit[top] == 0) top--;
    int low = top >= 2 ? top - 2 : 0, sticky = 0;
    unsigned __int128 w = 0; /* digits top down to low: below 2^96, bit 0 worth 2^(32 low - 1074) */
    for (int k = top; k >= low; k--) w = w << 32 | (uint64_t)a.digit[k];
    for (int k = 0; k < low; k++) sticky |= a.digit[k] != 0;
    if (w == 0) return 0.0;
    uint64_t high = (uint64_t)(w >> 64);
    int width = high ? 128 - __builtin_clzll(high) : 64 - __builtin_clzll((uint64_t)w);
    int lead = 32 * low + width - 1 - 1074;                          /* the total's leading bit: 2^lead */
    int unit = lead - (p - 1) > min_exp ? lead - (p - 1) : min_exp;  /* the result's last place */
    int drop = unit + 1074 - 32 * low;                               /* bits of w below it, >= 0 */
    uint64_t q = 0;
    if (drop < 97) { /* else q is 0 and w, below 2^96, less than half of 2^drop */
        q = (uint64_t)(w >> drop);
        if (drop > 0) {
            unsigned half = (unsigned)(w >> (drop - 1) & 1u);
            sticky |= (w & (((unsigned __int128)1 << (drop - 1)) - 1)) != 0;
            q += half && (sticky || (q & 1));
        }
    }
    double r = p < 53 ? (double)ldexpf((float)q, unit) : ldexp((double)q, unit);
    return negative ? -r : r;
}

/* The reference of x32[0..n), or where x32 is NULL of x64[0..n): the exact total rounded once to fp64 and to
 * fp32. An exact total of 0 is -0 in fp64's where every input is -0, as IEEE's additions give; fp32's is +0,
 * as fp32 kernels, whose sums start from +0, give it. */
static Reference exact_reference(const float *x32, const double *x64, uint64_t n)
{
    Reference r = {0.0, 0.0, 1, 0, -INFINITY, 0.0, 0.0, 0, 0.0f};
    int64_t chunks = (int64_t)((n + CHUNK - 1) / CHUNK);
    ExactSum total;
    memset(&total, 0, sizeof total);
    int nonint = 0, nan = 0, plus_inf = 0, minus_inf = 0, not_minus_zero = 0;
    double abs_sum = 0.0, max = -INFINITY, max_abs = 0.0;
#pragma omp parallel for ordered schedule(static, 1) if (chunks > 1) \
    reduction(|| : nonint, nan, plus_inf, minus_inf, not_minus_zero) reduction(max : max, max_abs)
    for (int64_t k = 0; k < chunks; k++) {
        ExactSum part;
        memset(&part, 0, sizeof part);
        double ka = 0.0;
        uint64_t end = (uint64_t)(k + 1) * CHUNK < n ? (uint64_t)(k + 1) * CHUNK : n;
        for (uint64_t i = (uint64_t)k * CHUNK; i < end; i++) {
            double v = x32 ? x32[i] : x64[i];
            if (isnan(v)) nan = 1;
            else if (isinf(v)) *(v > 0 ? &plus_inf : &minus_inf) = 1;
            else exact_add(&part, v);
            if (!(v == 0.0 && signbit(v))) not_minus_zero = 1;
            if (v != floor(v)) nonint = 1;
            ka += fabs(v);
            if (v > max) max = v;
            if (fabs(v) > max_abs) max_abs = fabs(v);
        }
        exact_carry(&part);
#pragma omp ordered
        {
            for (int d = 0; d < EXACT_DIGITS; d++) total.digit[d] += part.digit[d];
            exact_carry(&total);
            abs_sum += ka; /* in order: the same bits for any number of threads */
        }
    }
    r.non_finite = nan || plus_inf || minus_inf;
    r.all_integers = !nonint;
    r.abs_sum = abs_sum;
    r.max = max;
    r.max_abs = max_abs;
    /* IEEE's rules where a NaN or an Inf is read: NaN, or Inf - Inf = NaN, or the infinity */
    if (nan || (plus_inf && minus_inf)) {
        r.sum = NAN;
    } else if (plus_inf || minus_inf) {
        r.sum = plus_inf ? INFINITY : -INFINITY;
    } else {
        r.sum = exact_round(total, 53, -1074);
        r.sum32 = (float)exact_round(total, 24, -149);
        if (x64 && n && !not_minus_zero) r.sum = -0.0, r.sum32 = -0.0f; /* every input -0 */
    }
    if (r.non_finite) r.sum32 = (float)r.sum;
    return r;
}

Reference reference_sum(const float *x, uint64_t n)
{
    return exact_reference(x, NULL, n);
}

Reference reference_sum_f64(const double *x, uint64_t n)
{
    return exact_reference(NULL, x, n);
}

Reference reference_abs_max(const float *x, uint64_t n)
{
    Reference r = {0};
    int nan = 0;
    double max_abs = 0.0;
#pragma omp parallel for schedule(static) reduction(|| : nan) reduction(max : max_abs) if (n > CHUNK)
    for (int64_t i = 0; i < (int64_t)n; i++) {
        if (isnan(x[i])) nan = 1;
        else if (fabs((double)x[i]) > max_abs) max_abs = fabs((double)x[i]);
    }
    r.sum = nan ? NAN : max_abs;
    r.max = r.max_abs = r.abs_sum = max_abs;
    r.non_finite = nan || isinf(max_abs);
    return r;
}

Reference reference_sum_squares(const float *x, uint64_t n)
{
    double *squares = (double *)malloc(n * sizeof(double));
    if (!squares) {
        fprintf(stderr, "error: out of host memory for the squares of %llu values\n", (unsigned long long)n);
        exit(EXIT_USAGE);
    }
    for (uint64_t i = 0; i < n; i++) squares[i] = (double)x[i] * (double)x[i];
    Reference r = reference_sum_f64(squares, n);
    free(squares);
    if (!isnan(r.sum) && isinf(r.sum32)) r.sum = INFINITY, r.non_finite = 1;
    r.abs_sum = r.sum;
    return r;
}

Reference reference_logsumexp(const float *x, uint64_t n)
{
    Reference r = {0.0, 1.0, 0, 0, -INFINITY, 0.0, 0.0, 0, 0.0f};
    int nan = 0, nonfin = 0;
    double max = -INFINITY;
#pragma omp parallel for schedule(static) reduction(|| : nan, nonfin) reduction(max : max) if (n > CHUNK)
    for (int64_t i = 0; i < (int64_t)n; i++) {
        double v = x[i];
        if (!isfinite(v)) nonfin = 1;
        if (isnan(v)) nan = 1;
        else if (v > max) max = v;
    }
    r.max = max;
    r.non_finite = nonfin;
    if (nan || isinf(max)) { /* NaN in, NaN out; else +Inf (or a row of -Inf only) is its own LSE */
        r.sum = nan ? NAN : max;
        return r;
    }
    /* sum exp(x_i - max) in chunks, combined in order as in reference_sum; a term that is 0 in fp64
     * (x_i = -Inf, or x_i - max below -745) adds nothing to either sum. */
    int64_t chunks = (int64_t)((n + CHUNK - 1) / CHUNK);
    double s = 0.0, c = 0.0, arg = 0.0, u = unit_roundoff(24);
#pragma omp parallel for ordered schedule(static, 1) if (chunks > 1)
    for (int64_t k = 0; k < chunks; k++) {
        double ks = 0.0, kc = 0.0, ka = 0.0;
        uint64_t end = (uint64_t)(k + 1) * CHUNK < n ? (uint64_t)(k + 1) * CHUNK : n;
        for (uint64_t i = (uint64_t)k * CHUNK; i < end; i++) {
            double t = x[i] - max, e = exp(t);
            if (e == 0.0) continue;
            neumaier_add(&ks, &kc, e);
            ka += e * expm1(-t * u);
        }
#pragma omp ordered
        {
            neumaier_add(&s, &c, ks);
            c += kc;
            arg += ka;
        }
    }
    r.abs_sum = s + c;
    r.arg_error = arg;
    r.sum = max + log(r.abs_sum);
    return r;
}

Moments reference_moments(const float *x, uint64_t n)
{
    Reference sum = reference_sum(x, n);
    Moments m = {sum.sum / (double)n, NAN, NAN, sum.max_abs, NAN, n};
    if (sum.non_finite) return m;
    /* sum (x_i - mean)^2 in chunks, combined in order as in reference_sum */
    int64_t chunks = (int64_t)((n + CHUNK - 1) / CHUNK);
    double s = 0.0, c = 0.0, lo = INFINITY, hi = -INFINITY;
#pragma omp parallel for ordered schedule(static, 1) reduction(min : lo) reduction(max : hi) if (chunks > 1)
    for (int64_t k = 0; k < chunks; k++) {
        double ks = 0.0, kc = 0.0;
        uint64_t end = (uint64_t)(k + 1) * CHUNK < n ? (uint64_t)(k + 1) * CHUNK : n;
        for (uint64_t i = (uint64_t)k * CHUNK; i < end; i++) {
            double d = x[i] - m.mean;
            neumaier_add(&ks, &kc, d * d);
            if (x[i] < lo) lo = x[i];
            if (x[i] > hi) hi = x[i];
        }
#pragma omp ordered
        {
            neumaier_add(&s, &c, ks);
            c += kc;
        }
    }
    m.m2 = s + c;
    m.var = m.m2 / (double)n;
    m.range = hi - lo;
    return m;
}

Shape shape_unknown(uint64_t n)
{
    Shape s = {0.0, 0.0, 0.0, 0, 0.0, 0.0, 0.0, 0, 0};
    s.serial = n > 1 ? (double)(n - 1) : 1.0;
    return s;
}

/* CUB's DeviceReduce (CCCL 3.x, cub/device/dispatch/dispatch_reduce.cuh and tuning/tuning_reduce.cuh:
 * the policy for sm_60 and later, which sm_90 takes): blocks of 256 threads, each loading 16 items per
 * tile (a 4-byte accumulator: every sum here is fp32 or int32); a grid of G blocks splits the tiles
 * evenly (GridEvenShare), so a thread adds 16 values in each of at most ceil(tiles / G) tiles into its
 * running sum; the block then reduces its 256 sums (warp shuffles, 5 levels, then the 8 warps' sums in
 * a row, 7); a second kernel of one block sums the G partials the same way (16 per thread per tile of
 * 4096). G = min(tiles, occupancy x SMs x 5) with occupancy between 1 and 8 blocks of 256 per SM: the
 * first pass takes the smallest G, the second the largest, so the path is never shorter than CUB's.
 * Assumed: a thread's 16 values of a tile reach its sum through at most 16 additions, in any order
 * (ThreadReduce). A segment of DeviceSegmentedReduce is one block's share: sm_count 0. */
Shape shape_cub_reduce(uint64_t n, int sm_count)
{
    double tiles = ceil((double)n / 4096.0);
    double g_min = sm_count ? fmin(tiles, 5.0 * sm_count) : 1.0, g_max = sm_count ? fmin(tiles, 40.0 * sm_count) : 1.0;
    Shape s = {0.0, 0.0, 0.0, 0, 0.0, 0.0, 0.0, 0, 0};
    s.serial = ceil(tiles / fmax(g_min, 1.0)) * 16.0 + (g_max > 1.0 ? ceil(g_max / 4096.0) * 16.0 : 0.0);
    s.tree = (g_max > 1.0 ? 2.0 : 1.0) * (5.0 + 7.0);
    return s;
}

double unit_roundoff(int significand_bits)
{
    return ldexp(1.0, -significand_bits);
}

/* Two bounds on the error of a floating-point sum in which every input reaches the result through at
 * most d additions, each rounded to nearest with unit roundoff u (Higham, "Accuracy and Stability of
 * Numerical Algorithms", 2nd ed., §4.2):
 *   worst case:     |s_hat - s| <= gamma_d * sum|x_i|,  gamma_d = d u / (1 - d u);
 *   probabilistic:  |s_hat - s| <= (exp(lambda sqrt(d) u + d u^2 / (1 - u)) - 1) * sum|x_i|,
 *                   failing with probability at most 2 n exp(-lambda^2 (1 - u)^2 / 2) when the
 *                   rounding errors are independent with mean zero (Higham and Mary, SIAM J. Sci.
 *                   Comput. 41(5), 2019, Theorem 3.1).
 * lambda = 9 keeps that probability below 1e-6 for n up to 2^32. Long chains (an atomicAdd per
 * element, a long serial loop) take the probabilistic bound, short trees the worst case.
 * The mean-zero assumption fails where an input is smaller than a unit in the last place of the
 * partial sum it joins (below 2u |partial|): it is then lost whole, or rounded up to that unit, the
 * same way every time, and a long loop of such additions stagnates (an fp32 loop over 2^28 values of
 * mean 1/2 stops growing near 2^25). So the probabilistic bound adds, at their full size, the inputs
 * below 2u P, P the largest partial sum an input can join (each of those additions errs by less than
 * its addend). Where an input joins depends on the shape: a thread's loop of `serial` additions holds at
 * most (serial + 1) max|x_i|; a tree's first level (no loop) pairs it with one other input, at most
 * 2 max|x_i|; an atomicAdd per element (no loop, no tree) joins the running total, up to sum|x_i|.
 * The partial sums that later levels and atomics add are sums of a warp's or a block's inputs, taken
 * not to stagnate: larger than half a unit in the last place of what they join. That holds for the
 * shifted data at the bench's sizes (32 inputs sum to about 16; a total below 2^27 has half-units of at
 * most 8) and for the check fills; data made of whole blocks of tiny values among huge ones would break
 * it, which is what the worst-case bound and the accuracy lab are for.
 * A path through d1 additions in one precision (u1) and d2 in another (u2: a half-precision pack or
 * tree, then fp32 additions and fp32 atomics, d2 = wide + atomic; fp64 atomics where Shape.wide_bits says
 * so) uses d u -> d1 u1 + d2 u2 and d u^2 -> d1 u1^2 + d2 u2^2 in both formulas (the same first-order
 * argument, term by term); the stagnation threshold takes the larger u. The reference adds its own error, its one rounding (reference_error).
 * The probabilistic bound needs rounding errors that behave as random, which the fills' random
 * significands give. Integer data (past 2^p) and data of unknown make (a file, Reference.structured) need
 * not: values on a coarse grid, repeating, round the same way at every addition (a file of values k/8 summed
 * in one fp32 loop of 10^6 exceeds the probabilistic bound). They take the worst case alone.
 * Inputs that are all integers with sum|x_i| <= 2^p, p the narrowest significand on the path, are
 * summed exactly in any order (every partial sum is an integer of at most p bits): the bound is 0
 * there, so `--fill ones` must give exactly N. Integer accumulators are exact. */
#define LAMBDA 9.0

double small_abs_sum(const float *x, uint64_t n, double below)
{
    double sum = 0.0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (int64_t i = 0; i < (int64_t)n; i++)
        if (fabsf(x[i]) < below) sum += fabsf(x[i]);
    return sum;
}

double sum_tolerance(Shape s, const Reference *ref, const float *x, uint64_t n)
{
    if (s.acc_bits == ACC_EXACT) return 0.0;
    int narrow = s.acc_bits ? s.acc_bits : 24;
    if (ref->all_integers && ref->abs_sum <= ldexp(1.0, narrow < 24 ? narrow : 24)) return 0.0;
    double u1 = unit_roundoff(narrow), u2 = unit_roundoff(s.wide_bits ? s.wide_bits : 24);
    double d1 = s.serial + s.tree, d2 = s.wide + s.atomic;
    if (d1 + d2 < 1.0) d1 = 1.0;
    double du = d1 * u1 + d2 * u2, du2 = d1 * u1 * u1 + d2 * u2 * u2;
    double worst = du < 1.0 ? du / (1.0 - du) * ref->abs_sum : INFINITY;
    double prob = ref->all_integers || ref->structured ? INFINITY
                                                       : expm1(LAMBDA * sqrt(du2) + du2 / (1.0 - fmax(u1, u2))) * ref->abs_sum;
    double joined = s.serial >= 1.0 ? (s.serial + 1.0) * ref->max_abs : s.tree >= 1.0 ? 2.0 * ref->max_abs : ref->abs_sum;
    if (prob < worst && x) prob += small_abs_sum(x, n, 2.0 * fmax(u1, u2) * fmin(joined, ref->abs_sum));
    return fmin(worst, prob) + reference_error(ref);
}

/* A sum of squares as stage 09's RMSNorm kernel computes it: s = fmaf(x_i, x_i, s) in a thread's loop
 * (the square is exact inside the fmaf: one rounding per term, that of the addition), then a tree of
 * fp32 additions. Each term x_i^2 is positive and goes through at most d = serial + tree roundings, so
 * the worst case of sum_tolerance's first formula holds: d u / (1 - d u) times the sum itself. Only the
 * worst case: the partial sums all grow, so their errors need not cancel (as logsumexp_tolerance says of
 * its positive terms). Where a square or a partial sum falls below fp32's normal range the error is
 * absolute instead, at most 2^-150 an operation: 2^-150 times the at most 2n operations. */
double sum_squares_tolerance(Shape s, const Reference *ref, uint64_t n)
{
    if (!isfinite(ref->sum)) return 0.0;
    if (ref->all_integers && ref->sum <= ldexp(1.0, 24)) return 0.0;
    double du = (s.serial + s.tree > 1.0 ? s.serial + s.tree : 1.0) * unit_roundoff(24);
    if (du >= 1.0) return INFINITY;
    return du / (1.0 - du) * ref->sum + 2.0 * (double)n * ldexp(1.0, -150) + reference_error(ref);
}

double reference_error(const Reference *ref)
{
    return unit_roundoff(53) * fabs(ref->sum);
}

/* A log-sum-exp as a kernel computes it in fp32: m = max x_i (exact: a maximum rounds nothing),
 * t_i = x_i - m rounded, e_i = expf(t_i), S = sum e_i along paths of d = serial + tree additions,
 * L = logf(S), LSE = m + L rounded. Every e_i lies in (0, 1] and the largest input's is exactly 1,
 * so S >= 1 and L >= 0. With u = 2^-24 and the fp64 reference's S, L and T (Reference.arg_error):
 * - One term: rounding t_i multiplies e_i by exp(eta) with |eta| <= u |t_i|. An online softmax
 *   rounds several differences on the way (x_i - m_a, then m_a - m_b, ...), all of one sign, and
 *   they add up to t_i: the same bound. The term is also multiplied by (1 + delta) once for each
 *   expf result it is multiplied by (Shape.exps of them: CUDA's expf is within 2 ulps, |delta| <= 4u),
 *   each product (exps - 1) and each addition (d): k roundings whose unit roundoffs add up to
 *   du = (d + exps - 1) u + exps 4u move it by at most rho = du / (1 - du) (Higham, Lemma 3.1, the
 *   unit roundoffs added up).
 *   Only this worst case holds: the terms are all positive, so the partial sums grow with every
 *   addition and their rounding errors do not cancel on average, and the probabilistic bound that
 *   sum_tolerance also takes fails (a serial fp32 sum of a few million such terms exceeds it).
 *   Summed over the terms: |S_hat - S| <= sum e_i ((1 + rho) expm1(u |t_i|) + rho) = (1 + rho) T + rho S,
 *   plus, for terms in fp32's subnormal range, where the error is absolute, 2^-148 per operation.
 * - With R = |S_hat - S| / S < 1: |log S_hat - log S| <= -log(1 - R). Where R >= 1 (du near 1: paths of
 *   millions of additions, a thread's share of a row of hundreds of millions) nothing is bounded: INFINITY.
 * - logf is within 1 ulp: at most 2u |log S_hat|. The final m + L: one rounding, u |LSE|.
 * - The fp64 reference: a few units of 2^-53 of |LSE| and L, and its own t_i rounding, T / u in 2^-53.
 * The ulp figures are the CUDA Programming Guide's table of single-precision functions (without
 * --use_fast_math, as the Makefile builds). The bound is absolute, on the LSE. */
#define EXPF_ULPS 2.0
#define LOGF_ULPS 1.0

double logsumexp_tolerance(Shape s, const Reference *ref, uint64_t n)
{
    if (!isfinite(ref->sum)) return 0.0; /* NaN or an infinite LSE: result_passes wants the same value */
    double u = unit_roundoff(24), u_exp = 2.0 * EXPF_ULPS * u, u64 = unit_roundoff(53);
    double exps = s.exps > 1.0 ? s.exps : 1.0, roundings = s.serial + s.tree + exps - 1.0;
    double du = roundings * u + exps * u_exp, rho = du < 1.0 ? du / (1.0 - du) : INFINITY;
    double S = ref->abs_sum, T = ref->arg_error, L = log(S);
    double subnormal = (double)n * (exps + roundings) * 0x1p-148;
    double R = ((1.0 + rho) * (T + subnormal) + rho * S) / S;
    if (!(R < 1.0)) return INFINITY;
    double e_sum = -log1p(-R), e_log = 2.0 * LOGF_ULPS * u * (L + e_sum);
    double e_add = u * (fabs(ref->sum) + e_sum + e_log);
    double e_ref = 8.0 * u64 * (fabs(ref->sum) + L + 1.0) + T / S * (u64 / u);
    return e_sum + e_log + e_add + e_ref;
}

/* A row's mean and variance as a Welford kernel computes them in fp32 (u = 2^-24): every element is the
 * state (1, x, 0), and two states merge by Chan, Golub and LeVeque's rule ("Updating formulae and a pairwise
 * algorithm for computing sample variances", Stanford STAN-CS-79-773, 1979):
 *   n = na + nb, w = nb / n, d = mb - ma, m = ma + d w, M2 = (M2a + M2b) + d d na w,
 * s.serial merges on a thread's path (its loop: Welford's update is the merge with nb = 1), then s.tree
 * levels. Up to 2^24 elements a row every count is an exact fp32 integer; past that nothing is derived
 * (INFINITY). A merge with an empty side is exact. Write d_max = serial + tree (merges on any element's
 * path), a = (serial + 1) / 2 + tree (the sum of |S| / n over the merges, S the elements a merge joins: a
 * loop of k elements joins 2, 3, ..., k of them, a tree level each element once) and b = 1 + tree (merges
 * in which an element is on the b side: its own in the loop, one a level).
 * - The mean. A merge rounds d, w, d w and the sum: m_hat = (ma' + d' w (1 + t3)) (1 + e), |t3| <= g3 =
 *   3u / (1 - 3u), e <= u, where ma', mb' are the computed inputs and d' = mb' - ma'. The inputs' errors
 *   pass on with the weights na / n and nb / n, so a merge's own error reaches the row's mean scaled by
 *   |S| / n (times (1 + u) per later merge: at most grow = 1 / (1 - d_max u)). Its own error is at most
 *   g3 w |d'| + u |m_hat|, with |d'| <= range + 2E and |m_hat| <= max|x| + E, E the largest error of any
 *   computed mean; summed over the merges with sum |S| / n <= a and sum w |S| / n <= b:
 *     E <= (g3 b range + a u max|x|) / (1 / grow - 2 g3 b - a u):
 *   a recursive sum's error, about d u max|x|, and a term for the weights.
 * - M2. Exactly, M2 = sum over the merges of d_S^2 c_S, c_S = na nb / n (the merge formula, telescoped from
 *   single elements whose M2 is 0). The kernel's d' = d_S + D_S with |D_S| <= 2E, so by Cauchy-Schwarz
 *   sum d'^2 c_S lies between (sqrt(M2) - 2E sqrt(C))^2 and (sqrt(M2) + 2E sqrt(C))^2: it is within
 *   moved = 2E sqrt(C) (2 sqrt(M2) + 2E sqrt(C)) of M2, C = sum c_S <= n (1 + tree / 4) (a loop's c_S < 1
 *   each, a tree level's sum at most n / 4). Each term d' d' na w is rounded 6 times (d' twice, three
 *   products, w), added once where it is made, then once in each later loop merge and twice a level
 *   (M2a + M2b, then the term), and the variance is one division by n: k = 6 + 1 + serial + 2 tree + 1
 *   roundings at most. Every addition adds nonnegative numbers, so the total is within g_k (M2 + moved)
 *   (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., Lemma 3.1). FMAs round less.
 * With max|x| ~ |mean|, 2E sqrt(C) / sqrt(M2) is about 2 d u sqrt(1 + tree / 4) |mean| sqrt(n / M2): Chan,
 * Golub and LeVeque's condition number of the variance, kappa = sqrt(1 + mean^2 n / M2) ("Algorithms for
 * computing the sample variance: analysis and recommendations", The American Statistician 37(3), 1983),
 * times the chain length and u. The one-pass sum and sum of squares loses kappa^2 u instead.
 * Underflow: a product or quotient below 2^-126 in magnitude may err by up to 2^-150 (half fp32's smallest
 * subnormal) instead of u of itself (Higham, §2.1; a sum or difference there is exact). A merge's d w is one,
 * and its error reaches the row's mean scaled by |S| / n, as the merge's own does: over the merges a 2^-150
 * beside u max|x| in E. M2's term, ((d d) na) w, has three, 2^-150 (na w + w + 1) <= 2^-150 (c_S + 2) a merge,
 * over at most n - 1 merges with two sides, and the division by n one more: on the variance
 * 2^-150 ((C / n + 2) (1 + g_k) + 1). Only a row whose moments lie near fp32's subnormals notices: two values
 * near 1e-24 have a variance near 1e-48, which fp32 holds as 0.
 * The reference adds its own: 2 units of 2^-53 on the mean, and on the variance 8 units plus (mean
 * 2^-52)^2, what its rounded mean adds to M2 / n. */
MomentsTolerance moments_tolerance(Shape s, const Moments *ref)
{
    MomentsTolerance t = {0.0, 0.0};
    if (!isfinite(ref->var)) return t; /* a NaN or an Inf was read: value_passes wants the same value */
    double n = (double)ref->n;
    if (n > 0x1p24) {
        t.mean = t.var = INFINITY;
        return t;
    }
    double u = unit_roundoff(24), u64 = unit_roundoff(53), under = 0x1p-150;
    double d = s.serial + s.tree, a = (s.serial + 1.0) / 2.0 + s.tree, b = 1.0 + s.tree, g3 = 3.0 * u / (1.0 - 3.0 * u);
    double room = 1.0 - d * u - 2.0 * g3 * b - a * u; /* 1 / grow = 1 - d u */
    double e = room > 0.0 ? (g3 * b * ref->range + a * (u * ref->max_abs + under)) / room : INFINITY;
    double c = n * (1.0 + s.tree / 4.0), spread = 2.0 * e * sqrt(c);
    double moved = spread * (2.0 * sqrt(ref->m2) + spread);
    double k = 6.0 + 1.0 + s.serial + 2.0 * s.tree + 1.0, gk = k * u < 1.0 ? k * u / (1.0 - k * u) : INFINITY;
    t.mean = e + 2.0 * u64 * fabs(ref->mean);
    t.var = (moved + gk * (ref->m2 + moved)) / n + 8.0 * u64 * ref->var + pow(2.0 * u64 * ref->mean, 2.0) +
            under * ((c / n + 2.0) * (1.0 + gk) + 1.0);
    return t;
}

double max_chunk_abs_sum(const float *x, uint64_t n, double span)
{
    uint64_t len = span >= 1.0 && span < (double)n ? (uint64_t)span : n;
    double best = 0.0;
    for (uint64_t start = 0; start < n; start += len) {
        double s = 0.0;
        for (uint64_t i = start; i < n && i < start + len; i++) s += fabs(x[i]);
        if (s > best) best = s;
    }
    return best;
}

int result_passes(double result, const Reference *ref, double tol)
{
    if (!isfinite(ref->sum)) return isnan(ref->sum) ? isnan(result) : result == ref->sum;
    if (!isfinite(result)) return 0;
    return fabs(result - ref->sum) <= tol;
}

int value_passes(double result, double want, double tol)
{
    Reference ref = {0};
    ref.sum = want;
    return result_passes(result, &ref, tol);
}

double relative_error(double result, double ref)
{
    if (isnan(result) || isnan(ref)) return NAN;
    if (result == ref) return 0.0;
    return ref != 0.0 ? fabs(result - ref) / fabs(ref) : fabs(result);
}

const char *result_decimal(char *buf, size_t cap, double v, ResultType t)
{
    if (t == RESULT_NONE || !isfinite(v) || t == RESULT_I32) {
        snprintf(buf, cap, t == RESULT_NONE ? "" : t == RESULT_I32 ? "%.0f" : "%g", v);
        return buf;
    }
    /* The correctly rounded decimal of 1, 2, ... digits, until one reads back to v itself: 9 digits always
     * do for an fp32 value, 17 for an fp64 one. */
    int most = t == RESULT_F32 ? 9 : 17;
    for (int digits = 1; digits <= most; digits++) {
        snprintf(buf, cap, "%.*g", digits, v);
        if (t == RESULT_F32 ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v) break;
    }
    return buf;
}

const char *result_bits(char *buf, size_t cap, double v, ResultType t)
{
    if (t == RESULT_F64) {
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        snprintf(buf, cap, "0x%016llx", (unsigned long long)bits);
    } else if (t == RESULT_F32 || t == RESULT_I32) {
        float f = (float)v;
        int32_t i = (int32_t)v;
        uint32_t bits;
        if (t == RESULT_F32) memcpy(&bits, &f, sizeof bits);
        else memcpy(&bits, &i, sizeof bits);
        snprintf(buf, cap, "0x%08x", (unsigned)bits);
    } else {
        snprintf(buf, cap, "%s", "");
    }
    return buf;
}

int write_array_file(const char *path, Dtype t, const void *data, uint64_t rows, uint64_t cols, char *err,
                     size_t err_size)
{
    const char *type = NULL;
    for (size_t i = 0; i < sizeof descr / sizeof descr[0] && !type; i++)
        if (!strcmp(descr[i][1], dtypes[t].name)) type = descr[i][0];
    if (!type) return snprintf(err, err_size, "no .npy type holds %s values", dtypes[t].name), -1;
    char header[256], shape[64];
    if (cols) snprintf(shape, sizeof shape, "%llu, %llu", (unsigned long long)rows, (unsigned long long)cols);
    else snprintf(shape, sizeof shape, "%llu,", (unsigned long long)rows);
    /* The magic, the version, the header's length, then the header, padded with spaces to a multiple of 64
     * bytes in all and ended by a newline. */
    int len = snprintf(header, sizeof header, "{'descr': %s, 'fortran_order': False, 'shape': (%s), }", type, shape);
    int padded = (10 + len + 1 + 63) / 64 * 64 - 10;
    memset(header + len, ' ', (size_t)(padded - len - 1));
    header[padded - 1] = '\n';
    unsigned char lead[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(padded & 0xff), (unsigned char)(padded >> 8)};
    uint64_t bytes = rows * (cols ? cols : 1) * (uint64_t)dtypes[t].bytes;
    FILE *f = fopen(path, "wb");
    if (!f) return snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno)), -1;
    int ok = fwrite(lead, 1, sizeof lead, f) == sizeof lead && fwrite(header, 1, (size_t)padded, f) == (size_t)padded &&
             fwrite(data, 1, bytes, f) == bytes;
    if (fclose(f) || !ok) return snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno)), -1;
    return 0;
}
