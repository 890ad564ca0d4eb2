"""Helpers for testing tcc programs without a GPU."""
