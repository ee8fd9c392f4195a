/* Per-switch state of a native pipeline: one `State` object per switch, passed to every
 * call (the simulator runs many switches of one program in a process). Register and
 * counter cells live in Python buffers (array('Q')) that the Python RegisterArray /
 * CounterArray read too, so P4Runtime reads see what the data plane wrote. */

typedef struct {
    PyObject_HEAD
    tbl_t tbl[NTABLES + 1];
    uint64_t *reg[NREGS + 1]; Py_ssize_t reg_n[NREGS + 1]; Py_buffer reg_buf[NREGS + 1];
    uint64_t *cnt[NCNTS + 1]; Py_ssize_t cnt_n[NCNTS + 1]; Py_buffer cnt_buf[NCNTS + 1];
    PyObject *randint, *port_up, *refresh, *replicas;
    Py_buffer dirty_buf; uint8_t *dirty;
    /* the down ports below ports_nbits, a bitmap shared with the switch's Python
     * PortStates (p4emu/runtime/port_states.py); NULL when port_up is another callable */
    Py_buffer ports_buf; const uint8_t *ports_down; uint64_t ports_nbits;
} st_t;

/* v1model random(): the switch's Python rng (rng.randint), so a seeded run repeats.
 * Returns 1 with *out set, 0 when lo > hi (the destination stays), -1 on error. */
static int p4_random(st_t *st, uint64_t lo, uint64_t hi, uint64_t *out) {
    if (lo > hi) return 0;
    PyObject *args[2] = {PyLong_FromUnsignedLongLong(lo), PyLong_FromUnsignedLongLong(hi)};
    if (!args[0] || !args[1]) { Py_XDECREF(args[0]); Py_XDECREF(args[1]); return -1; }
    PyObject *r = PyObject_Vectorcall(st->randint, args, 2, NULL);
    Py_DECREF(args[0]); Py_DECREF(args[1]);
    if (!r) return -1;
    *out = PyLong_AsUnsignedLongLongMask(r);
    Py_DECREF(r);
    return 1;
}

/* a watch port's state: 1 up, 0 down, -1 on error. The bitmap where it covers the port
 * (selection then stays in C), else the Python port_up. */
static int p4_port_up(st_t *st, uint64_t port) {
    if (port < st->ports_nbits) return !((st->ports_down[port >> 3] >> (port & 7)) & 1);
    PyObject *p = PyLong_FromUnsignedLongLong(port);
    if (!p) return -1;
    PyObject *r = PyObject_CallOneArg(st->port_up, p);
    Py_DECREF(p);
    if (!r) return -1;
    int up = PyObject_IsTrue(r);
    Py_DECREF(r);
    return up;
}

static inline void p4_count(st_t *st, int c, uint64_t idx, uint64_t len) {
    /* out of range: no update (the Python CounterArray logs it) */
    if (idx < (uint64_t)st->cnt_n[c]) { st->cnt[c][2 * idx] += 1; st->cnt[c][2 * idx + 1] += len; }
}

/* Selection as p4emu.runtime.action_profiles.ActionProfile.select: members by member id,
 * each `weight` times, skipping those whose watch port is down; slot hash % count.
 * Returns the member's word offset in gmem, -1 for an empty group, -2 on error. */
static int64_t p4_select(st_t *st, tbl_t *t, int g, uint64_t hash) {
    hash &= 0xFFFFFFFFu;
    if (t->slots[g]) {
        if (!t->nslots[g]) return -1;
        return (int64_t)t->slots[g][hash % (uint64_t)t->nslots[g]] * GMEM_WORDS;
    }
    uint64_t count = 0;
    int64_t a = t->gstart[g], b = t->gstart[g + 1], nm = b - a;
    uint8_t small[256], *up = nm <= 256 ? small : malloc((size_t)nm);
    if (!up) { PyErr_NoMemory(); return -2; }
    int64_t res = -1;
    for (int64_t m = 0; m < nm; m++) {
        uint64_t *r = t->gmem + (a + m) * GMEM_WORDS;
        int ok = 1;
        if ((int64_t)r[1] >= 0) { ok = p4_port_up(st, r[1]); if (ok < 0) { res = -2; goto done; } }
        up[m] = (uint8_t)ok;
        if (ok) count += r[2];
    }
    if (count) {
        uint64_t n = hash % count;
        for (int64_t m = 0; m < nm; m++) {
            if (!up[m]) continue;
            uint64_t w = t->gmem[(a + m) * GMEM_WORDS + 2];
            if (n < w) { res = (a + m) * GMEM_WORDS; break; }
            n -= w;
        }
    }
done:
    if (up != small) free(up);
    return res;
}
