"""The course layer: what the chapters show, computed from the library and the results."""
