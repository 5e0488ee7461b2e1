"""The Qt-free core of BAGEL Studio: store, importers, checks, audio analysis, export, LLM client.

Nothing under this package may import Qt; ``tests/core/test_layering.py`` enforces it.
"""
