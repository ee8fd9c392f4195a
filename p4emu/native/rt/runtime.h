/* p4emu native runtime: bit access, hashes, match tables and action selectors.
 * Included (as text) at the top of every generated pipeline, so a change here changes
 * the source hash and rebuilds the cached module. Values are uint64_t (int<W>: int64_t
 * in expressions), as the subset is W <= 64. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>

#define MAXA 8 /* action data values per entry */

/* Header fields in and out of frame bytes. The parser and deparser call these with a
 * constant offset and width per field, so the loops below unroll into a few loads or
 * stores; the bytes of a field gather in a 64-bit word when they fit in one (all fields
 * but one of 58 to 64 bits off a byte boundary), which is cheaper than 128-bit shifts. */

static inline uint64_t p4_getbits(const uint8_t *b, uint32_t off, uint32_t w) {
    /* w bits MSB-first at bit offset off (w <= 64) */
    uint32_t first = off >> 3, last = (off + w - 1) >> 3, tail = (last + 1) * 8 - (off + w);
    uint64_t mask = w == 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;
    if (last - first < 8) {
        uint64_t acc = 0;
#pragma GCC unroll 8
        for (uint32_t i = first; i <= last; i++) acc = (acc << 8) | b[i];
        return (acc >> tail) & mask;
    }
    unsigned __int128 acc = 0;
#pragma GCC unroll 9
    for (uint32_t i = first; i <= last; i++) acc = (acc << 8) | b[i];
    return (uint64_t)(acc >> tail) & mask;
}

static inline void p4_putbits(uint8_t *b, uint32_t off, uint32_t w, uint64_t v) {
    /* OR the low w bits (0 < w <= 64) of v MSB-first at bit offset off; the buffer is
     * zeroed first */
    uint32_t first = off >> 3, last = (off + w - 1) >> 3, shift = (last + 1) * 8 - (off + w);
    uint64_t bits = w == 64 ? v : v & ((UINT64_C(1) << w) - 1);
    if (last - first < 8) {
        uint64_t acc = bits << shift;
#pragma GCC unroll 8
        for (uint32_t i = last + 1; i-- > first;) { b[i] |= (uint8_t)acc; acc >>= 8; }
        return;
    }
    unsigned __int128 acc = (unsigned __int128)bits << shift;
#pragma GCC unroll 9
    for (uint32_t i = last + 1; i-- > first;) { b[i] |= (uint8_t)acc; acc >>= 8; }
}

static inline uint64_t p4_peek(const uint8_t *d, Py_ssize_t pos, Py_ssize_t n, unsigned nbits) {
    /* nbits (<= 64) from byte pos on; past the end reads as zeros (select keys) */
    unsigned nb = (nbits + 7) / 8;
    unsigned __int128 acc = 0;
    for (unsigned i = 0; i < nb; i++) acc = (acc << 8) | (pos + (Py_ssize_t)i < n ? d[pos + i] : 0);
    return (uint64_t)(acc >> (nb * 8 - nbits));
}

static inline uint64_t p4_shr(uint64_t a, uint64_t b) { return b >= 64 ? 0 : a >> b; }
static inline int64_t p4_sar(int64_t a, uint64_t b) { return b >= 64 ? (a < 0 ? -1 : 0) : a >> b; }
static inline int64_t p4_sx(uint64_t v, unsigned w) {
    /* sign-extend the low w bits (Python's wrap to int<w>) */
    return w >= 64 ? (int64_t)v : (int64_t)(v << (64 - w)) >> (64 - w);
}
static inline uint64_t p4_msk(unsigned w) { return w >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1; }
static inline uint64_t p4_addsat(uint64_t a, uint64_t b, unsigned w) {
    uint64_t m = p4_msk(w), s = a + b;
    return (s < a || s > m) ? m : s;
}
static inline uint64_t p4_subsat(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }
static inline int64_t p4_sat_s(__int128 s, unsigned w) {
    /* clamp to int<w>, as max(-h, min(s, h - 1)) */
    __int128 hi = ((__int128)1 << (w - 1)) - 1, lo = -hi - 1;
    return (int64_t)(s > hi ? hi : (s < lo ? lo : s));
}

