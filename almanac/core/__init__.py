"""Shared machinery every stage imports: I/O, schemas, IDs, rejects, params, months, Ray."""
