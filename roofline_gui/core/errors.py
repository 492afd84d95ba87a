"""Typed errors of the core. Every message names the field or JSON path at fault."""

from __future__ import annotations

from dataclasses import dataclass

from roofline_gui.core.i18n import ngettext


class RooflineError(Exception):
    """Base class: any error the app reports to the user as a message, not a traceback."""


class UnitError(RooflineError, ValueError):
    """A typed value could not be parsed or is out of range."""


@dataclass(frozen=True)
class Problem:
    """One validation problem: where (a JSON path such as ``kernels[2].params.m``) and what."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ValidationError(RooflineError):
    """A document, preset or import did not validate. Holds every problem found."""

    def __init__(self, problems: list[Problem] | tuple[Problem, ...], source: str = "") -> None:
        self.problems = tuple(problems)
        self.source = source
        head = f"{source}: " if source else ""
        lines = "\n".join(f"  {p}" for p in self.problems)
        count = ngettext("{n} problem", "{n} problems", len(self.problems)).format(
            n=len(self.problems))
        super().__init__(f"{head}{count}\n{lines}")


class SessionVersionError(RooflineError):
    """The session file was written by a newer version of the app."""


class EditRefused(RooflineError):
    """An edit that would break a rule of the domain (a chip without any compute ceiling, or
    without its main memory); the document stays as it was. ``problems`` names each field
    refused where the rule is a field's, so a view can say it in its own words."""

    def __init__(self, message: str, problems: tuple[Problem, ...] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)