/* ---- hashes (p4emu/runtime/hashes.py) ---------------------------------------------- */
static uint16_t crc16_tab[256];
static uint32_t crc32_tab[256];
static void p4_hash_init(void) {
    for (int i = 0; i < 256; i++) {
        uint32_t c = (uint32_t)i, d = (uint32_t)i;
        for (int k = 0; k < 8; k++) {
            c = (c & 1) ? (c >> 1) ^ 0xA001 : c >> 1;
            d = (d & 1) ? (d >> 1) ^ 0xEDB88320u : d >> 1;
        }
        crc16_tab[i] = (uint16_t)c;
        crc32_tab[i] = d;
    }
}
static uint64_t p4_crc16(const uint8_t *b, size_t n) {
    uint32_t crc = 0;
    for (size_t i = 0; i < n; i++) crc = (crc >> 8) ^ crc16_tab[(crc ^ b[i]) & 0xFF];
    return crc;
}
static uint64_t p4_crc32(const uint8_t *b, size_t n) {
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) crc = (crc >> 8) ^ crc32_tab[(crc ^ b[i]) & 0xFF];
    return crc ^ 0xFFFFFFFFu;
}
static uint64_t p4_csum16(const uint8_t *b, size_t n) {
    uint64_t total = 0;
    for (size_t i = 0; i + 1 < n; i += 2) total += ((uint64_t)b[i] << 8) | b[i + 1];
    if (n & 1) total += (uint64_t)b[n - 1] << 8;
    while (total >> 16) total = (total & 0xFFFF) + (total >> 16);
    return ~total & 0xFFFF;
}
static uint64_t p4_xor16(const uint8_t *b, size_t n) {
    uint64_t r = 0;
    for (size_t i = 0; i + 1 < n; i += 2) r ^= ((uint64_t)b[i] << 8) | b[i + 1];
    if (n & 1) r ^= (uint64_t)b[n - 1] << 8;
    return r;
}
static uint64_t p4_identity(const uint8_t *b, size_t n) {
    uint64_t r = 0;
    for (size_t i = 0; i < n && i < 8; i++) r = (r << 8) | b[i];
    return r;
}

/* ---- tables: a C copy of p4emu.runtime.tables.Table, rebuilt by p4emu/native/sync.py ---
 * Entry record (uint64_t words): keys[nk], masks[nk], level, kind, action, nargs-free
 * args[MAXA]. kind 0: an action, 1: a selector group (action = group index), 2: a hit that
 * runs nothing (an empty member). Exact and lpm tables find entries through `index`, an
 * open-addressed hash of (level, masked keys); other tables scan in priority order. */
enum { K_ACTION = 0, K_GROUP = 1, K_NONE = 2 };
enum { M_HASH = 0, M_SCAN = 1 };

typedef struct {
    int nk, mode, nlevels, n;
    uint64_t *levels;   /* nlevels * nk masks, longest prefix first */
    uint64_t *rec;      /* n records */
    uint64_t *hits;     /* n * 2: packets, bytes since the last take_hits */
    int32_t *index; uint32_t cap;
    uint64_t *ranges;   /* scan tables with range keys: per entry a bit per range field,
                         * then (low, high) per key field; NULL without range keys */
    int def_action;     /* -1: none */
    uint64_t def_args[MAXA];
    /* groups: gstart[g]..gstart[g+1] members in gmem (member: action, watch (-1 none),
     * weight, args[MAXA]); slots: expanded unwatched groups, or NULL when watched */
    int ngroups;
    int64_t *gstart; uint64_t *gmem; int32_t **slots; int32_t *nslots;
} tbl_t;

#define REC_WORDS(nk) (2 * (nk) + 3 + MAXA)
#define GMEM_WORDS (3 + MAXA)

