-- Wireshark dissector for the edge-llm KV-cache transfer protocol (doc/edge-llm.rst,
-- "KV transfer protocol"). Usage:
--   tshark -r capture.pcap -X lua_script:tools/edge-llm-kv.lua -Y edgellm -V
-- Frames ride on TCP port 9001 (EdgeLlmNode's BackhaulPort; with Transport=Udp, inside
-- UDP datagrams on port 9001, decoded by edgellm_dgram below); a frame is
--   frame header (8 B) | message header (message_length B) | payload (payload_length B)
-- all big-endian. Payload bytes are virtual in ns-3 (zeros in a capture).

local p = Proto("edgellm", "edge-llm KV transfer")

local types = {
  [1] = "TRANSFER_REQUEST",
  [2] = "KV_SEGMENT",
  [3] = "TRANSFER_COMPLETE",
  [4] = "BATCH_CLOSE",
  [5] = "TRANSFER_TRUNCATE",
  [6] = "TRANSFER_CANCEL",
  [7] = "TRANSFER_STOP",
  [8] = "TRANSFER_REDIRECT",
  [9] = "TRANSFER_RESPONSE",
  [10] = "TRANSFER_STATUS",
  [11] = "TRANSFER_REDIRECT_REFUSED",
  [12] = "PLAN_REQUEST",
  [13] = "PLAN",
  [14] = "PRE_TRANSFER_START",
  [15] = "PRE_TRANSFER_COMMIT",
  [16] = "PRE_TRANSFER_END",
  [17] = "PRE_TRANSFER_EVICTED",
  [18] = "PRE_TRANSFER_PAUSE",
  [19] = "IDLE_CACHE",
  [20] = "IDLE_CACHE_FETCH",
}
local results = { [0] = "ACCEPTED", [1] = "REFUSED_KV_FORMAT" }
local states = { [1] = "PROGRESS", [2] = "RESTORED", [3] = "LOST" }

local f = {
  version = ProtoField.uint8("edgellm.version", "Version"),
  type = ProtoField.uint8("edgellm.type", "Type", base.DEC, types),
  message_length = ProtoField.uint16("edgellm.message_length", "Message header length"),
  payload_length = ProtoField.uint32("edgellm.payload_length", "Payload length"),
  session = ProtoField.uint64("edgellm.session", "Session"),
  ue_address = ProtoField.ipv4("edgellm.ue_address", "UE address"),
  ue_port = ProtoField.uint16("edgellm.ue_port", "UE port"),
  source_cell = ProtoField.uint16("edgellm.source_cell", "Source cell"),
  handover_time_ns = ProtoField.int64("edgellm.handover_time_ns", "Handover time (ns)"),
  context_tokens = ProtoField.uint32("edgellm.context_tokens", "Context tokens"),
  prefill_length = ProtoField.uint32("edgellm.prefill_length", "Batch prefill length L"),
  prefill_tokens = ProtoField.uint32("edgellm.prefill_tokens", "Prefill tokens"),
  transfer_tokens = ProtoField.uint32("edgellm.transfer_tokens", "Transfer tokens"),
  batch_id = ProtoField.uint32("edgellm.batch_id", "Batch id"),
  batch_size = ProtoField.uint16("edgellm.batch_size", "Batch size"),
  bytes_per_token = ProtoField.uint32("edgellm.bytes_per_token", "KV bytes per token"),
  tokens_generated = ProtoField.uint32("edgellm.tokens_generated", "Tokens generated"),
  max_new_tokens = ProtoField.uint32("edgellm.max_new_tokens", "Max new tokens"),
  flags = ProtoField.uint16("edgellm.flags", "Flags", base.HEX),
  importance_ordered = ProtoField.bool("edgellm.flags.importance_ordered",
                                       "Importance-ordered entries", 16, nil, 0x0001),
  layer_major = ProtoField.bool("edgellm.flags.layer_major", "Layer-major order", 16, nil, 0x0002),
  coordinated = ProtoField.bool("edgellm.flags.coordinated", "Target-coordinated batch", 16, nil,
                                0x0004),
  more_turns = ProtoField.bool("edgellm.flags.more_turns", "Conversation with more turns", 16, nil,
                               0x0008),
  conversation = ProtoField.uint64("edgellm.conversation", "Conversation"),
  kv_deadline_ns = ProtoField.int64("edgellm.kv_deadline_ns", "Planned KV deadline (ns)"),
  request_id = ProtoField.uint32("edgellm.request_id", "Plan request id"),
  member_count = ProtoField.uint16("edgellm.member_count", "Members"),
  reply_by_ns = ProtoField.int64("edgellm.reply_by_ns", "Reply by (ns)"),
  planning_bit_rate = ProtoField.uint64("edgellm.planning_bit_rate", "Planning rate (bit/s)"),
  backhaul_free_at_ns = ProtoField.int64("edgellm.backhaul_free_at_ns", "Backhaul free at (ns)"),
  group_id = ProtoField.uint32("edgellm.group_id", "Group id", base.HEX),
  group_size = ProtoField.uint16("edgellm.group_size", "Group size"),
  sources = ProtoField.uint16("edgellm.sources", "Sources"),
  batch_start_ns = ProtoField.int64("edgellm.batch_start_ns", "Batch start (ns)"),
  path_delay = ProtoField.double("edgellm.path_delay", "Path delay (s)"),
  request_time = ProtoField.double("edgellm.request_time", "Request wire time (s)"),
  id_time = ProtoField.double("edgellm.id_time", "Token id wire time (s)"),
  close_ahead = ProtoField.double("edgellm.close_ahead", "Most queued ahead of a request (s)"),
  byte_offset = ProtoField.uint64("edgellm.byte_offset", "Byte offset"),
  total_bytes = ProtoField.uint64("edgellm.total_bytes", "Total bytes"),
  new_target = ProtoField.uint16("edgellm.new_target_cell", "New target cell"),
  result = ProtoField.uint8("edgellm.result", "Result", base.DEC, results),
  received_bytes = ProtoField.uint64("edgellm.received_bytes", "Received KV bytes"),
  state = ProtoField.uint8("edgellm.state", "State", base.DEC, states),
}
p.fields = f

