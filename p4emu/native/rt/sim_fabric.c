/* The fabric inside a SimLoop (joined after sim_loop.c): wires as mrclab.sim.links.Wire
 * (serialisation, propagation, random loss, up or failed, counters) and switches as
 * mrclab.sim.switch.SimSwitch with a compiled pipeline and traffic manager (a frame's
 * hop: the server's ingress and serve pass as of the loop's clock; the serve timer as
 * its DeadlineTimer). Each function names the Python it does the work of; the two must
 * stay in step, which tests/unit/sim/test_native_fabric.py checks on every experiment. */

static wire_t *wire_at(sim_t *L, PyObject *index, int *i) {
    long n = PyLong_AsLong(index);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 0 || n >= L->nwires) { PyErr_Format(PyExc_IndexError, "wire %ld", n); return NULL; }
    *i = (int)n;
    return &L->wires[n];
}

static fsw_t *switch_at(sim_t *L, PyObject *index) {
    long n = PyLong_AsLong(index);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 0 || n >= L->nswitches) { PyErr_Format(PyExc_IndexError, "switch %ld", n); return NULL; }
    return L->switches[n];
}

/* Wire.send(frame, depart) */
static int wire_send(sim_t *L, int i, PyObject *frame, double depart) {
    wire_t *w = &L->wires[i];
    if (!w->up) { w->failed_dropped++; return 0; }
    if (w->loss != 0.0) {  /* `self.loss and self.rng.random() < self.loss` */
        PyObject *r = PyObject_CallNoArgs(w->rng_random);
        L->python_ran = 1;
        if (!r) return -1;
        int err;
        double draw = as_double(r, &err);
        Py_DECREF(r);
        if (err) return -1;
        w = &L->wires[i];
        if (draw < w->loss) { w->random_lost++; return 0; }
    }
    Py_ssize_t len = PyBytes_CheckExact(frame) ? PyBytes_GET_SIZE(frame) : PyObject_Length(frame);
    if (len < 0) return -1;
    w->frames++;
    w->bytes += (unsigned long long)len;
    double arrive = depart + (double)len * w->bit_time + w->delay;
    return sim_push(L, arrive, EV_ARRIVE, i, frame, NULL);
}

/* the switch's transmit (SimPorts.send, then SimNetwork's transmit): the out_t hook the
 * server's serve pass calls for every frame but the CPU port's */
static int switch_send(void *ctx, long long port, PyObject *frame, double start_us) {
    fsw_t *sw = ctx;
    sim_t *L = sw->sim;
    double depart = sw->epoch + start_us / 1e6;
    int wire = port >= 0 && port < MAXPORT ? sw->wire_of_port[port] : -1;
    if (wire < 0) return 0;  /* an unconnected port loses the frame, as BMv2 */
    double now = L->now;
    return wire_send(L, wire, frame, now > depart ? now : depart);
}

/* SimSwitch._arm(ready_us): come back at the first whole ns at which the queue clock
 * has reached `ready_us`, through the switch's serve timer as DeadlineTimer.arm sets it */
static int switch_arm_at(fsw_t *sw, int index, double r) {
    double up = ceil(r * 1000);
    if (!isfinite(up) || fabs(up) > 9007199254740992.0) {
        PyErr_SetString(PyExc_OverflowError, "queue ready time out of range"); return -1;
    }
    long long ns = (long long)up;
    while ((double)ns / 1000 < r) ns++;
    sim_t *L = sw->sim;
    double now = L->now, deadline = sw->epoch + (double)ns / 1e9;
    if (!sw->timer_set || deadline < sw->timer_at || sw->timer_at <= now) {
        sw->timer_at = now > deadline ? now : deadline;
        sw->timer_set = 1;
        return sim_push(L, sw->timer_at, EV_TIMER, index, NULL, NULL);
    }
    return 0;
}

/* SimSwitch._arm(ready_us) with the ready time as Python has it (None: the queues are
 * empty) */
static int switch_arm(fsw_t *sw, int index, PyObject *ready) {
    if (ready == Py_None) return 0;
    int err;
    double r = as_double(ready, &err);
    if (err) return -1;
    return switch_arm_at(sw, index, r);
}

/* SwitchCore.clocks() on the loop's clock (SimSwitch's clock_ns: round(now * 1e9), ties
 * to even as Python's round): the queue clock in us and the P4-visible whole us */
static int switch_clocks(fsw_t *sw, double *queue_now, long long *us) {
    double x = sw->sim->now * 1e9;
    if (!isfinite(x) || fabs(x) > 9.0e18) {
        PyErr_SetString(PyExc_OverflowError, "clock out of range"); return -1;
    }
    long long ns = (long long)nearbyint(x) - sw->start_ns;
    if (ns > (1LL << 53) || ns < -(1LL << 53)) {
        PyErr_SetString(PyExc_OverflowError, "clock beyond 2**53 ns"); return -1;
    }
    long long whole = ns / 1000;
    if (ns % 1000 < 0) whole--;
    *queue_now = (double)ns / 1000.0;
    *us = whole;
    return 0;
}

