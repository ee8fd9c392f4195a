/* EventLoop: the inner loop of p4emu/switch/dataplane_loop.py in C (joined after
 * tm_server.c). It waits in epoll on every port socket of the switches it serves (GIL
 * released, ns timeouts), receives, runs ingress and serves due egress queues, and
 * returns to Python only when the wake-up pipe is readable (PacketOuts, added or removed
 * switches, stop). A switch whose pipeline and traffic manager are compiled and whose
 * ports are plain sockets (its `fast_path()`) costs no Python frame per packet; any other
 * switch is served through its Python `receive(port)` and `serve()`. Only the loop
 * thread calls an EventLoop's methods. */
#include <math.h>
#include <sys/epoll.h>
#include <time.h>

#define WAKE_TAG UINT64_MAX

static PyObject *s_program;  /* "program", interned at module init: read per round */
#define MAX_EVENTS 64

typedef struct {
    PyObject *tm, *receive, *serve;   /* the traffic manager and its Python entry points */
    PyObject *lock_acquire, *lock_release, *core, *fast_path, *port_trouble, *on_error;
    PyObject *program;                 /* core.program when fast_path() was last asked */
    srv_t *server;                     /* its answer: the compiled server, or NULL */
    int active, due, has_deadline;
    long long deadline_ns;             /* CLOCK_MONOTONIC, as time.monotonic() */
} slot_t;

typedef struct { PyObject *port; int slot, number, fd; } fd_entry_t;

typedef struct {
    PyObject_HEAD
    int epfd, running;  /* running: inside run(), which holds pointers into slots and fds */
    slot_t *slots; int nslots;
    fd_entry_t *fds; int nfds;
} loop_t;

static int not_running(loop_t *l) {
    if (!l->running) return 0;
    PyErr_SetString(PyExc_RuntimeError, "EventLoop: switches are added and removed between runs");
    return -1;
}

static long long mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void slot_clear(slot_t *s) {
    Py_CLEAR(s->tm); Py_CLEAR(s->receive); Py_CLEAR(s->serve); Py_CLEAR(s->lock_acquire);
    Py_CLEAR(s->lock_release); Py_CLEAR(s->core); Py_CLEAR(s->fast_path);
    Py_CLEAR(s->port_trouble); Py_CLEAR(s->on_error); Py_CLEAR(s->program);
    Py_CLEAR(s->server);
    s->active = s->due = s->has_deadline = 0;
}

static int loop_traverse(loop_t *l, visitproc visit, void *arg) {
    for (int i = 0; i < l->nslots; i++) {
        slot_t *s = &l->slots[i];
        Py_VISIT(s->tm); Py_VISIT(s->receive); Py_VISIT(s->serve); Py_VISIT(s->lock_acquire);
        Py_VISIT(s->lock_release); Py_VISIT(s->core); Py_VISIT(s->fast_path);
        Py_VISIT(s->port_trouble); Py_VISIT(s->on_error); Py_VISIT(s->program);
        Py_VISIT(s->server);
    }
    for (int i = 0; i < l->nfds; i++) Py_VISIT(l->fds[i].port);
    return 0;
}

static int loop_clear(loop_t *l) {
    for (int i = 0; i < l->nslots; i++) slot_clear(&l->slots[i]);
    for (int i = 0; i < l->nfds; i++) Py_CLEAR(l->fds[i].port);
    return 0;
}

static void loop_dealloc(loop_t *l) {
    PyObject_GC_UnTrack(l);
    loop_clear(l);
    PyMem_Free(l->slots); PyMem_Free(l->fds);
    if (l->epfd >= 0) close(l->epfd);
    Py_TYPE(l)->tp_free((PyObject *)l);
}

/* EventLoop(wake_fd): the fd whose readability ends run() */
static PyObject *loop_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    int wake_fd;
    if (!PyArg_ParseTuple(args, "i", &wake_fd)) return NULL;
    loop_t *l = (loop_t *)type->tp_alloc(type, 0);
    if (!l) return NULL;
    l->epfd = -1;
    l->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (l->epfd < 0) { Py_DECREF(l); return PyErr_SetFromErrno(PyExc_OSError); }
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = WAKE_TAG};
    if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, wake_fd, &ev) < 0) { Py_DECREF(l); return PyErr_SetFromErrno(PyExc_OSError); }
    return (PyObject *)l;
}

