/* MRC Lab fabric switch program (P4_16, v1model; p4c-bm2-ss or p4emu).
 *
 * Control-plane API (P4Info names):
 *   MrcIngress.downlink       key hdr.ipv4.dstAddr lpm; actions MrcIngress.forward(bit<9> port),
 *                             MrcIngress.drop(); default drop (modifiable)
 *   MrcIngress.uplink         key hdr.ipv4.dstAddr lpm + meta.path_hash selector; action forward;
 *                             implementation MrcIngress.uplink_selector
 *                             (action_selector crc16, 1024 members, 16-bit output); used when
 *                             downlink misses; groups carry watch_port = member port
 *   MrcIngress.spray_config   keyless; MrcIngress.set_spray_mode(bit<8> mode, bit<32> salt),
 *                             mode 0 ecmp, 1 ev, 2 random, 3 source; salt: per-switch hash
 *                             salt (0 = unsalted), mixed into path_hash in ecmp and ev modes;
 *                             default set_spray_mode(0, 0) (modify the default)
 *   MrcIngress.source_label   key meta.label exact (bit<8>); forward / drop; default drop
 *   MrcIngress.port_thresholds key standard_metadata.egress_spec exact;
 *                             MrcIngress.set_thresholds(bit<19> trim_threshold,
 *                             bit<19> ecn_threshold); a miss disables trimming and ECN there
 *   queue_depth_est           register bit<19>[512] (top level), index = port: estimated depth
 *                             of the port's data (priority 0) queue
 *   MrcIngress.drops          counter packets[8]: 0 MRC header truncated, 1 wrong MRC version,
 *                             2 unknown source-route label, 3 no route, 4 TTL expired,
 *                             5 not routable (not IPv4 nor a probe; short packet_out)
 *   MrcEgress.tx_packets      counter packets_and_bytes[512] per egress port
 *   MrcEgress.trimmed         counter packets[512]: packets this switch trimmed, per egress port
 *   MrcEgress.ecn_marked      counter packets[512]: packets this switch marked CE
 *   packet_out {egress_port:9, probe_group:1, _pad:6}: probe_group 1 replicates to multicast
 *                             group PROBE_GROUP (1), the ports the controller probes from
 *                             this switch; packet_in {ingress_port:9, _pad:7}; CPU port CPU_PORT.
 */

#include <core.p4>
#include <v1model.p4>

#include "headers.p4"

/* Occupancy of each port's data queue, for the trim decision in ingress: BMv2 shows queue
 * depth only in egress and truncate() frees no queue space, so ingress must decide from a
 * count of its own. Ingress adds 1 for each packet it admits to the data queue and egress
 * takes 1 off when such a packet leaves, so a burst is trimmed as it builds rather than one
 * service interval late. The count does not depend on what deq_qdepth counts: BMv2 before
 * 1.15.1 counts every priority queue of the port, later releases only the packet's own
 * (behavioral-model #1270). Declared at top level so both controls can use it. */
register<bit<19>>(512) queue_depth_est;

parser MrcParser(packet_in packet,
                 out headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    state start {
        transition select(standard_metadata.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_ethernet;
        }
    }

    // Everything after packet_out stays payload, so the frame leaves exactly as sent.
    state parse_packet_out {
        packet.extract(hdr.cpu_out);
        transition accept;
    }

    state parse_ethernet {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_PROBE: parse_probe;
            default: accept;
        }
    }

    // L4 only without IPv4 options (fixed offsets, and trimming cuts at a fixed length) and
    // only in first fragments (later ones carry no L4 header).
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition select(hdr.ipv4.ihl, hdr.ipv4.fragOffset, hdr.ipv4.protocol) {
            (4w5, 13w0, IPPROTO_UDP): parse_udp;
            (4w5, 13w0, IPPROTO_TCP): parse_tcp;
            default: accept;
        }
    }

    state parse_tcp {
        packet.extract(hdr.tcp);
        transition accept;
    }

    // MRC uses 4793 as destination port in both directions; a source port of 4793 is
    // accepted too so that replies from a fixed port are recognised.
    state parse_udp {
        packet.extract(hdr.udp);
        transition select(hdr.udp.dstPort, hdr.udp.srcPort) {
            (MRC_UDP_PORT, _): parse_mrc;
            (_, MRC_UDP_PORT): parse_mrc;
            default: accept;
        }
    }

    // Fewer than 40 bytes left: PacketTooShort, hdr.mrc stays invalid; ingress drops it.
    state parse_mrc {
        packet.extract(hdr.mrc);
        transition accept;
    }

    state parse_probe {
        packet.extract(hdr.probe);
        transition accept;
    }
}

control MrcVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control MrcIngress(inout headers_t hdr,
                   inout metadata_t meta,
                   inout standard_metadata_t standard_metadata) {

    counter(8, CounterType.packets) drops;
    action_selector(HashAlgorithm.crc16, 32w1024, 32w16) uplink_selector;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    action forward(bit<9> port) {
        standard_metadata.egress_spec = port;
    }

    action set_spray_mode(bit<8> mode, bit<32> salt) {
        meta.spray_mode = mode;
        meta.hash_salt = salt;
    }

    action set_thresholds(bit<19> trim_threshold, bit<19> ecn_threshold) {
        meta.has_thresholds = 1;
        meta.trim_threshold = trim_threshold;
        meta.ecn_threshold = ecn_threshold;
    }

    // Read and increment in one action: BMv2 locks a register for the whole action, so the
    // egress decrement cannot interleave.
    action admit_to_data_queue() {
        queue_depth_est.read(meta.depth_est, (bit<32>)standard_metadata.egress_spec);
        queue_depth_est.write((bit<32>)standard_metadata.egress_spec, meta.depth_est + 1);
        meta.in_data_queue = 1;
        standard_metadata.priority = PRIO_DATA;
    }

    // The IPv4 header checksum is recomputed in MrcComputeChecksum (meta.trimmed); a UDP
    // checksum over a cut payload cannot be fixed, so it becomes 0 ("none").
    // EXERCISE trim BEGIN
    action trim() {
        truncate(TRIM_BYTES);
        hdr.mrc.flags = hdr.mrc.flags | MRC_FLAG_TRIMMED;
        hdr.ipv4.totalLen = TRIMMED_IPV4_LEN;
        hdr.udp.length = TRIMMED_UDP_LEN;
        hdr.udp.checksum = 0;
        standard_metadata.priority = PRIO_HIGH;
        meta.trimmed = 1;
    }
    // EXERCISE trim END

    table spray_config {
        actions = { set_spray_mode; }
        default_action = set_spray_mode(SPRAY_ECMP, 0);
    }

    table downlink {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { forward; drop; }
        default_action = drop();
        size = 4096;
    }

    table uplink {
        key = {
            hdr.ipv4.dstAddr: lpm;
            meta.path_hash: selector;
        }
        actions = { forward; @defaultonly NoAction; }
        implementation = uplink_selector;
        size = 1024;
    }

    table source_label {
        key = { meta.label: exact; }
        actions = { forward; drop; }
        default_action = drop();
        size = 256;
    }

    table port_thresholds {
        key = { standard_metadata.egress_spec: exact; }
        actions = { set_thresholds; @defaultonly NoAction; }
        default_action = NoAction();
        size = 512;
    }

    apply {
        // Nothing leaves unless a rule below forwards it.
        mark_to_drop(standard_metadata);

        if (hdr.cpu_out.isValid()) {
            // Controller frames (link probes) skip routing; high priority keeps probes
            // flowing through congestion, so a loaded link is not declared dead. One frame
            // to the probe group probes every link of this switch (one PacketOut a round).
            if (hdr.cpu_out.probe_group == 1) {
                standard_metadata.mcast_grp = PROBE_GROUP;
            } else {
                standard_metadata.egress_spec = hdr.cpu_out.egress_port;
            }
            standard_metadata.priority = PRIO_HIGH;
            hdr.cpu_out.setInvalid();
        } else if (standard_metadata.ingress_port == CPU_PORT) {
            drops.count(DROP_NOT_ROUTABLE);
        } else if (hdr.ethernet.isValid() && hdr.ethernet.etherType == ETHERTYPE_PROBE) {
            standard_metadata.egress_spec = CPU_PORT;
            standard_metadata.priority = PRIO_HIGH;
            hdr.cpu_in.setValid();
            hdr.cpu_in.ingress_port = standard_metadata.ingress_port;
            hdr.cpu_in._pad = 0;
        } else if (!hdr.ipv4.isValid()) {
            drops.count(DROP_NOT_ROUTABLE);
        } else if (hdr.udp.isValid() && !hdr.mrc.isValid()
                   && standard_metadata.parser_error == error.PacketTooShort
                   && (hdr.udp.dstPort == MRC_UDP_PORT || hdr.udp.srcPort == MRC_UDP_PORT)) {
            drops.count(DROP_MRC_TRUNCATED);
        } else if (hdr.mrc.isValid() && hdr.mrc.version != MRC_VERSION) {
            drops.count(DROP_MRC_VERSION);
        } else if (hdr.ipv4.ttl <= 1) {
            drops.count(DROP_TTL_EXPIRED);
        } else {
            if (hdr.udp.isValid()) {
                meta.l4_src = hdr.udp.srcPort;
                meta.l4_dst = hdr.udp.dstPort;
            } else if (hdr.tcp.isValid()) {
                meta.l4_src = hdr.tcp.srcPort;
                meta.l4_dst = hdr.tcp.dstPort;
            }

            spray_config.apply();
            // Unknown modes behave as ecmp; ev and source (when it falls back) need the MRC
            // ev, so non-MRC traffic hashes as ecmp in those modes.
            // EXERCISE spray BEGIN
            if (meta.spray_mode == SPRAY_RANDOM) {
                random(meta.path_hash, 32w0, 32w0xFFFFFFFF);
            } else if ((meta.spray_mode == SPRAY_EV || meta.spray_mode == SPRAY_SOURCE)
                       && hdr.mrc.isValid()) {
                hash(meta.path_hash, HashAlgorithm.crc32, 32w0,
                     { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol,
                       meta.l4_src, meta.l4_dst, hdr.mrc.ev },
                     64w4294967296);
            } else {
                hash(meta.path_hash, HashAlgorithm.crc32, 32w0,
                     { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol,
                       meta.l4_src, meta.l4_dst },
                     64w4294967296);
            }
            // EXERCISE spray END

            // Hash polarization: every switch hashes the same fields with the same function,
            // so a flow that takes member i at the edge would take member i at the next tier
            // too. The salt cannot simply be one more CRC field: CRC is linear over GF(2),
            // so a salt there only XORs a constant into the selector's crc16, and with a
            // power-of-two group (member = h % n) that flips every flow's choice alike; the
            // tiers stay correlated. The murmur3 finalizer of (hash ^ salt) is non-linear
            // (the multiplies carry), so switches with different salts split the same flows
            // independently. Salt 0 keeps the plain CRC-32 (tests, an unconfigured switch).
            if (meta.spray_mode != SPRAY_RANDOM && meta.hash_salt != 0) {
                bit<32> mix = meta.path_hash ^ meta.hash_salt;
                mix = mix ^ (mix >> 16);
                mix = mix * 32w0x85EBCA6B;
                mix = mix ^ (mix >> 13);
                mix = mix * 32w0xC2B2AE35;
                meta.path_hash = mix ^ (mix >> 16);
            }

            // EXERCISE source BEGIN
            if (meta.spray_mode == SPRAY_SOURCE && hdr.mrc.isValid() && hdr.mrc.route != 0) {
                bit<64> old_route = hdr.mrc.route;
                meta.label = old_route[63:56];
                hdr.mrc.route = old_route << 8;
                // RFC 1624 incremental update over the four changed 16-bit words; 0 means
                // "no checksum" and stays 0.
                if (hdr.udp.checksum != 0) {
                    bit<64> new_route = hdr.mrc.route;
                    bit<32> sum = (bit<32>)(~hdr.udp.checksum)
                        + (bit<32>)(~old_route[63:48]) + (bit<32>)(~old_route[47:32])
                        + (bit<32>)(~old_route[31:16]) + (bit<32>)(~old_route[15:0])
                        + (bit<32>)new_route[63:48] + (bit<32>)new_route[47:32]
                        + (bit<32>)new_route[31:16] + (bit<32>)new_route[15:0];
                    sum = (sum & 0xFFFF) + (sum >> 16);
                    sum = (sum & 0xFFFF) + (sum >> 16);
                    bit<16> udp_csum = ~sum[15:0];
                    // A computed 0 is sent as 0xFFFF (0 would mean "none").
                    if (udp_csum == 0) {
                        udp_csum = 0xFFFF;
                    }
                    hdr.udp.checksum = udp_csum;
                }
                if (!source_label.apply().hit) {
                    drops.count(DROP_UNKNOWN_LABEL);
                }
            } else {
                if (!downlink.apply().hit) {
                    uplink.apply();
                }
                // Also counts explicit drop routes and groups with no live member.
                if (standard_metadata.egress_spec == DROP_PORT) {
                    drops.count(DROP_NO_ROUTE);
                }
            }
            // EXERCISE source END

            if (standard_metadata.egress_spec != DROP_PORT) {
                // RFC 1624 incremental update keeps the checksum right with IPv4 options too.
                bit<16> old_word = hdr.ipv4.ttl ++ hdr.ipv4.protocol;
                hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
                bit<16> new_word = hdr.ipv4.ttl ++ hdr.ipv4.protocol;
                bit<32> ip_sum = (bit<32>)(~hdr.ipv4.hdrChecksum) + (bit<32>)(~old_word)
                                 + (bit<32>)new_word;
                ip_sum = (ip_sum & 0xFFFF) + (ip_sum >> 16);
                ip_sum = (ip_sum & 0xFFFF) + (ip_sum >> 16);
                hdr.ipv4.hdrChecksum = ~ip_sum[15:0];

                port_thresholds.apply();
                queue_depth_est.read(meta.depth_est, (bit<32>)standard_metadata.egress_spec);

                if (hdr.mrc.isValid()
                    && (hdr.mrc.msg_type == MRC_ACK || hdr.mrc.msg_type == MRC_NACK
                        || hdr.mrc.msg_type == MRC_PROBE || hdr.mrc.msg_type == MRC_PROBE_REPLY
                        || (hdr.mrc.flags & MRC_FLAG_TRIMMED) != 0)) {
                    // Control messages, and headers an upstream switch already trimmed,
                    // keep the high-priority queue at every hop.
                    standard_metadata.priority = PRIO_HIGH;
                } else if (hdr.mrc.isValid() && hdr.mrc.msg_type == MRC_DATA
                           && meta.has_thresholds == 1
                           && meta.depth_est >= meta.trim_threshold) {
                    trim();
                } else {
                    admit_to_data_queue();
                }
            }
        }
    }
}

