"""The getting-started pages' commands work from an installed package, outside any checkout.

Every line of a ```bash block of the README and of docs/getting-started/ that starts with
``privaudit`` is a command a reader runs as it is; each states the exit code it gives as a
trailing ``# exit N`` comment.  The test runs them in page order (a page's commands may use a
file an earlier one wrote, as ``certify -o`` then ``show``) from an empty temporary folder,
with no ``PYTHONPATH`` and the checkout nowhere on the path, so the installed ``privaudit``
(its ``privaudit.examples`` targets included) is what answers, as after ``pip install``.
"""

from __future__ import annotations

import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = [
    ROOT / "README.md",
    ROOT / "docs" / "getting-started" / "ci.md",
    ROOT / "docs" / "getting-started" / "researchers.md",
    ROOT / "docs" / "getting-started" / "analysts.md",
]
BASH_BLOCK = re.compile(r"^```bash[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
EXIT = re.compile(r"#\s*(?:[^#]*:\s*)?exit (\d+)\b")
#: Generous for a loaded machine: the slowest command (certify) takes ~20 s on an idle one.
TIMEOUT = 600


def _commands(page: pathlib.Path) -> list[tuple[str, int]]:
    """(command, documented exit code) for each ``privaudit`` line of the page's bash blocks."""
    found = []
    for block in BASH_BLOCK.findall(page.read_text(encoding="utf-8")):
        for line in block.splitlines():
            if not line.startswith("privaudit"):
                continue
            command, _, comment = line.partition("#")
            match = EXIT.search("#" + comment)
            assert match, f"{page.name}: no '# exit N' after {line!r}"
            found.append((command.strip(), int(match.group(1))))
    return found


def test_every_page_states_the_exit_code_of_its_commands() -> None:
    commands = {page.name: _commands(page) for page in PAGES}
    assert commands["ci.md"] and commands["researchers.md"] and commands["README.md"], commands
    for page, listed in commands.items():
        for command, _ in listed:
            assert "examples/" not in command, f"{page}: {command} names a file of a checkout"


@pytest.mark.parametrize("page", [p for p in PAGES if _commands(p)], ids=lambda p: p.name)
def test_the_pages_commands_give_their_documented_exit_codes(page, tmp_path):
    executable = shutil.which("privaudit", path=os.path.dirname(sys.executable))
    executable = executable or shutil.which("privaudit")
    if executable is None:
        pytest.skip("the privaudit command is not installed (pip install -e .)")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    env["PYTHONSAFEPATH"] = "1"  # never the current folder on sys.path
    for command, expected in _commands(page):
        argv = shlex.split(command)
        done = subprocess.run(
            [executable, *argv[1:]],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        assert done.returncode == expected, (
            f"{page.name}: `{command}` exited {done.returncode}, the page says {expected}\n"
            f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
