"""Examples an integrator copies, served by the sandbox under ``/examples/``."""
