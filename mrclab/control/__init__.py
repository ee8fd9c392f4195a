"""The controller's client API, which the lab, experiments and exercises use without
importing the controller itself.

- `protocol`: the control socket (JSON lines on a Unix socket), client side;
- `command`: the controller's command line, built from settings;
- `status`: what the controller reports of itself (ready, switches, down links).
"""
