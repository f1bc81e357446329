"""The demo's scenario: the [mechanism] tables of the configs ``fxdp demo`` writes, as TOML files
(package data), so that the scenario is data a reader can open, not kinds named in code."""
