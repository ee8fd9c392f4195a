-- Wireshark dissectors for the MRC Lab wire formats (docs/wire-format.md): MRC-lite v1, and
-- the controller's link probes (at the end of this file).
-- Field names and widths follow the Scapy layer mrclab/endpoint/layers.py; the tests hold them equal
-- (tests/unit/tools/test_wireshark_dissector.py).
-- Ethernet / IPv4 / UDP port 4793 (either direction) / 40-byte MRC header / payload.
--
--   wireshark -X lua_script:tools/wireshark/mrc.lua capture.pcap
--   tshark -X lua_script:tools/wireshark/mrc.lua -r capture.pcap -V
--
-- or copy this file into Wireshark's personal Lua plugins folder
-- (Help > About Wireshark > Folders), e.g. ~/.local/lib/wireshark/plugins/.
-- Display filters: mrc, mrc.type == 2, mrc.flags.trimmed == 1, mrc.ev == 0x10, mrc.sack.psn.
-- Written for the Lua 5.1-5.4 that Wireshark versions embed: no bit library is used.

local MRC_PORT = 4793
local HEADER_LEN = 40

local mrc = Proto("mrc", "MRC-lite v1 (Multipath Reliable Connection)")

local TYPES = { [0] = "DATA", [1] = "ACK", [2] = "NACK", [3] = "PROBE", [4] = "PROBE_REPLY" }
local DATA, ACK, NACK, PROBE, PROBE_REPLY = 0, 1, 2, 3, 4
-- (bit, name) of the flags byte, as mrclab/endpoint/layers.py's FLAG_NAMES.
local FLAGS = { { 0, "TRIMMED" }, { 1, "ECN_ECHO" }, { 2, "LAST" }, { 3, "RETX" } }

local f = mrc.fields
f.version = ProtoField.uint8("mrc.version", "Version", base.DEC, nil, 0xF0)
f.type = ProtoField.uint8("mrc.type", "Type", base.DEC, TYPES, 0x0F)
f.flags = ProtoField.uint8("mrc.flags", "Flags", base.HEX)
f.trimmed = ProtoField.bool("mrc.flags.trimmed", "TRIMMED (payload cut by a switch)", 8, nil, 0x01)
f.ecn_echo = ProtoField.bool("mrc.flags.ecn_echo", "ECN_ECHO (receiver saw CE)", 8, nil, 0x02)
f.last = ProtoField.bool("mrc.flags.last", "LAST (last packet of the message)", 8, nil, 0x04)
f.retx = ProtoField.bool("mrc.flags.retx", "RETX (retransmission; on an ACK: of a duplicate)", 8,
                        nil, 0x08)
f.unassigned = ProtoField.uint8("mrc.flags.unassigned", "Unassigned bits", base.HEX, nil, 0xF0)
f.ev = ProtoField.uint16("mrc.ev", "Entropy value (EV)", base.HEX)
f.conn = ProtoField.uint32("mrc.conn", "Connection", base.HEX)
f.psn = ProtoField.uint32("mrc.psn", "PSN", base.DEC)
f.ack = ProtoField.uint32("mrc.ack", "Cumulative ack (next PSN expected)", base.DEC)
f.offset = ProtoField.uint32("mrc.offset", "Offset", base.DEC)
f.sack = ProtoField.uint32("mrc.sack", "SACK bitmap (offset field)", base.HEX)
f.sack_psn = ProtoField.uint32("mrc.sack.psn", "SACKed PSN", base.DEC)
f.length = ProtoField.uint16("mrc.length", "Length (payload bytes as sent)", base.DEC)
f.qmax = ProtoField.uint16("mrc.qmax", "Qmax (deepest egress queue on the path, packets)", base.DEC)
f.ts = ProtoField.uint32("mrc.ts", "Timestamp (us)", base.DEC)
f.route = ProtoField.uint64("mrc.route", "Source route", base.HEX)
f.route_hop = ProtoField.uint8("mrc.route.hop", "Hop label", base.DEC)
f.reserved = ProtoField.uint32("mrc.reserved", "Reserved", base.HEX)
f.payload = ProtoField.bytes("mrc.payload", "Payload")

