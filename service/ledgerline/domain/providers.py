"""Rules about paid models: which provider, what a call costs, how a retry is told apart from
new work, when a throttled call waits, and how a candidate model is compared with the serving one.

Plain Python: the adapters (adapters/providers) call the providers, the worker records what
these rules say in the call ledger.
"""
from __future__ import annotations

import enum
import hashlib
import math
from dataclasses import dataclass
from decimal import Decimal

# The ledger's operation for a candidate provider's calls (shadow spend, never served).
SHADOW_OPERATION = "shadow_extract_invoice"
MILLION = Decimal(1_000_000)
MICRO_USD = Decimal("0.000001")


class Provider(str, enum.Enum):
    RULES = "rules"        # the local rule set, sandboxed; a flat configured price per call
    TEXTRACT = "textract"  # AWS Textract AnalyzeExpense
    OPENAI = "openai"      # any OpenAI-compatible chat-completions endpoint


# --- what a call costs --------------------------------------------------------------------

def token_cost(input_tokens: int, output_tokens: int, *, input_per_mtok: Decimal,
               output_per_mtok: Decimal) -> Decimal:
    """USD for a chat completion's `usage`, at prices per million tokens."""
    cost = (input_tokens * input_per_mtok + output_tokens * output_per_mtok) / MILLION
    return cost.quantize(MICRO_USD)


def page_cost(pages: int, price_per_page: Decimal) -> Decimal:
    return (pages * price_per_page).quantize(MICRO_USD)


def estimated_tokens(text: str) -> int:
    """An estimate of a text's tokens before the provider counts them: about four bytes of
    UTF-8 a token for Latin-script text (the provider's `usage` replaces it). Used for the
    ledger's cost of a call whose answer never came back, and for sizing page windows."""
    return max(1, -(-len(text.encode("utf-8")) // 4))


# OpenAI's published rule for an image at `detail: high`: scaled to fit 2048 x 2048, then its
# shorter side to 768, and counted as a base plus a price per 512-pixel tile.
IMAGE_FIT, IMAGE_SHORT_SIDE, IMAGE_TILE = 2048, 768, 512
IMAGE_BASE_TOKENS, IMAGE_TILE_TOKENS = 85, 170


def image_tokens(width: int, height: int) -> int:
    """An estimate of a page image's input tokens (the provider's `usage` replaces it)."""
    scale = min(1.0, IMAGE_FIT / max(width, height))
    shorter = min(width, height) * scale
    if shorter > IMAGE_SHORT_SIDE:
        scale *= IMAGE_SHORT_SIDE / shorter
    tiles = math.ceil(width * scale / IMAGE_TILE) * math.ceil(height * scale / IMAGE_TILE)
    return IMAGE_BASE_TOKENS + IMAGE_TILE_TOKENS * tiles


# --- idempotency towards the provider ----------------------------------------------------

TOKEN_LENGTH = 64  # Textract's ClientRequestToken: 1-64 of [a-zA-Z0-9-_]


def client_request_token(job_id: str, provider: Provider) -> str:
    """The provider's idempotency token for a job: derived from the job's identity, never from
    the attempt, so a recovery worker that restarts a lost job sends the same token and the
    provider returns the job it already started (and charges once). A new job (a retry asked
    for on purpose, a `Cache-Control: no-cache` upload) is new work and gets a new token."""
    digest = hashlib.sha256(f"ledgerline:{provider.value}:{job_id}".encode()).hexdigest()
    return f"ll-{digest}"[:TOKEN_LENGTH]


# --- throttling -----------------------------------------------------------------------------

THROTTLE_BASE_SECONDS = 1.0
THROTTLE_CAP_SECONDS = 60.0


def throttle_delay(consecutive: int, retry_after: float | None = None) -> float:
    """How long to wait after the `consecutive`-th throttled answer in a row: what the provider
    asked for (Retry-After) when it said, else exponential backoff, capped either way."""
    backoff = THROTTLE_BASE_SECONDS * (2 ** max(0, consecutive - 1))
    wanted = retry_after if retry_after is not None and retry_after >= 0 else backoff
    return min(THROTTLE_CAP_SECONDS, wanted)


# --- shadow comparison ----------------------------------------------------------------------

class Agreement(str, enum.Enum):
    AGREE = "agree"                    # both found the same value
    DIFFER = "differ"                  # both found a value, not the same
    ONLY_SERVING = "only_serving"      # the candidate missed what the serving provider found
    ONLY_CANDIDATE = "only_candidate"  # the candidate found what the serving provider missed
    NEITHER = "neither"                # neither found one


def in_shadow_sample(job_id: str, rate: float) -> bool:
    """Whether a miss is in the candidate's sample: a stable function of the job, so that a
    retried attempt of the same job makes the same decision."""
    if rate <= 0:
        return False
    bucket = int(hashlib.sha256(f"shadow:{job_id}".encode()).hexdigest()[:8], 16)
    return bucket / 0xFFFFFFFF < rate


def compare_fields(serving: dict, candidate: dict, names) -> dict[str, Agreement]:
    """Per field, how the candidate's value relates to the serving one. Values are compared as
    published (after the port's normalisation): exact, since an amount or an invoice number that
    is almost right is wrong."""
    verdicts = {}
    for name in names:
        mine = (serving.get(name) or {}).get("value")
        theirs = (candidate.get(name) or {}).get("value")
        if mine is None and theirs is None:
            verdicts[name] = Agreement.NEITHER
        elif mine is None:
            verdicts[name] = Agreement.ONLY_CANDIDATE
        elif theirs is None:
            verdicts[name] = Agreement.ONLY_SERVING
        else:
            verdicts[name] = Agreement.AGREE if mine == theirs else Agreement.DIFFER
    return verdicts


@dataclass(frozen=True)
class FieldAgreement:
    """One field's agreement over many comparisons."""
    field: str
    compared: int
    agree: int
    differ: int
    only_serving: int
    only_candidate: int
    neither: int

    @property
    def rate(self) -> float | None:
        """Agreement where at least one side found a value; None when neither ever did."""
        found = self.compared - self.neither
        return self.agree / found if found else None