/* a serve pass of switch `index` as of `now` (queue clock) and `us`, then _arm */
static int switch_serve(sim_t *L, int index, double now, long long us) {
    fsw_t *sw = L->switches[index];
    srv_t *s = (srv_t *)Py_NewRef(sw->server);
    double ready;
    int found = serve_due(s->queues, &s->ports, now, us, &s->out, &ready);
    Py_DECREF(s);
    if (found < 0) return -1;
    return found ? switch_arm_at(sw, index, ready) : 0;
}

/* a frame at `port` of switch `index`: SimSwitch.receive (the server's hop, then _arm).
 * Takes the reference to `frame` (the event's), and lets it go once ingress has run:
 * then a job holds the only one, and egress may write the frame's headers in place. */
static int switch_hop(sim_t *L, int index, PyObject *port, PyObject *frame) {
    fsw_t *sw = L->switches[index];
    double now; long long us;
    if (switch_clocks(sw, &now, &us) < 0) { Py_DECREF(frame); return -1; }
    srv_t *s = (srv_t *)Py_NewRef(sw->server);
    int r = srv_receive(s, port, frame, now, us);
    Py_DECREF(s);
    Py_DECREF(frame);
    return r < 0 ? -1 : switch_serve(L, index, now, us);
}

/* the serve timer of switch `index` came due for `when`: DeadlineTimer._due, then
 * SimSwitch._serve (a serve pass, then _arm) */
static int switch_due(sim_t *L, int index, double when) {
    fsw_t *sw = L->switches[index];
    if (!sw->timer_set || sw->timer_at != when) return 0;  /* superseded */
    sw->timer_set = 0;
    double now; long long us;
    if (switch_clocks(sw, &now, &us) < 0) return -1;
    return switch_serve(L, index, now, us);
}

