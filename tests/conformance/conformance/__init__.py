"""Conformance-case generator: op families, input values and the case writer.

`gen.py` (one directory up) is the entry point; README.md describes the case format.
"""
