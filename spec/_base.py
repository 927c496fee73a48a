"""The base class of every spec model: frozen, strict about extra fields, hashable by content.

Compatibility contract (after ``dp_accounting/dp_event.py``):

* a field's meaning never changes; a new meaning gets a new field or a new ``kind``;
* new fields are optional with a default that keeps old specs valid;
* unknown ``kind`` values are refused, never guessed.

The content hash is the SHA-256 of the canonical JSON of the model (sorted keys,
no whitespace, shortest float repr), prefixed with the schema generation.  The same
claims always hash the same; any change of a claim changes the hash.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import InvalidParameterError, PrivauditError

__all__ = ["SpecModel", "HASH_SCHEMA"]

#: Bumped only when the canonical serialisation itself changes.
HASH_SCHEMA = "privaudit-spec-v1"


def _translate(err: ValidationError, model: str) -> PrivauditError:
    """Turn a pydantic ValidationError into an error of our hierarchy.

    A validator that raised one of our own errors gets it back (with the field path
    prepended); anything else becomes an :class:`InvalidParameterError` that names the
    field and the offending value.
    """
    first = err.errors(include_url=False)[0]
    loc = ".".join(str(p) for p in first.get("loc", ())) or "<model>"
    ctx = first.get("ctx") or {}
    original = ctx.get("error")
    if isinstance(original, PrivauditError):
        cls = type(original)
        msg = str(original)
        return cls(f"{model}.{loc}: {msg}" if loc != "<model>" else f"{model}: {msg}")
    value = first.get("input")
    shown = repr(value)
    if len(shown) > 120:
        shown = shown[:117] + "..."
    return InvalidParameterError(f"{model}.{loc} = {shown}: {first.get('msg')}")


class SpecModel(BaseModel):
    """Frozen pydantic model with ``extra="forbid"`` and a stable content hash.

    Construction errors are raised as :class:`spec.errors.SpecError` subclasses (which
    are also ``ValueError``), never as bare pydantic errors.
    """

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        strict=False,
        validate_default=True,
        arbitrary_types_allowed=False,
        ser_json_inf_nan="strings",
    )

    _translate_errors: ClassVar[bool] = True

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as err:
            raise _translate(err, type(self).__name__) from None

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> Self:
        try:
            return super().model_validate(obj, *args, **kwargs)
        except ValidationError as err:
            raise _translate(err, cls.__name__) from None

    @classmethod
    def model_validate_json(  # type: ignore[override]  # pydantic's keywords go via **kwargs
        cls, json_data: str | bytes, *args: Any, **kwargs: Any
    ) -> Self:
        try:
            return super().model_validate_json(json_data, *args, **kwargs)
        except ValidationError as err:
            raise _translate(err, cls.__name__) from None

    # -- serialisation and identity -------------------------------------------------
    def canonical_json(self) -> str:
        """Canonical JSON: sorted keys, no whitespace; the input of :attr:`content_hash`."""
        return json.dumps(
            self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=True
        )

    @property
    def content_hash(self) -> str:
        """``"sha256:<hex>"`` of the canonical JSON; equal claims hash equal."""
        digest = hashlib.sha256(f"{HASH_SCHEMA}\n{self.canonical_json()}".encode()).hexdigest()
        return f"sha256:{digest}"

    def to_json(self, *, indent: int | None = 2) -> str:
        """Readable JSON that :meth:`from_json` turns back into an equal model."""
        return self.model_dump_json(indent=indent)

    @classmethod
    def from_json(cls, text: str | bytes) -> Self:
        """Parse JSON written by :meth:`to_json` (or any equivalent JSON)."""
        return cls.model_validate_json(text)
