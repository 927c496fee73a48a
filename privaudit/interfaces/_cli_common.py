"""What the commands of :mod:`privaudit.interfaces.cli` share: exit codes, where text and
progress go (``_Output``, ``_Entries``), configuration overrides from the options, writing
JSON, text, plots and HTML, tables, and the checks of the TARGET / ``--registry`` and
executor options.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from privaudit.interfaces.cli_contract import (
    EXIT_BROKEN_PIPE,
    EXIT_INCONCLUSIVE,
    EXIT_OK,
    EXIT_USAGE,
    EXIT_VIOLATION,
)
from privaudit.spec.errors import AuditError

__all__ = ["EXIT_BROKEN_PIPE", "EXIT_INCONCLUSIVE", "EXIT_OK", "EXIT_USAGE", "EXIT_VIOLATION"]


#: Certificate states that fail the gates (``audit --registry``, ``list --check``).
_FAILING_STATES = ("stale", "missing", "inconsistent")


class _Output:
    """Where readable text and progress go for one command."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.quiet = bool(getattr(args, "quiet", False))
        self.verbose = bool(getattr(args, "verbose", False))
        json_to_stdout = getattr(args, "json", None) == "-"
        self.text: TextIO | None = (
            None if self.quiet else (sys.stderr if json_to_stdout else sys.stdout)
        )
        self.show_progress = not self.quiet and sys.stderr.isatty()
        self._bar: Any = None  # the tqdm display of ``entries`` while it is open

    def say(self, text: str = "") -> None:
        if self.text is None:
            return
        if self._bar is not None:  # above the display, which is redrawn below the text
            self._bar.write(text, file=self.text)
            self.text.flush()
        else:
            print(text, file=self.text, flush=True)

    def error(self, line: str) -> None:
        """``line`` on stderr, even with ``--quiet``, above the progress display if shown."""
        if self._bar is not None:
            self._bar.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr, flush=True)

    def progress(self, label: str) -> Callable[[str], None] | None:
        if not self.show_progress:
            return None
        start = time.perf_counter()

        def report(message: str) -> None:
            print(
                f"privaudit: [{label}] {message} ({time.perf_counter() - start:.1f} s)",
                file=sys.stderr,
                flush=True,
            )

        return report

    @contextmanager
    def entries(self, total: int) -> Iterator[_Entries]:
        """Progress over ``total`` entries: on a terminal one line on stderr, redrawn in place
        (entries done, elapsed time, the current entry and its step) and cleared at the end;
        off a terminal, or with ``--quiet``, nothing."""
        if not self.show_progress:
            yield _Entries(None)
            return
        from tqdm import tqdm  # imported here: only a terminal's registry commands need it

        try:
            sized = min(os.get_terminal_size(sys.stderr.fileno())) > 0
        except (OSError, ValueError):
            sized = False
        bar = tqdm(
            total=total,
            file=sys.stderr,
            leave=False,
            dynamic_ncols=sized,  # follows a resized terminal
            ncols=None if sized else 80,  # a terminal that reports no size (tqdm would
            nrows=None if sized else 24,  # then draw nothing)
            bar_format="privaudit: {n_fmt}/{total_fmt} entries |{bar:12}| {elapsed} {desc}",
        )
        self._bar = bar
        show_warning = warnings.showwarning

        def above(*args: Any, **kwargs: Any) -> None:  # a warning is printed above the line
            with tqdm.external_write_mode(file=sys.stderr):
                show_warning(*args, **kwargs)

        warnings.showwarning = above
        try:
            yield _Entries(bar)
        finally:
            warnings.showwarning = show_warning
            self._bar = None
            bar.close()