/* Wire._arrive(frame); takes the reference to `frame` (the event's) */
static int wire_arrive(sim_t *L, int i, PyObject *frame) {
    wire_t *w = &L->wires[i];
    if (!w->up) { w->failed_dropped++; Py_DECREF(frame); return 0; }
    if (w->to_switch >= 0) {
        tm_python_called = 0;
        int r = switch_hop(L, w->to_switch, w->port, frame);
        if (tm_python_called) L->python_ran = 1;
        return r;
    }
    L->python_ran = 1;
    PyObject *receive = Py_NewRef(w->receive), *port = Py_NewRef(w->port);
    PyObject *args[2] = {port, frame};
    PyObject *r = PyObject_Vectorcall(receive, args, 2, NULL);
    Py_DECREF(receive); Py_DECREF(port); Py_DECREF(frame);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

/* ---- set-up and observation, from Python (mrclab.sim.fabric_core) ------------------ */

/* add_wire(bit_time, delay, loss, rng, port, far) -> index; far: the index of a switch
 * added before, or a callable receive(port, frame) */
static PyObject *sim_add_wire_m(sim_t *L, PyObject *const *a, Py_ssize_t n) {
    if (n != 6) { PyErr_SetString(PyExc_TypeError, "add_wire(bit_time, delay, loss, rng, port, far)"); return NULL; }
    int err1, err2, err3;
    double bit_time = as_double(a[0], &err1), delay = as_double(a[1], &err2),
           loss = as_double(a[2], &err3);
    if (err1 || err2 || err3) return NULL;
    if (!PyLong_Check(a[4])) { PyErr_SetString(PyExc_TypeError, "port: an int"); return NULL; }
    int to_switch = -1;
    if (PyLong_Check(a[5])) {
        long s = PyLong_AsLong(a[5]);
        if (s == -1 && PyErr_Occurred()) return NULL;
        if (s < 0 || s >= L->nswitches) { PyErr_Format(PyExc_IndexError, "switch %ld", s); return NULL; }
        to_switch = (int)s;
    } else if (!PyCallable_Check(a[5])) {
        PyErr_SetString(PyExc_TypeError, "far: a switch index or receive(port, frame)"); return NULL;
    }
    PyObject *rng_random = PyObject_GetAttrString(a[3], "random");
    if (!rng_random) return NULL;
    wire_t *wires = grow_items(L->wires, L->nwires, &L->capw, sizeof *wires, 64, INT_MAX);
    if (!wires) { Py_DECREF(rng_random); return NULL; }
    L->wires = wires;
    L->wires[L->nwires] = (wire_t){bit_time, delay, loss, rng_random,
                                   to_switch < 0 ? Py_NewRef(a[5]) : NULL, Py_NewRef(a[4]),
                                   1, to_switch, 0, 0, 0, 0};
    return PyLong_FromSsize_t(L->nwires++);
}

/* wire_send(index, frame, depart): Wire.send */
static PyObject *sim_wire_send_m(sim_t *L, PyObject *const *a, Py_ssize_t n) {
    int i, err;
    if (n != 3) { PyErr_SetString(PyExc_TypeError, "wire_send(index, frame, depart)"); return NULL; }
    if (!wire_at(L, a[0], &i)) return NULL;
    double depart = as_double(a[2], &err);
    if (err || wire_send(L, i, a[1], depart) < 0) return NULL;
    Py_RETURN_NONE;
}

/* set_wire_up(index, up): Wire.state = UP, or failed (gray or admin alike here) */
static PyObject *sim_set_wire_up_m(sim_t *L, PyObject *const *a, Py_ssize_t n) {
    int i;
    if (n != 2) { PyErr_SetString(PyExc_TypeError, "set_wire_up(index, up)"); return NULL; }
    wire_t *w = wire_at(L, a[0], &i);
    int up = w ? PyObject_IsTrue(a[1]) : -1;
    if (up < 0) return NULL;
    w->up = up;
    Py_RETURN_NONE;
}

/* wire_counters(index) -> (frames, bytes, failed_dropped, random_lost) */
static PyObject *sim_wire_counters_m(sim_t *L, PyObject *index) {
    int i;
    wire_t *w = wire_at(L, index, &i);
    if (!w) return NULL;
    return Py_BuildValue("(KKKK)", w->frames, w->bytes, w->failed_dropped, w->random_lost);
}

/* packet_hops(): frames carried by every wire so far */
static PyObject *sim_packet_hops_m(sim_t *L, PyObject *unused) {
    unsigned long long total = 0;
    for (Py_ssize_t i = 0; i < L->nwires; i++) total += L->wires[i].frames;
    return PyLong_FromUnsignedLongLong(total);
}

/* add_switch(server, epoch, start_ns) -> index: a switch whose traffic manager's
 * compiled server this loop drives; its frames to ports with a wire go to the wire */
static PyObject *sim_add_switch_m(sim_t *L, PyObject *const *a, Py_ssize_t n) {
    if (n != 3 || !PyObject_TypeCheck(a[0], &ServerType)) {
        PyErr_SetString(PyExc_TypeError, "add_switch(server: Server, epoch, start_ns)"); return NULL;
    }
    srv_t *s = (srv_t *)a[0];
    if (s->ingress == Py_None || s->out.cstate == Py_None || s->out.send == Py_None) {
        PyErr_SetString(PyExc_ValueError, "add_switch: the server of a compiled pipeline, with a send");
        return NULL;
    }
    if (s->out.native_send) { PyErr_SetString(PyExc_ValueError, "add_switch: server already in a loop"); return NULL; }
    int err;
    double epoch = as_double(a[1], &err);
    long long start_ns = err ? -1 : PyLong_AsLongLong(a[2]);
    if (err || (start_ns == -1 && PyErr_Occurred())) return NULL;
    fsw_t **sws = grow_items(L->switches, L->nswitches, &L->caps, sizeof *sws, 16, INT_MAX);
    if (!sws) return NULL;
    L->switches = sws;
    fsw_t *sw = PyMem_Calloc(1, sizeof(fsw_t));
    if (!sw) return PyErr_NoMemory();
    sw->sim = L; sw->server = (srv_t *)Py_NewRef(s); sw->epoch = epoch; sw->start_ns = start_ns;
    for (int p = 0; p < MAXPORT; p++) sw->wire_of_port[p] = -1;
    s->out.native_send = switch_send; s->out.native_ctx = sw;
    L->switches[L->nswitches] = sw;
    return PyLong_FromSsize_t(L->nswitches++);
}

/* connect(switch, port, wire): the switch's frames to `port` go on `wire` */
static PyObject *sim_connect_m(sim_t *L, PyObject *const *a, Py_ssize_t n) {
    int wire;
    if (n != 3) { PyErr_SetString(PyExc_TypeError, "connect(switch, port, wire)"); return NULL; }
    fsw_t *sw = switch_at(L, a[0]);
    long port = sw ? PyLong_AsLong(a[1]) : -1;
    if (!sw || (port == -1 && PyErr_Occurred()) || !wire_at(L, a[2], &wire)) return NULL;
    if (port < 0 || port >= MAXPORT) { PyErr_Format(PyExc_ValueError, "port %ld: 0..511", port); return NULL; }
    sw->wire_of_port[port] = wire;
    Py_RETURN_NONE;
}

/* switch_arm(switch, ready_us): SimSwitch._arm, after a serve the switch ran from Python
 * (a PacketOut) */
static PyObject *sim_switch_arm_m(sim_t *L, PyObject *const *a, Py_ssize_t n) {
    if (n != 2) { PyErr_SetString(PyExc_TypeError, "switch_arm(switch, ready_us)"); return NULL; }
    fsw_t *sw = switch_at(L, a[0]);
    if (!sw || switch_arm(sw, (int)PyLong_AsLong(a[0]), a[1]) < 0) return NULL;
    Py_RETURN_NONE;
}

/* sim_nic.c follows: host NICs */
