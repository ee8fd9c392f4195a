/* A lab switch's port sockets in C (joined after tm.c, before tm_serve.c): what
 * p4emu/switch/ports.py's PortSet.receive and send do per frame, without a Python frame
 * or object per packet but the frame's bytes. Receive takes up to RX_BATCH frames per
 * readable socket in one recvmmsg(2); send is one send(2). Each port's counters are its
 * PortStats' array('Q'), shared with Python (the runtime control's port_stats reads them).
 * A port without a bound socket (the simulator's, the CPU port) keeps the Python send. */
#include <errno.h>
#include <sys/socket.h>
#include <linux/if_packet.h>

#define MAXPORT 512           /* 9-bit port numbers */
#define RX_BATCH 64           /* PortSet.receive's frames per readable socket */
#define MIN_FRAME 14          /* ports.MIN_FRAME, ports.MAX_FRAME */
#define MAX_FRAME 9216
enum { RX_PACKETS, RX_BYTES, TX_PACKETS, TX_BYTES, RX_DROPPED, TX_ERRORS, N_COUNTERS };

typedef struct {
    int fd[MAXPORT];                   /* -1: not bound */
    Py_buffer view[MAXPORT];           /* the port's PortStats counters */
} port_io_t;

static port_io_t *io_new(void) {
    port_io_t *io = PyMem_Calloc(1, sizeof(port_io_t));
    if (!io) { PyErr_NoMemory(); return NULL; }
    for (int i = 0; i < MAXPORT; i++) io->fd[i] = -1;
    return io;
}

static void io_free(port_io_t *io) {
    if (!io) return;
    for (int i = 0; i < MAXPORT; i++)
        if (io->fd[i] >= 0) PyBuffer_Release(&io->view[i]);
    PyMem_Free(io);
}

static unsigned long long *io_counters(port_io_t *io, int port) {
    return (unsigned long long *)io->view[port].buf;
}

/* bind(port, fd, counters): frames of `port` go out on `fd` from now on */
static int io_bind(port_io_t *io, long port, int fd, PyObject *counters) {
    if (port < 0 || port >= MAXPORT) { PyErr_Format(PyExc_ValueError, "port %ld: 0..511", port); return -1; }
    Py_buffer view;
    if (PyObject_GetBuffer(counters, &view, PyBUF_WRITABLE | PyBUF_FORMAT) < 0) return -1;
    if (view.len != N_COUNTERS * 8 || !view.format || strcmp(view.format, "Q") != 0) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "counters: array('Q') of the PortStats fields");
        return -1;
    }
    if (io->fd[port] >= 0) PyBuffer_Release(&io->view[port]);
    io->fd[port] = fd;
    io->view[port] = view;
    return 0;
}

/* send one frame on a bound port (1), or 0 when `port` is not bound: the caller sends
 * it the Python way. A failed send (link down, full buffer) loses the frame, counted. */
static int io_send(port_io_t *io, long long port, PyObject *frame) {
    if (!io || !PyBytes_Check(frame) || port < 0 || port >= MAXPORT) return 0;
    int n = (int)port, fd = io->fd[n];
    if (fd < 0) return 0;
    unsigned long long *c = io_counters(io, (int)n);
    Py_ssize_t len = PyBytes_GET_SIZE(frame);
    if (send(fd, PyBytes_AS_STRING(frame), (size_t)len, MSG_DONTWAIT) < 0) {
        c[TX_ERRORS]++;
        return 1;
    }
    c[TX_PACKETS]++;
    c[TX_BYTES] += (unsigned long long)len;
    return 1;
}

/* receive buffers: one set for the module, used with the GIL held (never released
 * here: a non-blocking receive is short, and two loops may share the module) */
static char rx_buf[RX_BATCH][MAX_FRAME];
static struct mmsghdr rx_msgs[RX_BATCH];
static struct iovec rx_iov[RX_BATCH];
static struct sockaddr_ll rx_addr[RX_BATCH];

/* up to RX_BATCH frames waiting on port's socket, without our own transmissions;
 * n >= 0 frames read (*got), -1 with errno on a failed receive. Each frame's length is
 * its true one (MSG_TRUNC): a frame longer than MAX_FRAME is reported, not cut. */
static int io_read(int fd, int *got) {
    for (int i = 0; i < RX_BATCH; i++) {
        rx_iov[i] = (struct iovec){rx_buf[i], MAX_FRAME};
        rx_msgs[i].msg_hdr = (struct msghdr){.msg_name = &rx_addr[i], .msg_namelen = sizeof(rx_addr[i]),
                                             .msg_iov = &rx_iov[i], .msg_iovlen = 1};
        rx_msgs[i].msg_len = 0;
        rx_addr[i].sll_pkttype = PACKET_HOST;  /* sockets without one (AF_UNIX) leave it */
    }
    int n = recvmmsg(fd, rx_msgs, RX_BATCH, MSG_DONTWAIT | MSG_TRUNC, NULL);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { *got = 0; return 0; }
        return -1;
    }
    *got = n;
    return 0;
}
