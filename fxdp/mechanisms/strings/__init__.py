"""Layer 4: mechanisms over strings nobody listed in advance (issue 34): the Count Mean Sketch and
its Hadamard variant, the Prefix Extending Method and the Sequence Fragment Puzzle; the keyed hash
is fxdp.strhash."""
