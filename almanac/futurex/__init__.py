"""FutureX-style tiered question sets: candidate events, event filters, four tiers, scorers (issue 19)."""
