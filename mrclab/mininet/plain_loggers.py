"""Keep the project's loggers plain once Mininet is imported.

Importing Mininet makes every logger created afterwards a `MininetLogger` (its `log`
module calls `logging.setLoggerClass`), at Mininet's OUTPUT level with a console handler
of its own: the project's INFO lines vanish and its warnings print twice. Every module
here that imports Mininet imports this module after it, which turns the logger class back
and gives back the project's loggers that Mininet made meanwhile.
"""

from __future__ import annotations

import logging

import mininet.log

logging.setLoggerClass(logging.Logger)
for _name, _logger in list(logging.Logger.manager.loggerDict.items()):
    if _name.split(".")[0] == "mrclab" and isinstance(_logger, mininet.log.MininetLogger):
        _logger.setLevel(logging.NOTSET)
        for _handler in list(_logger.handlers):
            _logger.removeHandler(_handler)
