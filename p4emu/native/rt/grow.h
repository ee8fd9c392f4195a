/* Growing arrays, for the traffic manager's FIFOs and the simulator's event heap, wires,
 * switches, host NICs and their queues (joined first: p4emu/native/tm_build.py). One
 * policy for all: the capacity doubles from a first size, up to a limit on the items
 * (INT_MAX for arrays whose indexes are kept as int), and a size that does not fit in
 * memory is a MemoryError, never a wrapped multiplication. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <string.h>

/* `items` (an array of *cap items of `size` bytes, PyMem) with room for item number
 * `len`: itself while len < *cap, else a larger copy (*cap updated). NULL with
 * MemoryError when the allocation fails or the capacity would pass `limit` items; the
 * array is then unchanged. */
static void *grow_items(void *items, Py_ssize_t len, Py_ssize_t *cap, size_t size,
                        Py_ssize_t first, Py_ssize_t limit) {
    if (len < *cap) return items;
    if (*cap > limit / 2) return PyErr_NoMemory();
    Py_ssize_t n = *cap ? *cap * 2 : first;
    if (n > limit || (size_t)n > (size_t)PY_SSIZE_T_MAX / size) return PyErr_NoMemory();
    void *grown = PyMem_Realloc(items, (size_t)n * size);
    if (!grown) return PyErr_NoMemory();
    *cap = n;
    return grown;
}

/* grow_items for a ring buffer of `len` items from `head` (item i at (head + i) % cap):
 * the items that had wrapped to the front move past the old end, so that every item
 * keeps its index modulo the new capacity, which is at least twice the old one */
static void *grow_ring(void *items, Py_ssize_t head, Py_ssize_t len, Py_ssize_t *cap,
                       size_t size, Py_ssize_t first) {
    Py_ssize_t old = *cap;
    char *grown = grow_items(items, len, cap, size, first, PY_SSIZE_T_MAX);
    Py_ssize_t wrapped = head + len - old;  /* items stored from index 0 */
    if (grown && *cap != old && old && wrapped > 0)
        memcpy(grown + (size_t)old * size, grown, (size_t)wrapped * size);
    return grown;
}