/* slot `idx`'s sockets leave the epoll set (before they are closed); the slot is free */
static void slot_release(loop_t *l, int idx) {
    for (int e = 0; e < l->nfds; e++)
        if (l->fds[e].slot == idx && l->fds[e].port) {
            epoll_ctl(l->epfd, EPOLL_CTL_DEL, l->fds[e].fd, NULL);
            Py_CLEAR(l->fds[e].port); l->fds[e].slot = -1;
        }
    slot_clear(&l->slots[idx]);
}

/* add(tm, lock, core, ports, fast_path, port_trouble, on_error) -> slot.
 * ports: [(fd, number, Port)]; fast_path: None, or a callable giving the compiled Server
 * to use for core.program (or None); port_trouble(port, dropped lengths | OSError);
 * on_error(tm, exc): an exception of the switch's work, logged (the switch is looked
 * at again IDLE later). */
static PyObject *loop_add(loop_t *l, PyObject *args) {
    PyObject *tm, *lock, *core, *ports, *fast_path, *trouble, *on_error;
    if (not_running(l) < 0) return NULL;
    if (!PyArg_ParseTuple(args, "OOOOOOO", &tm, &lock, &core, &ports, &fast_path, &trouble, &on_error)) return NULL;
    PyObject *seq = PySequence_Fast(ports, "ports: a sequence of (fd, number, port)");
    if (!seq) return NULL;
    int idx = -1;
    for (int i = 0; i < l->nslots; i++) if (!l->slots[i].active) { idx = i; break; }
    if (idx < 0) {
        slot_t *grown = PyMem_Realloc(l->slots, sizeof(slot_t) * (size_t)(l->nslots + 1));
        if (!grown) { Py_DECREF(seq); return PyErr_NoMemory(); }
        l->slots = grown;
        idx = l->nslots++;
        memset(&l->slots[idx], 0, sizeof(slot_t));
    }
    slot_t *s = &l->slots[idx];
    s->receive = PyObject_GetAttrString(tm, "receive");
    s->serve = PyObject_GetAttrString(tm, "serve");
    s->lock_acquire = PyObject_GetAttrString(lock, "acquire");
    s->lock_release = PyObject_GetAttrString(lock, "release");
    if (!s->receive || !s->serve || !s->lock_acquire || !s->lock_release) { slot_clear(s); Py_DECREF(seq); return NULL; }
    s->tm = Py_NewRef(tm); s->core = Py_NewRef(core);
    s->fast_path = fast_path == Py_None ? NULL : Py_NewRef(fast_path);
    s->port_trouble = Py_NewRef(trouble); s->on_error = Py_NewRef(on_error);
    s->program = NULL; s->server = NULL;
    s->active = 1; s->due = 1; s->has_deadline = 0;  /* served on the next round */
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    fd_entry_t *grown = PyMem_Realloc(l->fds, sizeof(fd_entry_t) * (size_t)(l->nfds + n + 1));
    if (!grown) { slot_clear(s); Py_DECREF(seq); return PyErr_NoMemory(); }
    l->fds = grown;
    for (Py_ssize_t i = 0; i < n; i++) {
        int fd, number; PyObject *port;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "iiO", &fd, &number, &port)) goto fail;
        int e = l->nfds;
        struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)e};
        if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) { PyErr_SetFromErrno(PyExc_OSError); goto fail; }
        l->fds[e] = (fd_entry_t){Py_NewRef(port), idx, number, fd};
        l->nfds++;
    }
    Py_DECREF(seq);
    return PyLong_FromLong(idx);
fail:
    slot_release(l, idx);
    Py_DECREF(seq);
    return NULL;
}

static slot_t *slot_arg(loop_t *l, PyObject *arg) {
    long i = PyLong_AsLong(arg);
    if (i == -1 && PyErr_Occurred()) return NULL;
    if (i < 0 || i >= l->nslots || !l->slots[i].active) { PyErr_Format(PyExc_ValueError, "no switch in slot %ld", i); return NULL; }
    return &l->slots[i];
}

/* remove(slot): its sockets leave the epoll set (before they are closed) */
static PyObject *loop_remove(loop_t *l, PyObject *arg) {
    if (not_running(l) < 0) return NULL;
    slot_t *s = slot_arg(l, arg);
    if (!s) return NULL;
    int idx = (int)(s - l->slots);
    slot_release(l, idx);
    Py_RETURN_NONE;
}

