"""Execution back ends: test splits drawn in seeded blocks (streaming), the thread-pool
executor, the pair tests in forked processes, the Dask executor, and the BLAS thread cap.

Import public names from :mod:`privaudit`; this package is a room of the layout drawn in
``docs/architecture.md``, kept cheap to import.
"""
