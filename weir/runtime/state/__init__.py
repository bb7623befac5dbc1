"""Keyed state: descriptors, state objects and the paged key-group backend."""
