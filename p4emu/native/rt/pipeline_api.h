/* The C entry points of a compiled pipeline, for a compiled traffic manager in another
 * module: the pipeline module's `c_api` capsule (module.h) holds a p4n_api_t, and the
 * traffic manager's Server (tm_server.c) takes it from the module of the `ingress` it is
 * given. They do the work of the Python entry points ingress and egress, without the
 * objects a Python call needs per packet (argument ints, result lists and tuples).
 * Included as text by both modules (p4emu/native/cgen.py, tm_build.py): one definition. */

#define P4N_API_CAPSULE "p4emu_native.c_api"
#define P4N_API_VERSION 1

typedef struct {
    int version;
    PyTypeObject *state_type;   /* the `state` both functions take */
    PyTypeObject *job_type;     /* what ingress makes and egress takes */
    /* ingress of `frame` (bytes) received on `port`: a new reference to one job, to a
     * list of jobs (a multicast packet's copies) or to None (dropped); NULL with an
     * exception set */
    PyObject *(*ingress)(PyObject *state, PyObject *port, PyObject *frame,
                         unsigned long long now_us);
    /* a job's egress port and standard_metadata.priority */
    void (*route)(PyObject *job, long long *port, long long *priority);
    /* egress of `job`: a new reference to the frame to send (bytes; its port in *port)
     * or to None (dropped); NULL with an exception set */
    PyObject *(*egress)(PyObject *state, PyObject *job, unsigned long long enq_ts,
                        unsigned long long enq_qdepth, unsigned long long deq_td,
                        unsigned long long deq_qdepth, unsigned long long now_us,
                        long long *port);
} p4n_api_t;
