"""The user interfaces: the command line, ``file.py:name`` targets, the pytest plugin and the
HTML report.

Import public names from :mod:`privaudit`; this package is a room of the layout drawn in
``docs/architecture.md``, kept cheap to import.
"""
