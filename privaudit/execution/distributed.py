"""Audits on ``dask.distributed``: the test splits drawn and counted on Dask workers.

:class:`DaskExecutor` implements the streaming
:class:`~privaudit.execution.streaming.Executor` protocol on ``dask.distributed``: the work
of a split is pickled once and broadcast, each task draws a chunk of blocks from the root
seed and sends back counts only, and the client gathers them in order, so the result is
the serial executor's, bit for bit.  Dask schedules the tasks; privaudit builds no
scheduler, queue or worker pool of its own.  Needs the extra ``privaudit[distributed]``.

References: Rocklin, SciPy 2015; NumPy NEP 19.  Details: ``docs/engine_notes.md``,
"privaudit.execution.distributed"; ``docs/distributed.md``.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import itertools
import logging
import sys
import threading
import uuid
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator
from types import ModuleType
from typing import Any, TypeVar

from privaudit._version import __version__
from privaudit.execution.forked import ForkedPairsExecutor
from privaudit.execution.options import EXECUTOR_NAMES, WORKER_EXECUTORS
from privaudit.execution.streaming import Executor, SerialExecutor, _positive_int
from privaudit.execution.threads import ThreadExecutor
from privaudit.first_party import is_first_party, is_own
from privaudit.spec.errors import ExecutorError, InvalidParameterError, NotShippableError

__all__ = ["EXECUTOR_NAMES", "DaskExecutor", "executor_scope"]

T = TypeVar("T")
R = TypeVar("R")


#: How to install the extra, quoted in the error raised when it is missing.
_INSTALL = "python3 -m pip install 'privaudit[distributed]'"
#: Seconds to wait for a scheduler (and for its first worker) before giving up.
_CONNECT_TIMEOUT = 30.0
#: Unpickled work kept per worker (one entry per split in flight).
_CACHE_SIZE = 8
#: The most blocks per task: 2²² numbers (32 MB of float64), about a second of drawing
#: and counting for a sparse-vector mechanism; larger tasks only delay the last ones.
MAX_BLOCKS_PER_CHUNK = 16
#: Tasks per worker thread that a split is cut into (when it is large enough): with one
#: task per worker, one slow task idles the others (``docs/engine_notes.md``,
#: "privaudit.execution.distributed"); four per worker keep every worker busy to the end
#: while Dask's per-task cost stays small beside the work.
TASKS_PER_WORKER = 4
_TRIM_KEY = "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"


def _import_distributed() -> tuple[ModuleType, ModuleType]:
    """``(distributed, cloudpickle)``, or an :class:`ExecutorError` naming the extra."""
    try:
        import cloudpickle
        import distributed
    except ImportError as err:
        raise ExecutorError(
            f"the Dask executor needs dask.distributed, which is not installed ({err}); "
            f"install the extra with: {_INSTALL}"
        ) from None
    return distributed, cloudpickle


def _register_scripts_by_value(cloudpickle: ModuleType) -> None:
    """Ship the code of modules that the workers cannot import by name.

    A mechanism defined in a user's script, in a file given as a CLI target or in a test
    module lives in a module the workers do not have; ``cloudpickle`` would pickle its
    functions and classes by reference (module + name) and the workers would fail to
    import them.  Every first-party module (:func:`privaudit.first_party.is_first_party`:
    no installed distribution provides it) that is not privaudit's own is registered to
    be pickled by value.  privaudit's own packages and every installed distribution —
    in the environment, on ``PYTHONPATH``, in a user site directory — are imported by
    name on the workers, which must have them installed.
    """
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if (
            not path
            or not str(path).endswith(".py")
            or name == "__main__"
            or not is_first_party(name)
            or is_own(name)
        ):
            continue
        with contextlib.suppress(ValueError):  # e.g. already registered, or a package
            cloudpickle.register_pickle_by_value(module)


#: How deep :func:`_unpicklable_part` looks into the object that failed to pickle.
_SEARCH_DEPTH = 8


def _parts(obj: Any) -> Iterator[tuple[str, Any]]:
    """(label, value) of what pickling ``obj`` pickles too: a partial's function and
    arguments, a function's closure and the globals it names, a bound method's object,
    a container's items and an object's attributes."""
    if isinstance(obj, functools.partial):
        yield ".func", obj.func
        yield from ((f".args[{i}]", a) for i, a in enumerate(obj.args))
        yield from ((f".keywords[{k!r}]", v) for k, v in obj.keywords.items())
    elif inspect.ismethod(obj):
        yield ".__self__", obj.__self__
        yield ".__func__", obj.__func__
    elif inspect.isfunction(obj):
        cells = zip(obj.__code__.co_freevars, obj.__closure__ or (), strict=False)
        for var, cell in cells:
            with contextlib.suppress(ValueError):  # an empty cell
                yield f" (captured {var})", cell.cell_contents
        for var in obj.__code__.co_names:
            if var in obj.__globals__ and not isinstance(obj.__globals__[var], ModuleType):
                yield f" (global {var})", obj.__globals__[var]
    elif isinstance(obj, dict):
        yield from ((f"[{k!r}]", v) for k, v in obj.items())
    elif isinstance(obj, (list, tuple, set, frozenset)):
        yield from ((f"[{i}]", v) for i, v in enumerate(obj))
    else:
        yield from ((f".{k}", v) for k, v in getattr(obj, "__dict__", {}).items())
        for slot in getattr(type(obj), "__slots__", ()):
            if isinstance(slot, str) and hasattr(obj, slot):
                yield f".{slot}", getattr(obj, slot)


def _unpicklable_part(cloudpickle: ModuleType, obj: Any, label: str) -> tuple[str, Any]:
    """The innermost part of ``obj`` that does not pickle: (its path from ``label``, it)."""
    for _ in range(_SEARCH_DEPTH):
        for name, part in _parts(obj):
            try:
                cloudpickle.dumps(part)
            except Exception:  # noqa: BLE001 - any failure marks the culprit
                obj, label = part, label + name
                break
        else:
            break
    return label, obj


def _dumps(cloudpickle: ModuleType, obj: Any, what: str) -> bytes:
    """``obj`` pickled for the workers, or a :class:`NotShippableError` that names the
    part of ``obj`` (``what``) that cannot be pickled and its type."""
    _register_scripts_by_value(cloudpickle)
    try:
        return cloudpickle.dumps(obj)
    except Exception as err:  # noqa: BLE001 - pickling raises many types; all mean "cannot ship"
        path, part = _unpicklable_part(cloudpickle, obj, what)
        kind = type(part)
        raise NotShippableError(
            f"{what} cannot be pickled for the Dask workers: {path} is a "
            f"{kind.__module__}.{kind.__qualname__}, which cannot be sent to another process "
            f"({type(err).__name__}: {err}); objects such as locks, open files, sockets and "
            "live generators cannot be pickled (functions, lambdas and closures can: "
            "cloudpickle ships them); use the serial executor, or hold that object "
            "elsewhere"
        ) from None


# -- worker side ---------------------------------------------------------------------------
_SHIPPED: OrderedDict[str, Callable[[Any], Any]] = OrderedDict()
_SHIPPED_LOCK = threading.Lock()


def _run_chunk(token: str, version: str, data: bytes, item: Any) -> Any:
    """On a worker: the shipped function (unpickled once per worker) applied to ``item``."""
    with _SHIPPED_LOCK:
        fn = _SHIPPED.get(token)
        if fn is None:
            if version != __version__:
                raise ExecutorError(
                    f"a Dask worker runs privaudit {__version__}, the client {version}: "
                    "install the same version of privaudit on every worker"
                )
            import cloudpickle

            try:
                fn = cloudpickle.loads(data)
            except Exception as err:  # noqa: BLE001 - a failed import or unpickling
                raise NotShippableError(
                    f"a Dask worker could not unpickle the audit's work "
                    f"({type(err).__name__}: {err}); every module the mechanism imports by "
                    f"name must be installed on the workers, and privaudit at version "
                    f"{version}"
                ) from None
            _SHIPPED[token] = fn
            while len(_SHIPPED) > _CACHE_SIZE:
                _SHIPPED.popitem(last=False)
    return fn(item)


# -- client side ---------------------------------------------------------------------------
_END = object()
_QUIET: dict[str, Any] = {"open": 0, "stack": None}
_QUIET_LOCK = threading.Lock()


@contextlib.contextmanager
def _quiet_local_logs(distributed: ModuleType) -> Iterator[None]:
    """``distributed``'s stream handlers at ERROR while any local cluster of ours is open
    (counted, so executors may be closed in any order)."""
    quiet = getattr(distributed.utils, "silence_logging_cmgr", None)
    with _QUIET_LOCK:
        if _QUIET["open"] == 0 and quiet is not None:
            stack = contextlib.ExitStack()
            stack.enter_context(quiet(logging.ERROR))
            _QUIET["stack"] = stack
        _QUIET["open"] += 1
    try:
        yield
    finally:
        with _QUIET_LOCK:
            _QUIET["open"] -= 1
            if _QUIET["open"] == 0 and _QUIET["stack"] is not None:
                _QUIET["stack"].close()
                _QUIET["stack"] = None


class DaskExecutor:
    """The streaming :class:`~privaudit.execution.streaming.Executor` on ``dask.distributed``.

    Parameters
    ----------
    scheduler : str, optional
        Address of a running Dask scheduler (``"tcp://host:8786"``).  Without one, a
        ``LocalCluster`` is started on first use and closed by :meth:`close`.
    n_workers : int, optional
        Workers of the local cluster (default: Dask's choice from the cores).  Ignored
        with ``scheduler``.
    processes : bool
        Local workers are processes (default) or threads of this process.
    blocks_per_chunk : int, optional
        Blocks per task (a block is 2¹⁸ numbers: :func:`~privaudit.execution.streaming.block_rows`).
        Default: chosen per split by :meth:`blocks_for` from the split's size and the
        worker count.  The results do not depend on it.
    max_in_flight : int, optional
        Tasks submitted ahead of the one being gathered (default 4 per worker thread),
        which bounds the counts held by the client.
    client : distributed.Client, optional
        An existing client to use (it is not closed by :meth:`close`).
    timeout : float
        Seconds to wait for the scheduler and its workers (default 30).

    Notes
    -----
    Use it as a context manager, or call :meth:`close`::

        with DaskExecutor("tcp://scheduler:8786") as run:
            report = audit(mechanism, executor=run)

    The whole work of a split is pickled once (``cloudpickle``) and broadcast to the
    workers; each task sends back one chunk's counts.  Workers need privaudit installed
    at the client's version (checked), and every package the mechanism imports.
    """

    def __init__(
        self,
        scheduler: str | None = None,
        *,
        n_workers: int | None = None,
        processes: bool = True,
        blocks_per_chunk: int | None = None,
        max_in_flight: int | None = None,
        client: Any = None,
        timeout: float = _CONNECT_TIMEOUT,
    ) -> None:
        _import_distributed()  # the extra is missing: say so now, not at first use
        if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
            raise InvalidParameterError(
                f"scheduler must be an address such as 'tcp://host:8786', got {scheduler!r}"
            )
        if scheduler is not None and client is not None:
            raise InvalidParameterError("give either a scheduler address or a client, not both")
        self.scheduler = scheduler
        self.n_workers = None if n_workers is None else _positive_int(n_workers, "n_workers")
        self.processes = bool(processes)
        self.blocks_per_chunk = (
            None
            if blocks_per_chunk is None
            else _positive_int(blocks_per_chunk, "blocks_per_chunk")
        )
        self.max_in_flight = (
            None if max_in_flight is None else _positive_int(max_in_flight, "max_in_flight")
        )
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise InvalidParameterError(f"timeout must be a number of seconds > 0, got {timeout!r}")
        self.timeout = float(timeout)
        self._client = client
        self._owns_client = False
        self._cluster: Any = None
        self._quiet = contextlib.ExitStack()

    # -- life cycle --------------------------------------------------------------------------
    @property
    def client(self) -> Any:
        """The ``distributed.Client`` (connects, or starts the local cluster, on first use)."""
        if self._client is None:
            self._start()
        return self._client

    def _start(self) -> None:
        distributed, _ = _import_distributed()
        if self.scheduler is not None:
            try:
                self._client = distributed.Client(
                    self.scheduler, timeout=self.timeout, set_as_default=False
                )
            except (OSError, TimeoutError) as err:
                raise ExecutorError(
                    f"cannot connect to the Dask scheduler at {self.scheduler!r}: "
                    f"{type(err).__name__}: {err}"
                ) from None
        else:
            # the local scheduler and nannies run in this process: their INFO lines (workers
            # starting and closing) would bury the audit's output; errors still show
            self._quiet.enter_context(_quiet_local_logs(distributed))
            import dask

            # Dask's nannies set MALLOC_TRIM_THRESHOLD_ in their workers, which turns off
            # glibc's dynamic mmap threshold: every large numpy temporary is then mapped
            # and zeroed afresh, and counting ran 2.5-3x slower than in this process
            # (docs/distributed.md); local workers keep glibc's default
            try:
                with dask.config.set({_TRIM_KEY: None}):
                    self._cluster = distributed.LocalCluster(
                        n_workers=self.n_workers,
                        threads_per_worker=1,
                        processes=self.processes,
                        dashboard_address=":0",
                        silence_logs=logging.ERROR,
                    )
            except (OSError, RuntimeError, TimeoutError) as err:
                self._quiet.close()
                raise ExecutorError(
                    f"could not start a local Dask cluster of {self.n_workers or 'default'} "
                    f"workers: {type(err).__name__}: {err}"
                ) from None
            self._client = distributed.Client(self._cluster, set_as_default=False)
        self._owns_client = True

    def close(self) -> None:
        """Close the client and the local cluster that this executor started."""
        if self._owns_client and self._client is not None:
            self._client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None
        self._owns_client = False
        self._quiet.close()

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def worker_threads(self) -> int:
        """Threads over all workers of the cluster (what runs tasks at once)."""
        return int(sum(self.client.nthreads().values()))

    # -- work --------------------------------------------------------------------------------
    def blocks_for(self, n_blocks: int) -> int:
        """Blocks per task for a split of ``n_blocks`` blocks.

        The split is cut into about :data:`TASKS_PER_WORKER` tasks per worker thread, of
        at most :data:`MAX_BLOCKS_PER_CHUNK` blocks and at least one: every worker gets
        work, and the tasks are small enough that the last ones finish together.  A
        ``blocks_per_chunk`` given to the constructor is used as it is.
        """
        if self.blocks_per_chunk is not None:
            return self.blocks_per_chunk
        tasks = TASKS_PER_WORKER * max(1, self.worker_threads)
        return max(1, min(MAX_BLOCKS_PER_CHUNK, -(-max(1, int(n_blocks)) // tasks)))

    def check_shippable(self, obj: Any, what: str) -> None:
        """Raise :class:`~spec.errors.NotShippableError` naming ``what`` if ``obj`` cannot be
        pickled for the workers."""
        _, cloudpickle = _import_distributed()
        _dumps(cloudpickle, obj, what)

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """``fn`` applied to every item on the workers; the results in the items' order.

        ``fn`` is pickled here (so an unpicklable one fails at once, with
        :class:`~spec.errors.NotShippableError`) and broadcast to the workers; the items
        are submitted as they are gathered, at most :attr:`max_in_flight` ahead.
        """
        work = list(items)
        if not work:
            return iter(())
        _, cloudpickle = _import_distributed()
        payload = _dumps(
            cloudpickle, fn, "the audit's work (the mechanism, its inputs and the counting)"
        )
        client = self.client
        # one bytes object: scattered once to every worker, not once per task
        shipped = client.scatter(payload, broadcast=True, hash=False, timeout=self.timeout)
        window = self.max_in_flight or 4 * max(1, self.worker_threads)
        return self._gather(client, uuid.uuid4().hex, shipped, work, window)

    def _gather(
        self, client: Any, token: str, shipped: Any, work: list[Any], window: int
    ) -> Iterator[Any]:
        distributed, _ = _import_distributed()
        todo = iter(work)
        pending: deque[Any] = deque(
            client.submit(_run_chunk, token, __version__, shipped, item, pure=False)
            for item in itertools.islice(todo, window)
        )
        try:
            while pending:
                future = pending.popleft()
                try:
                    result = future.result()
                except (
                    distributed.KilledWorker,
                    distributed.client.FutureCancelledError,
                    OSError,
                ) as err:
                    raise ExecutorError(
                        f"the Dask cluster failed while counting a chunk: "
                        f"{type(err).__name__}: {err}"
                    ) from None
                nxt = next(todo, _END)
                if nxt is not _END:
                    pending.append(
                        client.submit(_run_chunk, token, __version__, shipped, nxt, pure=False)
                    )
                yield result
        finally:
            if pending:
                client.cancel(list(pending))
            client.cancel([shipped])

    def __repr__(self) -> str:
        where = self.scheduler or (
            f"LocalCluster(n_workers={self.n_workers}, processes={self.processes})"
        )
        return f"DaskExecutor({where})"


@contextlib.contextmanager
def executor_scope(
    executor: Executor | str | None, *, scheduler: str | None = None, n_workers: int | None = None
) -> Iterator[Executor]:
    """The executor an audit runs on, and its life cycle.

    Parameters
    ----------
    executor : Executor, "serial", "threads", "processes", "dask" or None
        An executor object is used as it is (and not closed); ``None`` and ``"serial"``
        give the :class:`~privaudit.execution.streaming.SerialExecutor`; ``"threads"`` a
        :class:`~privaudit.execution.threads.ThreadExecutor` of ``n_workers`` threads
        (default: one per core); ``"processes"`` a
        :class:`~privaudit.execution.forked.ForkedPairsExecutor` (the pair tests in up to
        ``n_workers`` forked processes, default one per core; Linux only); ``"dask"``
        starts a :class:`DaskExecutor` (on ``scheduler``, or on a local cluster of
        ``n_workers``).  An executor started here
        is closed when the scope ends.
    scheduler : str, optional
        For ``"dask"`` only.
    n_workers : int, optional
        For ``"threads"``, ``"processes"`` and ``"dask"``.

    Raises
    ------
    InvalidParameterError
        For an unknown name, an object without ``map``, a scheduler address with another
        executor than ``"dask"``, or a number of workers with another executor than
        ``"threads"`` or ``"dask"``.
    """
    if scheduler is not None and executor != "dask":
        raise InvalidParameterError(
            f"a scheduler address needs executor='dask', got executor={executor!r}"
        )
    if n_workers is not None and executor not in WORKER_EXECUTORS:
        raise InvalidParameterError(
            f"a number of workers needs executor='threads' or 'dask', got executor={executor!r}"
        )
    if executor is None or executor == "serial":
        yield SerialExecutor()
    elif executor == "threads":
        with ThreadExecutor(n_workers) as threads:
            yield threads
    elif executor == "processes":
        yield ForkedPairsExecutor(n_workers)
    elif executor == "dask":
        with DaskExecutor(scheduler, n_workers=n_workers) as run:
            yield run
    elif isinstance(executor, str):
        raise InvalidParameterError(
            f"executor must be one of {', '.join(EXECUTOR_NAMES)} or an Executor object, "
            f"got {executor!r}"
        )
    elif isinstance(executor, Executor):
        yield executor
    else:
        raise InvalidParameterError(
            f"executor must be one of {', '.join(EXECUTOR_NAMES)} or an object with a "
            f"map(fn, items) method, got {type(executor).__name__}"
        )
