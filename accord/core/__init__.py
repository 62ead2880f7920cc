"""The kernel: envelopes, commitments, chains, refusals, money and the protocol interface."""