/* set_deadline(slot, seconds | None): when (time.monotonic()) to serve it next */
static PyObject *loop_set_deadline(loop_t *l, PyObject *const *a, Py_ssize_t n) {
    if (n != 2) { PyErr_SetString(PyExc_TypeError, "set_deadline(slot, seconds)"); return NULL; }
    slot_t *s = slot_arg(l, a[0]);
    if (!s) return NULL;
    if (a[1] == Py_None) { s->has_deadline = 0; Py_RETURN_NONE; }
    double t = PyFloat_AsDouble(a[1]);
    if (t == -1.0 && PyErr_Occurred()) return NULL;
    s->deadline_ns = (long long)ceil(t * 1e9);
    s->has_deadline = 1;
    Py_RETURN_NONE;
}

/* the switch's work failed with the pending exception: on_error(tm, exc); look again later */
static int slot_failed(slot_t *s, long long idle_ns) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb) PyException_SetTraceback(value, tb);
    PyObject *r = value ? PyObject_CallFunctionObjArgs(s->on_error, s->tm, value, NULL) : NULL;
    Py_XDECREF(type); Py_XDECREF(value); Py_XDECREF(tb);
    s->has_deadline = 1;
    s->deadline_ns = mono_ns() + idle_ns;
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

/* with the switch's lock held: its compiled server for the current program, or NULL
 * (served through Python); -1 on error */
static int slot_server(slot_t *s, srv_t **server) {
    *server = NULL;
    if (!s->fast_path) return 0;
    PyObject *program = PyObject_GetAttr(s->core, s_program);
    if (!program) return -1;
    if (program != s->program) {  /* a new program (or the first look): ask again */
        PyObject *r = PyObject_CallNoArgs(s->fast_path);
        if (!r) { Py_DECREF(program); return -1; }
        Py_CLEAR(s->server);
        if (r != Py_None) {
            if (!PyObject_TypeCheck(r, &ServerType)) {
                Py_DECREF(r); Py_DECREF(program);
                PyErr_SetString(PyExc_TypeError, "fast_path(): a Server or None"); return -1;
            }
            s->server = (srv_t *)r;
        } else Py_DECREF(r);
        Py_XSETREF(s->program, program);
    } else Py_DECREF(program);
    *server = s->server;
    return 0;
}