local e_short = ProtoExpert.new("mrc.short", "Truncated MRC header", expert.group.MALFORMED,
                                expert.severity.ERROR)
local e_version = ProtoExpert.new("mrc.version.unknown", "Unknown MRC version",
                                  expert.group.MALFORMED, expert.severity.WARN)
local e_trimmed = ProtoExpert.new("mrc.trimmed", "Payload trimmed by a congested switch",
                                  expert.group.SEQUENCE, expert.severity.NOTE)
mrc.experts = { e_short, e_version, e_trimmed }

-- Bit i of v (0 = least significant), with arithmetic only.
local function bit_set(v, i)
    return math.floor(v / 2 ^ i) % 2 == 1
end

local function flag_names(flags)
    local names = {}
    for _, fl in ipairs(FLAGS) do
        if bit_set(flags, fl[1]) then
            names[#names + 1] = fl[2]
        end
    end
    return table.concat(names, ",")
end

function mrc.dissector(buf, pinfo, tree)
    pinfo.cols.protocol = "MRC"
    if buf:len() < HEADER_LEN then
        local t = tree:add(mrc, buf())
        t:add_proto_expert_info(e_short, "Truncated MRC header: " .. buf:len() .. " of "
                                .. HEADER_LEN .. " bytes")
        pinfo.cols.info = "MRC (truncated header)"
        return buf:len()
    end
    local version = buf(0, 1):bitfield(0, 4)
    local mtype = buf(0, 1):bitfield(4, 4)
    local flags = buf(1, 1):uint()
    local tname = TYPES[mtype] or ("type " .. mtype)
    local names = flag_names(flags)

    local t = tree:add(mrc, buf(0, HEADER_LEN))
    t:append_text(", " .. tname)
    local vi = t:add(f.version, buf(0, 1))
    if version ~= 1 then
        vi:add_proto_expert_info(e_version)
    end
    t:add(f.type, buf(0, 1))
    local ft = t:add(f.flags, buf(1, 1))
    if names ~= "" then
        ft:append_text(" (" .. names .. ")")
    end
    ft:add(f.trimmed, buf(1, 1))
    ft:add(f.ecn_echo, buf(1, 1))
    ft:add(f.last, buf(1, 1))
    ft:add(f.retx, buf(1, 1))
    ft:add(f.unassigned, buf(1, 1))
    t:add(f.ev, buf(2, 2))
    t:add(f.conn, buf(4, 4))
    t:add(f.psn, buf(8, 4))
    local ack = buf(12, 4):uint()
    t:add(f.ack, buf(12, 4))

    -- `offset` is a SACK bitmap in ACKs: bit i set = PSN ack + 1 + i received.
    local sacked = {}
    if mtype == ACK then
        local bitmap = buf(16, 4):uint()
        local st = t:add(f.sack, buf(16, 4))
        for i = 0, 31 do
            if bit_set(bitmap, i) then
                sacked[#sacked + 1] = tostring(ack + 1 + i)
                st:add(f.sack_psn, buf(16, 4), ack + 1 + i)
            end
        end
        st:append_text(" (PSNs " .. (#sacked > 0 and table.concat(sacked, ",") or "none") .. ")")
    else
        local oi = t:add(f.offset, buf(16, 4))
        if mtype == DATA then
            oi:append_text(" (byte offset in the message)")
        elseif mtype == PROBE and buf(4, 4):uint() == 0 then
            oi:append_text(" (message length: connection open)")
        end
    end

    local li = t:add(f.length, buf(20, 2))
    if mtype == DATA and bit_set(flags, 0) then
        li:append_text(" (trimmed: " .. (buf:len() - HEADER_LEN) .. " bytes left)")
        li:add_proto_expert_info(e_trimmed)
    end
    t:add(f.qmax, buf(22, 2))
    t:add(f.ts, buf(24, 4))

    -- Route: 8 hop labels, current hop in the top byte; 0 = no source route.
    local rt = t:add(f.route, buf(28, 8))
    local hops = {}
    for i = 0, 7 do
        local label = buf(28 + i, 1):uint()
        if label == 0 then
            break
        end
        hops[#hops + 1] = tostring(label)
        rt:add(f.route_hop, buf(28 + i, 1))
    end
    rt:append_text(#hops > 0 and (" (hops " .. table.concat(hops, ",") .. ")") or " (none)")

    local ri = t:add(f.reserved, buf(36, 4))
    if mtype == DATA and bit_set(flags, 2) then
        ri:append_text(" (CRC32 of the whole message)")
    elseif (mtype == PROBE or mtype == PROBE_REPLY) then
        ri:append_text(" (connection-open nonce)")
    end

    if buf:len() > HEADER_LEN then
        t:add(f.payload, buf(HEADER_LEN))
    end

    local info = string.format("%s ev=0x%04x conn=0x%x psn=%d", tname, buf(2, 2):uint(),
                               buf(4, 4):uint(), buf(8, 4):uint())
    if mtype == ACK or mtype == NACK then
        info = info .. " ack=" .. ack
    end
    if #sacked > 0 then
        info = info .. " sack=" .. table.concat(sacked, ",")
    end
    if names ~= "" then
        info = info .. " [" .. names .. "]"
    end
    pinfo.cols.info = info
    return buf:len()
end

DissectorTable.get("udp.port"):add(MRC_PORT, mrc)

-- The fabric controller's link probes (mrclab/controller/probe_liveness.py), on EtherType 0x88B5
-- between switches: the probing switch's device id, a timestamp (ms) and the number of
-- probed ports, then per port its number and its link's probe number. One frame probes
-- every link of a switch: the switch sends a copy out of each probed port.
-- Display filters: mrclab_probe, mrclab_probe.device_id == 5, mrclab_probe.port == 3.
local PROBE_HEAD, PROBE_PORT = 10, 6

local probe = Proto("mrclab_probe", "MRC Lab link probe")
local pf = probe.fields
pf.device_id = ProtoField.uint32("mrclab_probe.device_id", "Probing switch (device id)", base.DEC)
pf.ts = ProtoField.uint32("mrclab_probe.ts", "Timestamp (ms, wraps)", base.DEC)
pf.count = ProtoField.uint16("mrclab_probe.count", "Probed ports", base.DEC)
pf.port = ProtoField.uint16("mrclab_probe.port", "Port", base.DEC)
pf.seq = ProtoField.uint32("mrclab_probe.seq", "Probe number of the port's link", base.DEC)
local e_probe_short = ProtoExpert.new("mrclab_probe.short", "Truncated link probe",
                                      expert.group.MALFORMED, expert.severity.ERROR)
probe.experts = { e_probe_short }

function probe.dissector(buf, pinfo, tree)
    pinfo.cols.protocol = "LINK-PROBE"
    local t = tree:add(probe, buf())
    if buf:len() < PROBE_HEAD then
        t:add_proto_expert_info(e_probe_short, "Truncated link probe: " .. buf:len() .. " of "
                                .. PROBE_HEAD .. " header bytes")
        pinfo.cols.info = "Link probe (truncated)"
        return buf:len()
    end
    local device, count = buf(0, 4):uint(), buf(8, 2):uint()
    t:add(pf.device_id, buf(0, 4))
    t:add(pf.ts, buf(4, 4))
    t:add(pf.count, buf(8, 2))
    local ports = {}
    for i = 0, count - 1 do
        local at = PROBE_HEAD + PROBE_PORT * i
        if at + PROBE_PORT > buf:len() then
            t:add_proto_expert_info(e_probe_short, "Truncated link probe: " .. i .. " of "
                                    .. count .. " ports")
            break
        end
        local port, seq = buf(at, 2):uint(), buf(at + 2, 4):uint()
        local pt = t:add(probe, buf(at, PROBE_PORT), "Port " .. port .. ": probe " .. seq)
        pt:add(pf.port, buf(at, 2))
        pt:add(pf.seq, buf(at + 2, 4))
        ports[#ports + 1] = port .. ":" .. seq
    end
    pinfo.cols.info = string.format("Link probe from device %d, port:probe %s", device,
                                    table.concat(ports, " "))
    return buf:len()
end

DissectorTable.get("ethertype"):add(0x88B5, probe)