local function pdu_length(tvb, pinfo, offset)
  return 8 + tvb(offset + 2, 2):uint() + tvb(offset + 4, 4):uint()
end

local function dissect_pdu(tvb, pinfo, tree)
  pinfo.cols.protocol = "EDGE-LLM"
  local t = tree:add(p, tvb())
  local kind = tvb(1, 1):uint()
  t:add(f.version, tvb(0, 1))
  t:add(f.type, tvb(1, 1))
  t:add(f.message_length, tvb(2, 2))
  t:add(f.payload_length, tvb(4, 4))
  local m = 8
  if kind == 1 then
    t:add(f.session, tvb(m, 8)); t:add(f.ue_address, tvb(m + 8, 4))
    t:add(f.ue_port, tvb(m + 12, 2)); t:add(f.source_cell, tvb(m + 14, 2))
    t:add(f.handover_time_ns, tvb(m + 16, 8)); t:add(f.context_tokens, tvb(m + 24, 4))
    t:add(f.prefill_length, tvb(m + 28, 4)); t:add(f.prefill_tokens, tvb(m + 32, 4))
    t:add(f.transfer_tokens, tvb(m + 36, 4)); t:add(f.batch_id, tvb(m + 40, 4))
    t:add(f.batch_size, tvb(m + 44, 2)); t:add(f.bytes_per_token, tvb(m + 46, 4))
    t:add(f.tokens_generated, tvb(m + 50, 4)); t:add(f.max_new_tokens, tvb(m + 54, 4))
    local fl = t:add(f.flags, tvb(m + 58, 2))
    fl:add(f.importance_ordered, tvb(m + 58, 2)); fl:add(f.layer_major, tvb(m + 58, 2))
    fl:add(f.coordinated, tvb(m + 58, 2)); fl:add(f.more_turns, tvb(m + 58, 2))
    t:add(f.kv_deadline_ns, tvb(m + 60, 8))
    if math.floor(tvb(m + 58, 2):uint() / 8) % 2 == 1 and tvb:len() >= m + 76 then
      t:add(f.conversation, tvb(m + 68, 8))
    end
  elseif kind == 2 then
    t:add(f.session, tvb(m, 8)); t:add(f.byte_offset, tvb(m + 8, 8))
  elseif kind == 3 or kind == 5 or kind == 6 or kind == 7 or (kind >= 14 and kind <= 20) then
    t:add(f.session, tvb(m, 8)); t:add(f.total_bytes, tvb(m + 8, 8))
  elseif kind == 8 or kind == 11 then
    t:add(f.session, tvb(m, 8)); t:add(f.new_target, tvb(m + 8, 2))
  elseif kind == 9 then
    t:add(f.session, tvb(m, 8)); t:add(f.bytes_per_token, tvb(m + 8, 4))
    t:add(f.result, tvb(m + 12, 1))
  elseif kind == 10 then
    t:add(f.session, tvb(m, 8)); t:add(f.received_bytes, tvb(m + 8, 8))
    t:add(f.state, tvb(m + 16, 1))
  elseif kind == 4 then
    t:add(f.batch_id, tvb(m, 4)); t:add(f.batch_size, tvb(m + 4, 2))
  elseif kind == 12 then
    t:add(f.request_id, tvb(m, 4)); t:add(f.member_count, tvb(m + 4, 2))
    t:add(f.reply_by_ns, tvb(m + 8, 8)); t:add(f.planning_bit_rate, tvb(m + 16, 8))
    t:add(f.backhaul_free_at_ns, tvb(m + 24, 8)); t:add(f.bytes_per_token, tvb(m + 32, 4))
    t:add(f.path_delay, tvb(m + 40, 8)); t:add(f.request_time, tvb(m + 48, 8))
    t:add(f.id_time, tvb(m + 56, 8)); t:add(f.close_ahead, tvb(m + 64, 8))
    local n = tvb(m + 4, 2):uint()
    for i = 0, n - 1 do
      local o = m + 72 + 20 * i
      t:add(f.session, tvb(o, 8)); t:add(f.handover_time_ns, tvb(o + 8, 8))
      t:add(f.context_tokens, tvb(o + 16, 4))
    end
  elseif kind == 13 then
    t:add(f.request_id, tvb(m, 4)); t:add(f.group_id, tvb(m + 4, 4))
    t:add(f.group_size, tvb(m + 8, 2)); t:add(f.sources, tvb(m + 10, 2))
    t:add(f.prefill_length, tvb(m + 12, 4)); t:add(f.batch_start_ns, tvb(m + 20, 8))
    t:add(f.planning_bit_rate, tvb(m + 28, 8))
  end
  pinfo.cols.info:append(" " .. (types[kind] or "unknown"))
  return tvb:len()