static int lock(slot_t *s) {
    PyObject *r = PyObject_CallNoArgs(s->lock_acquire);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

static int unlock(slot_t *s) {
    PyObject *r = PyObject_CallNoArgs(s->lock_release);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

/* one readable socket: its frames in C (compiled), else tm.receive(port) */
static int slot_receive(slot_t *s, fd_entry_t *e) {
    if (lock(s) < 0) return -1;
    srv_t *server;
    PyObject *r = NULL;
    if (slot_server(s, &server) < 0) { unlock(s); return -1; }
    if (server) {
        PyObject *number = PyLong_FromLong(e->number);
        r = number ? srv_receive_port_m(server, number) : NULL;
        Py_XDECREF(number);
        if (!r && PyErr_ExceptionMatches(PyExc_OSError)) {  /* the interface went away */
            PyObject *type, *value, *tb;
            PyErr_Fetch(&type, &value, &tb);
            PyErr_NormalizeException(&type, &value, &tb);
            r = PyObject_CallFunctionObjArgs(s->port_trouble, e->port, value, NULL);
            Py_XDECREF(type); Py_XDECREF(value); Py_XDECREF(tb);
        } else if (r && r != Py_None) {  /* runts, oversized frames: logged */
            PyObject *logged = PyObject_CallFunctionObjArgs(s->port_trouble, e->port, r, NULL);
            Py_SETREF(r, logged);
        }
    }
    PyObject *exc_type, *exc_value, *exc_tb;
    PyErr_Fetch(&exc_type, &exc_value, &exc_tb);  /* release the lock whatever happened */
    int unlocked = unlock(s);
    PyErr_Restore(exc_type, exc_value, exc_tb);
    if (unlocked < 0) { Py_XDECREF(r); return -1; }
    if (!server) r = PyObject_CallOneArg(s->receive, e->port);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

/* serve the switch's due egress: in C (compiled), else tm.serve(); sets its deadline */
static int slot_serve(slot_t *s) {
    if (lock(s) < 0) return -1;
    srv_t *server;
    PyObject *r = NULL;
    int rc = slot_server(s, &server);
    if (rc == 0 && server) r = srv_serve_m(server, NULL);
    long long start_ns = server ? server->start_ns : 0;
    PyObject *exc_type, *exc_value, *exc_tb;
    PyErr_Fetch(&exc_type, &exc_value, &exc_tb);
    int unlocked = unlock(s);
    PyErr_Restore(exc_type, exc_value, exc_tb);
    if (rc < 0 || unlocked < 0 || (server && !r)) { Py_XDECREF(r); return -1; }
    if (!server) {
        r = PyObject_CallNoArgs(s->serve);  /* time.monotonic() of the next release, or None */
        if (!r) return -1;
        if (r == Py_None) s->has_deadline = 0;
        else {
            double t = PyFloat_AsDouble(r);
            if (t == -1.0 && PyErr_Occurred()) { Py_DECREF(r); return -1; }
            s->deadline_ns = (long long)ceil(t * 1e9);
            s->has_deadline = 1;
        }
    } else if (r == Py_None) s->has_deadline = 0;
    else {  /* the queue clock: µs since the switch's start_ns, which is a monotonic_ns */
        double us = PyFloat_AsDouble(r);
        if (us == -1.0 && PyErr_Occurred()) { Py_DECREF(r); return -1; }
        s->deadline_ns = start_ns + (long long)ceil(us * 1000.0);
        s->has_deadline = 1;
    }
    Py_DECREF(r);
    return 0;
}

/* run(idle_seconds): serve until the wake-up fd is readable (not drained here) */
static PyObject *loop_serve(loop_t *l, PyObject *arg);

static PyObject *loop_run(loop_t *l, PyObject *arg) {
    if (not_running(l) < 0) return NULL;
    l->running = 1;
    PyObject *r = loop_serve(l, arg);
    l->running = 0;
    return r;
}

static PyObject *loop_serve(loop_t *l, PyObject *arg) {
    double idle = PyFloat_AsDouble(arg);
    if (idle == -1.0 && PyErr_Occurred()) return NULL;
    long long idle_ns = (long long)(idle * 1e9);
    struct epoll_event events[MAX_EVENTS];
    for (;;) {
        /* wait until the earliest deadline (0 when a switch is due), at most idle */
        long long now = mono_ns(), wait_ns = idle_ns;
        for (int i = 0; i < l->nslots; i++) {
            slot_t *s = &l->slots[i];
            if (!s->active) continue;
            if (s->due) { wait_ns = 0; break; }
            if (s->has_deadline && s->deadline_ns - now < wait_ns)
                wait_ns = s->deadline_ns > now ? s->deadline_ns - now : 0;
        }
        struct timespec ts = {wait_ns / 1000000000LL, wait_ns % 1000000000LL};
        int n;
        Py_BEGIN_ALLOW_THREADS
        n = epoll_pwait2(l->epfd, events, MAX_EVENTS, &ts, NULL);
        Py_END_ALLOW_THREADS
        if (n < 0) {
            if (errno == EINTR) { if (PyErr_CheckSignals() < 0) return NULL; continue; }
            return PyErr_SetFromErrno(PyExc_OSError);
        }
        int woken = 0;
        for (int i = 0; i < n; i++) {
            uint64_t tag = events[i].data.u64;
            if (tag == WAKE_TAG) { woken = 1; continue; }
            fd_entry_t *e = &l->fds[tag];
            if (e->slot < 0 || !l->slots[e->slot].active) continue;  /* removed */
            slot_t *s = &l->slots[e->slot];
            s->due = 1;
            if (slot_receive(s, e) < 0 && slot_failed(s, idle_ns) < 0) return NULL;
        }
        now = mono_ns();
        for (int i = 0; i < l->nslots; i++) {
            slot_t *s = &l->slots[i];
            if (!s->active || !(s->due || (s->has_deadline && s->deadline_ns <= now))) continue;
            s->due = 0;
            if (slot_serve(s) < 0 && slot_failed(s, idle_ns) < 0) return NULL;
        }
        if (woken) Py_RETURN_NONE;
    }
}

static PyMethodDef loop_methods[] = {
    {"add", (PyCFunction)loop_add, METH_VARARGS, "serve a switch: its slot"},
    {"remove", (PyCFunction)loop_remove, METH_O, "stop serving a slot"},
    {"set_deadline", (PyCFunction)(void (*)(void))loop_set_deadline, METH_FASTCALL, "next service time"},
    {"run", (PyCFunction)loop_run, METH_O, "serve until woken"},
    {NULL}
};

static PyTypeObject EventLoopType = GC_TYPE("EventLoop", loop_t, loop,
                                            "a data-plane loop's epoll, receive and serve in C");
