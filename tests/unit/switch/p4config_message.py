"""PI's p4.tmp.P4DeviceConfig as a real protobuf class, built from its .proto definition.

The `p4runtime` package does not ship p4/tmp/p4config.proto; building the message from
the descriptor lets the tests serialize it with protobuf itself, as BMv2-era client
helpers do, instead of with p4emu's own decoder's idea of the format.

    message P4DeviceConfig {
      message Extras { map<string, string> kv = 1; }
      bool reassign = 1;
      Extras extras = 2;
      bytes device_data = 3;
    }
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

F = descriptor_pb2.FieldDescriptorProto


def _build():
    fdp = descriptor_pb2.FileDescriptorProto(name="p4/tmp/p4config.proto", package="p4.tmp",
                                             syntax="proto3")
    config = fdp.message_type.add(name="P4DeviceConfig")
    extras = config.nested_type.add(name="Extras")
    entry = extras.nested_type.add(name="KvEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    entry.field.add(name="value", number=2, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    extras.field.add(name="kv", number=1, type=F.TYPE_MESSAGE, label=F.LABEL_REPEATED,
                     type_name=".p4.tmp.P4DeviceConfig.Extras.KvEntry")
    config.field.add(name="reassign", number=1, type=F.TYPE_BOOL, label=F.LABEL_OPTIONAL)
    config.field.add(name="extras", number=2, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
                     type_name=".p4.tmp.P4DeviceConfig.Extras")
    config.field.add(name="device_data", number=3, type=F.TYPE_BYTES, label=F.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    desc = pool.FindMessageTypeByName("p4.tmp.P4DeviceConfig")
    get_class = getattr(message_factory, "GetMessageClass", None)  # protobuf >= 4.22
    return get_class(desc) if get_class else message_factory.MessageFactory(pool).GetPrototype(desc)


P4DeviceConfig = _build()


def wrap(device_data: bytes, **extras: str) -> bytes:
    """device_data wrapped as BMv2-era helpers send it (reassign set, optional extras)."""
    msg = P4DeviceConfig(reassign=True, device_data=device_data)
    for key, value in extras.items():
        msg.extras.kv[key] = value
    return msg.SerializeToString()
