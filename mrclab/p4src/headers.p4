/* MRC Lab fabric program: constants, headers and metadata shared by mrc.p4.
 * The wire format is MRC-lite v1 (docs/wire-format.md); mrc_t is tested against the Scapy
 * layer endpoint/layers.py (tests/unit/endpoint/test_wire_layers.py). */

#ifndef _MRC_HEADERS_P4_
#define _MRC_HEADERS_P4_

// Switches are started with --cpu-port 255; override with -DCPU_PORT=N when they are not.
#ifndef CPU_PORT
#define CPU_PORT 255
#endif

const bit<9>  DROP_PORT       = 511;   // what mark_to_drop writes into egress_spec
const bit<16> PROBE_GROUP     = 1;     // multicast group of the ports a switch probes

const bit<16> ETHERTYPE_IPV4  = 0x0800;
const bit<16> ETHERTYPE_PROBE = 0x88B5;
const bit<8>  IPPROTO_TCP     = 6;
const bit<8>  IPPROTO_UDP     = 17;
const bit<16> MRC_UDP_PORT    = 4793;

const bit<4>  MRC_VERSION     = 1;
const bit<4>  MRC_DATA        = 0;
const bit<4>  MRC_ACK         = 1;
const bit<4>  MRC_NACK        = 2;
const bit<4>  MRC_PROBE       = 3;
const bit<4>  MRC_PROBE_REPLY = 4;
const bit<8>  MRC_FLAG_TRIMMED = 0x01;

const bit<2>  ECN_ECT1        = 1;
const bit<2>  ECN_ECT0        = 2;
const bit<2>  ECN_CE          = 3;

const bit<8>  SPRAY_ECMP      = 0;
const bit<8>  SPRAY_EV        = 1;
const bit<8>  SPRAY_RANDOM    = 2;
const bit<8>  SPRAY_SOURCE    = 3;

// Indexes of MrcIngress.drops.
const bit<32> DROP_MRC_TRUNCATED  = 0;
const bit<32> DROP_MRC_VERSION    = 1;
const bit<32> DROP_UNKNOWN_LABEL  = 2;
const bit<32> DROP_NO_ROUTE       = 3;
const bit<32> DROP_TTL_EXPIRED    = 4;
const bit<32> DROP_NOT_ROUTABLE   = 5;

// Strict priority: BMv2 serves the highest priority value first; switches run with
// --priority-queues 2, so 1 is the highest usable value.
const bit<3>  PRIO_DATA       = 0;
const bit<3>  PRIO_HIGH       = 1;

// A trimmed packet keeps Ethernet (14) + IPv4 without options (20) + UDP (8) + MRC (40).
const bit<32> TRIM_BYTES       = 82;
const bit<16> TRIMMED_IPV4_LEN = 68;
const bit<16> TRIMMED_UDP_LEN  = 48;

// probe_group 1: replicate the frame to multicast group PROBE_GROUP (the ports this switch
// probes, kept by the controller) instead of sending it out of egress_port.
@controller_header("packet_out")
header packet_out_t {
    bit<9> egress_port;
    bit<1> probe_group;
    bit<6> _pad;
}

@controller_header("packet_in")
header packet_in_t {
    bit<9> ingress_port;
    bit<7> _pad;
}

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<6>  dscp;
    bit<2>  ecn;
    bit<16> totalLen;
    bit<16> identification;
    bit<3>  flags;
    bit<13> fragOffset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

// Only the ports matter to the fabric (ECMP hashing); the rest of TCP stays payload.
header tcp_ports_t {
    bit<16> srcPort;
    bit<16> dstPort;
}

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> length;
    bit<16> checksum;
}

// 40 bytes; `type` is a P4 keyword, hence msg_type.
header mrc_t {
    bit<4>  version;
    bit<4>  msg_type;
    bit<8>  flags;
    bit<16> ev;
    bit<32> conn;
    bit<32> psn;
    bit<32> ack;
    bit<32> offset;
    bit<16> length;
    bit<16> qmax;
    bit<32> ts;
    bit<64> route;
    bit<32> reserved;
}

// Link probe (EtherType 0x88B5); the controller defines the contents.
header probe_t {
    bit<32> switch_id;
    bit<32> port;
    bit<32> seq;
    bit<32> ts;
}

struct headers_t {
    packet_out_t cpu_out;
    packet_in_t  cpu_in;
    ethernet_t   ethernet;
    ipv4_t       ipv4;
    tcp_ports_t  tcp;
    udp_t        udp;
    mrc_t        mrc;
    probe_t      probe;
}

struct metadata_t {
    bit<8>  spray_mode;
    bit<32> hash_salt;        // per-switch, mixed into path_hash (see MrcIngress)
    bit<32> path_hash;        // the uplink selector's input
    bit<8>  label;            // source-route label of this hop
    bit<16> l4_src;           // 0 when the packet has no TCP/UDP header
    bit<16> l4_dst;
    bit<1>  has_thresholds;   // port_thresholds hit for the egress port
    bit<19> trim_threshold;
    bit<19> ecn_threshold;
    bit<19> depth_est;        // queue_depth_est of the egress port, read in ingress
    bit<1>  trimmed;          // trimmed by this switch
    bit<1>  in_data_queue;    // counted into queue_depth_est on admission
}

#endif  // _MRC_HEADERS_P4_
