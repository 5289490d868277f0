"""A psycopg connection that stops waiting for a server that does not answer.

psycopg waits for every answer (of a statement, a commit, a ping) in `Connection.wait`, with
no deadline unless one is passed. This subclass passes `answer_within` seconds and, when they
run out, closes the connection (its protocol state is unknown) and raises OperationalError,
which SQLAlchemy treats as a disconnect. Written here because neither psycopg nor SQLAlchemy
offers a client-side deadline for a synchronous connection; libpq's own keepalives and
`tcp_user_timeout` cannot see a server whose kernel still acknowledges every packet.
"""
from __future__ import annotations

import functools


@functools.cache
def answering_connection_class():
    import psycopg
    from psycopg import errors

    class AnsweringConnection(psycopg.Connection):
        answer_within: float | None = None

        def wait(self, gen, interval=0.1, timeout=None):
            if timeout is None:
                timeout = self.answer_within
            try:
                return super().wait(gen, interval=interval, timeout=timeout)
            except errors._WaitTimeout:  # psycopg's own signal that `timeout` ran out
                self.close()
                raise psycopg.OperationalError(
                    f"the database did not answer within {timeout:g} s; connection closed"
                ) from None

    return AnsweringConnection
