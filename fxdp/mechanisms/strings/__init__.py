"""Layer 4: mechanisms over strings nobody listed in advance (issue 34, in progress; not registered
yet): the Count Mean Sketch and its Hadamard variant, the Prefix Extending Method; the keyed hash
is fxdp.strhash."""
