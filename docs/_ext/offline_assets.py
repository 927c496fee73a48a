"""MkDocs hook: the package tree the API reference reads, and the site's own scripts.

**The package tree.**  spec/, mechanisms/, estimators/ and examples/ install as
``privaudit.spec``, ``privaudit.mechanisms``, ``privaudit.estimators`` and ``privaudit.examples``
(pyproject.toml, ``[tool.setuptools.package-dir]``).  mkdocstrings reads the source statically
(griffe), which follows no import hook, so the hook lays out a tree of links as the wheel is
(``build/docs-tree/privaudit``, as .ci/typecheck does for mypy) and mkdocs.yml points the
Python handler at it.

**The scripts.**
The site loads nothing from the network when it is viewed (tests/unit/project/test_docs_site.py
checks it).  Maths is typeset in the browser by KaTeX and the architecture page's diagram drawn
by mermaid, both from files inside the built site, under ``assets/vendor/``.  Those files are
not kept in the repository: this hook takes them, at build time, from the npm registry's
tarballs of two pinned releases (``npm pack``; the integrity of each tarball is checked against
its pinned SHA-512, the same string ``npm view NAME@VERSION dist.integrity`` prints), unpacks
the few files the site needs into a cache (``build/docs-vendor/`` of the checkout, or
``$PRIVAUDIT_DOCS_VENDOR``) and adds them to the site's files.  A second build reuses the cache
and needs no network.

To move to a newer release, change ``PINNED`` (version and integrity) and rebuild.
"""

from __future__ import annotations

import base64
import hashlib
import io
import logging
import os
import pathlib
import shutil
import subprocess
import tarfile
import tempfile
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

log = logging.getLogger("mkdocs.hooks.offline_assets")

ROOT = pathlib.Path(__file__).resolve().parents[2]
#: The installed layout the API reference reads (mkdocs.yml: the handler's ``paths``).
TREE = ROOT / "build" / "docs-tree"
#: Top-level folders of the checkout that install as subpackages of privaudit.
MAPPED = ("spec", "mechanisms", "estimators", "examples")
#: Where the vendored files go in the built site.
SITE_PREFIX = "assets/vendor"

#: npm package -> (version, the tarball's dist.integrity, files of the tarball the site needs:
#: exact paths, or a folder prefix ending in "/" with the suffix its files must have).
PINNED: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "katex": (
        "0.19.1",
        "sha512-jG8uKntjSEcm2EpQOh0XturpPuuC9r3Sq5HLHdsFdWZT27E672SF19QEi+of0/YeOy15lDgRhKvr5614uRrEfA==",
        ("dist/katex.min.js", "dist/katex.min.css", "dist/fonts/*.woff2"),
    ),
    # mermaid 11: the major release whose theme Material for MkDocs 9 styles; Material uses
    # this copy because it is loaded (extra_javascript) before a diagram is drawn, and would
    # otherwise fetch one from a CDN
    "mermaid": (
        "11.12.3",
        "sha512-wN5ZSgJQIC+CHJut9xaKWsknLxaFBwCPwPkGTSUYrTiHORWvpT8RxGk849HPnpUAQ+/9BPRqYb80jTpearrHzQ==",
        ("dist/mermaid.min.js",),
    ),
}


def _cache_root() -> pathlib.Path:
    given = os.environ.get("PRIVAUDIT_DOCS_VENDOR")
    return pathlib.Path(given) if given else ROOT / "build" / "docs-vendor"


def _wanted(member: str, patterns: tuple[str, ...]) -> str | None:
    """The path of ``member`` inside the package when the site needs it, else None."""
    if not member.startswith("package/"):
        return None
    path = member[len("package/") :]
    for pattern in patterns:
        if "*" in pattern:
            folder, _, suffix = pattern.partition("*")
            if path.startswith(folder) and path.endswith(suffix) and "/" not in path[len(folder) :]:
                return path
        elif path == pattern:
            return path
    return None


def _integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def _fetch(name: str, version: str, integrity: str, patterns: tuple[str, ...]) -> pathlib.Path:
    """The unpacked files of ``name@version``, from the cache or from ``npm pack``."""
    target = _cache_root() / f"{name}-{version}"
    stamp = target / ".integrity"
    if stamp.is_file() and stamp.read_text().strip() == integrity:
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise PluginError(
            f"the docs site takes {name}@{version} from the npm registry at build time "
            "(docs/_ext/offline_assets.py), and npm is not installed: apt-get install npm, "
            "or set PRIVAUDIT_DOCS_VENDOR to a folder that holds them already"
        )
    log.info("vendoring %s@%s from the npm registry (npm pack)", name, version)
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            [npm, "pack", "--silent", f"{name}@{version}", "--pack-destination", scratch],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        tarballs = list(pathlib.Path(scratch).glob("*.tgz"))
        if done.returncode != 0 or len(tarballs) != 1:
            raise PluginError(f"npm pack {name}@{version} failed: {done.stderr.strip()[-2000:]}")
        data = tarballs[0].read_bytes()
    found = _integrity(data)
    if found != integrity:
        raise PluginError(
            f"npm pack {name}@{version}: integrity {found} is not the pinned {integrity}"
        )
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        for member in archive.getmembers():
            path = _wanted(member.name, patterns) if member.isfile() else None
            if path is None:
                continue
            out = partial / path
            out.parent.mkdir(parents=True, exist_ok=True)
            source = archive.extractfile(member)
            assert source is not None
            out.write_bytes(source.read())
    (partial / ".integrity").write_text(integrity + "\n")
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    return target


def _lay_out_tree() -> None:
    package = TREE / "privaudit"
    shutil.rmtree(TREE, ignore_errors=True)
    package.mkdir(parents=True)
    for entry in sorted((ROOT / "privaudit").iterdir()):
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for folder in MAPPED:
        (package / folder).symlink_to(ROOT / folder)


@event_priority(100)  # before mkdocstrings reads anything
def on_config(config: Any, **_: Any) -> Any:
    _lay_out_tree()
    return config


def on_files(files: Files, config: Any, **_: Any) -> Files:
    """Add the vendored files under ``assets/vendor/NAME/`` (their paths inside ``dist/``)."""
    for name, (version, integrity, patterns) in PINNED.items():
        folder = _fetch(name, version, integrity, patterns)
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or path.name == ".integrity":
                continue
            inside = path.relative_to(folder).as_posix().removeprefix("dist/")
            files.append(
                File.generated(config, f"{SITE_PREFIX}/{name}/{inside}", abs_src_path=str(path))
            )
    return files