control MrcEgress(inout headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {

    counter(512, CounterType.packets_and_bytes) tx_packets;
    counter(512, CounterType.packets) trimmed;
    counter(512, CounterType.packets) ecn_marked;

    // A data-queue packet left: take it off the count. The count can only run high, by a
    // packet admitted when the queue was full (drop-tail), which never left; deq_qdepth + 1
    // bounds it under either BMv2 meaning of deq_qdepth (at least the data packets still
    // queued) plus the one packet ingress may have admitted and not yet queued. So a drained
    // queue reads at most 1. One action, so BMv2 holds the register lock across the read
    // and the write, and the ingress increment cannot interleave.
    action leave_data_queue() {
        bit<32> port = (bit<32>)standard_metadata.egress_port;
        bit<19> est;
        queue_depth_est.read(est, port);
        est = (est > 0) ? est - 1 : 0;
        bit<19> bound = standard_metadata.deq_qdepth + 1;
        queue_depth_est.write(port, (est < bound) ? est : bound);
    }

    apply {
        bit<32> port = (bit<32>)standard_metadata.egress_port;
        tx_packets.count(port);

        if (meta.in_data_queue == 1) {
            leave_data_queue();
        }

        // The depth this packet met: its own queue's, or for a header this switch trimmed,
        // the data-queue estimate that caused the trim (its own queue is the short one).
        bit<19> depth = standard_metadata.enq_qdepth;
        if (meta.trimmed == 1) {
            trimmed.count(port);
            if (meta.depth_est > depth) {
                depth = meta.depth_est;
            }
        }

        // EXERCISE signals BEGIN
        if (hdr.ipv4.isValid() && meta.has_thresholds == 1
            && (hdr.ipv4.ecn == ECN_ECT0 || hdr.ipv4.ecn == ECN_ECT1)
            && depth >= meta.ecn_threshold) {
            bit<16> old_word = hdr.ipv4.version ++ hdr.ipv4.ihl ++ hdr.ipv4.dscp ++ hdr.ipv4.ecn;
            hdr.ipv4.ecn = ECN_CE;
            bit<16> new_word = hdr.ipv4.version ++ hdr.ipv4.ihl ++ hdr.ipv4.dscp ++ hdr.ipv4.ecn;
            bit<32> ip_sum = (bit<32>)(~hdr.ipv4.hdrChecksum) + (bit<32>)(~old_word)
                             + (bit<32>)new_word;
            ip_sum = (ip_sum & 0xFFFF) + (ip_sum >> 16);
            ip_sum = (ip_sum & 0xFFFF) + (ip_sum >> 16);
            hdr.ipv4.hdrChecksum = ~ip_sum[15:0];
            ecn_marked.count(port);
        }

        // Only DATA and PROBE measure the path: ACK/NACK/PROBE_REPLY echo the forward path's
        // qmax back to the sender and must arrive unchanged.
        if (hdr.mrc.isValid() && (hdr.mrc.msg_type == MRC_DATA || hdr.mrc.msg_type == MRC_PROBE)
            && depth > (bit<19>)hdr.mrc.qmax) {
            bit<16> old_qmax = hdr.mrc.qmax;
            if (depth > 0xFFFF) {
                hdr.mrc.qmax = 0xFFFF;
            } else {
                hdr.mrc.qmax = depth[15:0];
            }
            if (hdr.udp.checksum != 0) {
                bit<32> sum = (bit<32>)(~hdr.udp.checksum) + (bit<32>)(~old_qmax)
                              + (bit<32>)hdr.mrc.qmax;
                sum = (sum & 0xFFFF) + (sum >> 16);
                sum = (sum & 0xFFFF) + (sum >> 16);
                bit<16> udp_csum = ~sum[15:0];
                if (udp_csum == 0) {
                    udp_csum = 0xFFFF;
                }
                hdr.udp.checksum = udp_csum;
            }
        }
        // EXERCISE signals END
    }
}

control MrcComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        // Routed hops adjust the checksum incrementally; a trimmed header changed totalLen
        // too, and always has a 20-byte header (the parser reaches UDP only with ihl 5).
        update_checksum(
            meta.trimmed == 1,
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn,
              hdr.ipv4.totalLen, hdr.ipv4.identification, hdr.ipv4.flags,
              hdr.ipv4.fragOffset, hdr.ipv4.ttl, hdr.ipv4.protocol,
              hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum,
            HashAlgorithm.csum16);
    }
}

control MrcDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.cpu_in);
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.tcp);
        packet.emit(hdr.udp);
        packet.emit(hdr.mrc);
        packet.emit(hdr.probe);
    }
}

V1Switch(MrcParser(),
         MrcVerifyChecksum(),
         MrcIngress(),
         MrcEgress(),
         MrcComputeChecksum(),
         MrcDeparser()) main;