class _Entries:
    """The progress of one registry command (:meth:`_Output.entries`); a no-op without a
    display."""

    #: Seconds between redraws for the steps of one entry (entries always redraw).
    REDRAW = 0.1

    def __init__(self, bar: Any) -> None:
        self._bar = bar
        self._drawn = 0.0

    def start(self, name: str) -> Callable[[str], None] | None:
        """Show ``name`` as the current entry; returns the callback for its steps."""
        if self._bar is None:
            return None
        bar = self._bar
        bar.set_description_str(name)

        def report(message: str) -> None:
            bar.set_description_str(f"{name}: {message}", refresh=False)
            now = time.perf_counter()
            if now - self._drawn >= self.REDRAW:
                self._drawn = now
                bar.refresh()

        return report

    def done(self) -> None:
        """Count one more entry as done."""
        if self._bar is not None:
            self._bar.update(1)


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in (
        "samples",
        "confidence",
        "seed",
        "detect_epsilon",
        "time_budget",
        "sampler_timeout",
        "sequential",
    ):
        value = getattr(args, key, None)
        if value is not None:
            out[key] = value
    return out


def _write_text(path: str | Path, text: str, what: str) -> None:
    target = Path(path)
    try:
        if target.parent != Path(""):
            target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as err:
        raise AuditError(f"cannot write {what} to {str(target)!r}: {err.strerror or err}") from None


def _emit_json(path: str, payload: str, what: str) -> None:
    if path == "-":
        sys.stdout.write(payload if payload.endswith("\n") else payload + "\n")
        sys.stdout.flush()
    else:
        _write_text(path, payload if payload.endswith("\n") else payload + "\n", what)


def _require_outputs(args: argparse.Namespace) -> Callable[..., Any] | None:
    """Fail before any audit runs if --plot or --html cannot be honoured."""
    if getattr(args, "plot", None):
        try:
            import matplotlib  # noqa: F401  # imported only to see that it is installed
        except ImportError:
            raise AuditError("--plot needs matplotlib: pip install 'privaudit[plot]'") from None
    if getattr(args, "html", None):
        try:
            from privaudit.interfaces.html_report import write_html_report
        except ImportError as err:
            raise AuditError(
                "--html needs privaudit.interfaces.html_report.write_html_report, which this "
                f"installation does not provide ({err})"
            ) from None
        return write_html_report
    return None


def _plot(report: Any, path: Path) -> None:
    try:
        if path.parent != Path(""):
            path.parent.mkdir(parents=True, exist_ok=True)
        fig = report.plot_tradeoff(path)
    except OSError as err:
        raise AuditError(f"cannot write the plot to {str(path)!r}: {err.strerror or err}") from None
    import matplotlib.pyplot as plt

    plt.close(fig)


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _table(rows: Sequence[Sequence[str]], header: Sequence[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = "  ".join("-" * w for w in widths)
    fmt = [
        ("  ".join(f"{c!s:<{w}}" for c, w in zip(row, widths, strict=True))).rstrip()
        for row in [header, *rows]
    ]
    return "\n".join([fmt[0], line, *fmt[1:]])


def _target_or_registry(args: argparse.Namespace, verb: str) -> None:
    """TARGET and --registry exclude each other, and one of them is needed."""
    if args.registry is not None and args.target is not None:
        args.parser.error("give either TARGET or --registry, not both")
    if args.registry is None and args.target is None:
        args.parser.error(f"give a TARGET to {verb}, or --registry for registry entries")


def _check_executor_options(args: argparse.Namespace) -> None:
    """--scheduler needs --executor dask, --workers needs threads, processes or dask, and the two
    exclude each other (:func:`privaudit.execution.options.executor_flags_problem`)."""
    from privaudit.execution.options import executor_flags_problem

    problem = executor_flags_problem(args.executor, args.scheduler, args.workers)
    if problem is not None:
        args.parser.error(problem)


def _executor(args: argparse.Namespace) -> Any:
    """The context manager of the executor chosen by --executor/--scheduler/--workers."""
    from privaudit.execution.distributed import executor_scope

    return executor_scope(args.executor, scheduler=args.scheduler, n_workers=args.workers)


def _exit_code(report: Any) -> int:
    """1 for a violation, 3 for an inconclusive audit, 0 otherwise."""
    if report.violated:
        return EXIT_VIOLATION
    return EXIT_INCONCLUSIVE if report.inconclusive else EXIT_OK
