"""A psycopg connection that stops waiting for a server that does not answer, and that tells,
without a round trip, whether the server hung up on it.

psycopg waits for every answer (of a statement, a commit, a ping) in `Connection.wait`, with
no deadline unless one is passed. This subclass passes `answer_within` seconds and, when they
run out, closes the connection (its protocol state is unknown) and raises OperationalError,
which SQLAlchemy treats as a disconnect. Written here because neither psycopg nor SQLAlchemy
offers a client-side deadline for a synchronous connection; libpq's own keepalives and
`tcp_user_timeout` cannot see a server whose kernel still acknowledges every packet.

`hung_up` replaces the pool's pre-ping, a round trip as dear as a cache hit's one statement. A
server that ends a connection (a restart, a crash, an administrator's terminate) sends its
farewell and closes the socket; an idle connection that LISTENs to nothing receives nothing
otherwise, so a readable socket while it sits in the pool means it is of no more use. A peer
that vanished without a word is as invisible to a ping as to this look: the keepalives and the
answer deadline find that one.
"""
from __future__ import annotations

import functools
import select

# psycopg converts a statement's %(name)s placeholders to $n at every execution and caches the
# conversion only for statements of up to 4,096 characters (a module constant, no setting).
# The prebuilt hit, claim and publish are longer (the hit about 5,300 characters), and
# converting the hit anew cost 0.1-0.25 ms of a hit's 3 ms in process. They are a handful of
# fixed texts, so a higher bound adds a few entries to psycopg's 128-entry LRU cache.
CACHED_STATEMENT_LENGTH = 16_384


@functools.cache
def answering_connection_class():
    import psycopg
    from psycopg import _queries, errors

    _queries.MAX_CACHED_STATEMENT_LENGTH = max(_queries.MAX_CACHED_STATEMENT_LENGTH,
                                               CACHED_STATEMENT_LENGTH)

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

        def hung_up(self) -> bool:
            """Whether the server closed this idle connection, or said anything unasked."""
            if self.closed or self.broken:
                return True
            try:
                readable, _, _ = select.select([self.fileno()], [], [], 0)
            except ValueError:  # a descriptor beyond select's reach: ask the server instead
                try:
                    self.execute("")
                except psycopg.Error:
                    return True
                return False
            except OSError:
                return True
            return bool(readable)

    return AnsweringConnection
