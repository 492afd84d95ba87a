"""One reader per model family, found through one registry.

A family says how to recognise its ``config.json`` (its ``model_type`` values), reads it into a
:class:`~roofline_gui.core.model_config.TransformerConfig`, names the fields the New Workload
dialog shows for it and the unit its throughput counts. The next family is a new module here
and one line in ``FAMILIES``; the builder (:mod:`roofline_gui.core.build`) needs no change unless
the family brings a kind of layer no family had.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from roofline_gui.core.errors import Problem, ValidationError
from roofline_gui.core.families import deepseek, gemma, gpt2, gpt_oss, llama, llama4, qwen3
from roofline_gui.core.families.common import Family
from roofline_gui.core.i18n import _, language
from roofline_gui.core.identity_cache import IdentityCache
from roofline_gui.core.model_config import TransformerConfig

#: Every family, most specific first; the last (Llama-style) reads any other model_type.
FAMILIES: tuple[Family, ...] = (deepseek.FAMILY, qwen3.FAMILY, gpt_oss.FAMILY, llama4.FAMILY,
                                gemma.FAMILY, gpt2.FAMILY, llama.FAMILY)

__all__ = ["FAMILIES", "Family", "family_of", "read_config"]


def family_of(raw: Mapping[str, Any]) -> Family:
    """The family whose reader takes this config (the Llama-style reader for any other)."""
    return next(f for f in FAMILIES if f.recognises(raw))


_READ: IdentityCache[TransformerConfig] = IdentityCache(16)


def read_config(raw: Any, path: str = "config") -> TransformerConfig:
    """Read a Hugging Face-style ``config.json`` through its family's reader; raise
    ValidationError naming every missing, bad or unmodelled field. Read once for the same
    mapping: a batch sweep builds the same model many times."""
    if not isinstance(raw, Mapping):
        raise ValidationError([Problem(path, _("must be an object (a config.json)"))])
    # the language too: a config's notes are in the language they were read in
    return _READ.get((raw, path, language()), lambda: _read(raw, path))


def _read(raw: Mapping[str, Any], path: str) -> TransformerConfig:
    family = family_of(raw)
    cfg, problems = family.read(raw, path)
    if problems:
        raise ValidationError(problems)
    return cfg
