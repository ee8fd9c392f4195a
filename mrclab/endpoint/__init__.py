"""endpoint package.

Its per-packet modules run compiled by mypyc when built from the sources as they are
(`mrclab.endpoint.accelerate`; `MRCLAB_ENDPOINT_COMPILED=0` runs the pure-Python reference).
"""

from mrclab.endpoint.compiled import install as _install_compiled

_install_compiled()
