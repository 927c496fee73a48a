"""The built-in certificates still reproduce: a change to the auditor that changes what a
recorded audit gives (a new check, another α split) must re-certify the registry in the
same commit (``privaudit certify --registry``), or ``privaudit verify`` reports the
certificates as not reproduced.  Three cheap entries, one per family of laws, stand for
the registry here (``privaudit verify --registry`` checks all of them)."""

from __future__ import annotations

import pytest

from privaudit.interfaces.cli import main

CHEAP = ("laplace", "discrete_laplace", "randomized_response")


@pytest.mark.parametrize("name", CHEAP)
def test_a_builtin_certificate_reproduces(name, capsys):
    code = main(["verify", "--registry", name])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "1 of 1 certificates verified" in out
