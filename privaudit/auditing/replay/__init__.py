"""Grey-box replay of pipelines that call DP primitives: :mod:`~privaudit.auditing.replay.
recorder` (the noise source a pipeline takes), :mod:`~privaudit.auditing.replay.driver`
(record, replay on neighbours, check) and :mod:`~privaudit.auditing.replay.result` (what
it found)."""

__all__: list[str] = []
