"""The simulator engine of the experiments (`--engine sim`): what `experiments.live` is to
the lab."""
