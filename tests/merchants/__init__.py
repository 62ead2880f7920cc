"""Merchants: tenants, keys, policies and the catalogue."""