end

function p.dissector(tvb, pinfo, tree)
  dissect_tcp_pdus(tvb, tree, 8, pdu_length, dissect_pdu)
  return tvb:len()
end

DissectorTable.get("tcp.port"):add(9001, p)

-- Transport=Udp: every datagram starts with a KvDatagramHeader (KvDatagramSocket). DATA
-- carries a run of the frame stream above (frames span datagrams, so they are not
-- decoded here); ACK carries the cumulative ack and up to 4 SACK blocks.
local d = Proto("edgellm_dgram", "edge-llm KV datagram")
local dtypes = { [1] = "DATA", [2] = "ACK" }
local g = {
  version = ProtoField.uint8("edgellm_dgram.version", "Version"),
  type = ProtoField.uint8("edgellm_dgram.type", "Type", base.DEC, dtypes),
  sequence = ProtoField.uint32("edgellm_dgram.sequence", "Sequence"),
  stream_bytes = ProtoField.uint32("edgellm_dgram.stream_bytes", "Stream bytes"),
  next_expected = ProtoField.uint32("edgellm_dgram.next_expected", "Next expected"),
  sack_count = ProtoField.uint8("edgellm_dgram.sack_count", "SACK blocks"),
  sack_start = ProtoField.uint32("edgellm_dgram.sack_start", "SACK start"),
  sack_end = ProtoField.uint32("edgellm_dgram.sack_end", "SACK end (exclusive)"),
}
d.fields = g

function d.dissector(tvb, pinfo, tree)
  if tvb:len() < 2 then return 0 end
  pinfo.cols.protocol = "EDGE-LLM-DGRAM"
  local t = tree:add(d, tvb())
  t:add(g.version, tvb(0, 1))
  t:add(g.type, tvb(1, 1))
  local kind = tvb(1, 1):uint()
  if kind == 1 and tvb:len() >= 6 then
    t:add(g.sequence, tvb(2, 4))
    t:add(g.stream_bytes, tvb:len() - 6)
    pinfo.cols.info:set("DATA seq " .. tvb(2, 4):uint())
  elseif kind == 2 and tvb:len() >= 7 then
    t:add(g.next_expected, tvb(2, 4))
    t:add(g.sack_count, tvb(6, 1))
    local n = tvb(6, 1):uint()
    for i = 0, n - 1 do
      local o = 7 + 8 * i
      if tvb:len() < o + 8 then break end
      t:add(g.sack_start, tvb(o, 4)); t:add(g.sack_end, tvb(o + 4, 4))
    end
    pinfo.cols.info:set("ACK next " .. tvb(2, 4):uint() .. ", " .. n .. " SACK")
  end
  return tvb:len()
end

DissectorTable.get("udp.port"):add(9001, d)
