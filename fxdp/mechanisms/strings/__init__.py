"""Layer 4: mechanisms over strings nobody listed in advance (issue 34): the Count Mean Sketch so
far, its reference release, audit and estimator (not registered yet); the keyed hash is
fxdp.strhash."""
