"""Search over one user's records: vector, full text and hybrid (RRF)."""
