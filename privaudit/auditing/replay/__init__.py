"""Grey-box replay of pipelines that call DP primitives (``docs/replay.md``):
:mod:`~privaudit.auditing.replay.recorder` (the noise source a pipeline takes),
:mod:`~privaudit.auditing.replay.driver` (record, replay on neighbours, check;
``privaudit.replay`` adds the isolation audits of :mod:`~privaudit.auditing.replay_audit`),
:mod:`~privaudit.auditing.replay.check` (the replay check inside ``audit()``),
:mod:`~privaudit.auditing.replay.adapters` (OpenDP and diffprivlib primitives),
:mod:`~privaudit.auditing.replay.target` (what the CLI and the fixture run),
:mod:`~privaudit.auditing.replay.pipeline_mechanism` (a pipeline as a mechanism) and
:mod:`~privaudit.auditing.replay.result` (what it found)."""

from privaudit.auditing.replay.driver import replay
from privaudit.auditing.replay.pipeline_mechanism import PipelineMechanism, flatten_release
from privaudit.auditing.replay.recorder import NoiseRecorder, PrimitiveCall
from privaudit.auditing.replay.result import (
    IsolatedAudit,
    RecordedCall,
    ReplayFinding,
    ReplayReport,
)
from privaudit.auditing.replay.target import ReplayTarget

__all__ = [
    "IsolatedAudit",
    "NoiseRecorder",
    "PipelineMechanism",
    "PrimitiveCall",
    "RecordedCall",
    "ReplayFinding",
    "ReplayReport",
    "ReplayTarget",
    "flatten_release",
    "replay",
]
