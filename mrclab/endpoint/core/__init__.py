"""Sans-I/O MRC transport core: events and time in, packets and timer deadlines out."""

from mrclab.endpoint.core.packets import Outgoing
from mrclab.endpoint.core.receiver import Message, MrcReceiver, ReceiverConfig
from mrclab.endpoint.core.sender import MrcSender, SenderConfig

__all__ = ["Message", "MrcReceiver", "MrcSender", "Outgoing", "ReceiverConfig", "SenderConfig"]
