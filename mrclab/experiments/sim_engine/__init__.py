"""The simulator engine of the experiments (`--engine sim`): what `mrclab.experiments.lab_engine` is to
the lab."""
