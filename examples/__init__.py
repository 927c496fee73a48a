"""Runnable examples, shipped with the package so that every getting-started command works
from an installed wheel, as in
``privaudit audit privaudit.examples.custom_mechanism:build_underscaled_histogram``.
"""