static inline uint64_t p4_mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static inline uint64_t tbl_hash(const tbl_t *t, uint64_t level, const uint64_t *k) {
    uint64_t h = p4_mix(0, level);
    for (int i = 0; i < t->nk; i++) h = p4_mix(h, k[i]);
    return h ^ (h >> 29);
}

static void tbl_free(tbl_t *t) {
    free(t->levels); free(t->rec); free(t->hits); free(t->index); free(t->ranges);
    if (t->slots) for (int g = 0; g < t->ngroups; g++) free(t->slots[g]);
    free(t->slots); free(t->nslots); free(t->gstart); free(t->gmem);
    memset(t, 0, sizeof *t);
    t->def_action = -1;
}

static int tbl_build_index(tbl_t *t) {
    uint32_t cap = 8;
    while (cap < (uint32_t)t->n * 2 + 2) cap <<= 1;
    t->index = malloc(sizeof(int32_t) * cap);
    if (!t->index) return -1;
    memset(t->index, 0xff, sizeof(int32_t) * cap);
    t->cap = cap;
    uint32_t w = REC_WORDS(t->nk);
    for (int e = 0; e < t->n; e++) {
        uint64_t *r = t->rec + (size_t)e * w;
        uint32_t s = (uint32_t)tbl_hash(t, r[2 * t->nk], r) & (cap - 1);
        while (t->index[s] >= 0) s = (s + 1) & (cap - 1);
        t->index[s] = e;
    }
    return 0;
}

static int tbl_find(const tbl_t *t, const uint64_t *keys) {
    uint32_t w = REC_WORDS(t->nk);
    int nk = t->nk;
    if (t->mode == M_HASH) {
        uint64_t k[16];
        for (int l = 0; l < t->nlevels; l++) {
            const uint64_t *m = t->levels + (size_t)l * nk;
            for (int i = 0; i < nk; i++) k[i] = keys[i] & m[i];
            uint32_t s = (uint32_t)tbl_hash(t, (uint64_t)l, k) & (t->cap - 1);
            for (;;) {
                int e = t->index[s];
                if (e < 0) break;
                const uint64_t *r = t->rec + (size_t)e * w;
                if (r[2 * nk] == (uint64_t)l) {
                    int i = 0;
                    while (i < nk && r[i] == k[i]) i++;
                    if (i == nk) return e;
                }
                s = (s + 1) & (t->cap - 1);
            }
        }
        return -1;
    }
    for (int e = 0; e < t->n; e++) {
        const uint64_t *r = t->rec + (size_t)e * w;
        int i = 0;
        while (i < nk && (keys[i] & r[nk + i]) == r[i]) i++;
        if (i < nk) continue;
        if (t->ranges) {
            const uint64_t *g = t->ranges + (size_t)e * (1 + 2 * nk);
            for (i = 0; i < nk; i++)
                if (((g[0] >> i) & 1) && (keys[i] < g[1 + 2 * i] || keys[i] > g[2 + 2 * i])) break;
            if (i < nk) continue;
        }
        return e;
    }
    return -1;
}

/* MSB-first packing through an accumulator (hash input, deparsing) */
static inline void p4_acc(unsigned __int128 *acc, int *nb, uint8_t *b, size_t *o, uint64_t v, int w) {
    if (w <= 0) return;
    *acc = (*acc << w) | (unsigned __int128)(v & p4_msk((unsigned)w));
    *nb += w;
    while (*nb >= 8) { b[(*o)++] = (uint8_t)(*acc >> (*nb - 8)); *nb -= 8; }
    *acc &= (((unsigned __int128)1) << *nb) - 1;
}
static inline void p4_acc_flush(unsigned __int128 *acc, int *nb, uint8_t *b, size_t *o) {
    if (*nb) { b[(*o)++] = (uint8_t)(*acc << (8 - *nb)); *nb = 0; *acc = 0; }
}

typedef struct { int hit; int64_t action_id; } tres_t;
