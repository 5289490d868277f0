"""Bound parameters of the statements built and compiled once per process (the hit, the claim,
the publish): each execution only binds its values.

Their names carry a prefix that is never a column's name: an UPDATE's or INSERT's `.values()`
takes a parameter named as one of its columns for a value to set.
"""
from __future__ import annotations

from sqlalchemy import bindparam

PREFIX = "b_"


def param(name: str, type_):
    """The parameter `name`, bound as `type_`."""
    return bindparam(PREFIX + name, type_=type_)


def columns(table, *names: str) -> dict:
    """Parameters for these columns of `table`, typed as the columns are."""
    return {name: param(name, table.c[name].type) for name in names}


def values(**given) -> dict:
    """The values an execution binds to the parameters of these names."""
    return {PREFIX + name: value for name, value in given.items()}
