"""The official EN 16931 rules, and XRechnung's where an invoice claims to be one, run on the XML.

The rules are the CEN's and KoSIT's own schematron, compiled to XSLT 2.0 (``artefacts/``; see
its README for versions, licences and ``scripts/fetch-schematron``) and run by Saxon-HE
(saxonche). Compiling a stylesheet takes about half a second, so each is compiled once per
process and kept; the sandbox's fork server compiles them all before it forks its children
(``warm``), which also keeps Saxon's large address-space reservation out of the children's
memory limit. A check that cannot run says why instead of passing.

Saxon never sees the original bytes: it gets the document as the hardened reader parsed it.
"""

from __future__ import annotations

import re
import resource
import threading
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from ..sources.xml_parsing import serialise

ARTEFACTS = Path(__file__).with_name("artefacts")
EN16931 = {"UBL": "EN16931-UBL-validation.xsl", "CII": "EN16931-CII-validation.xsl"}
XRECHNUNG = {"UBL": "XRechnung-UBL-validation.xsl", "CII": "XRechnung-CII-validation.xsl"}
# Customisation / guideline ids that claim EN 16931 conformance (a CIUS or an extension of it);
# Factur-X MINIMUM and BASIC WL do not, and are not checked against the full rules.
EN16931_CLAIM = "urn:cen.eu:en16931:2017"
XRECHNUNG_CLAIM = "xrechnung"
SVRL = "{http://purl.oclc.org/dsdl/svrl}"
RULE_ID = re.compile(r"[A-Z][A-Z0-9-]*")
# Saxon-HE is a GraalVM native image: starting it reserves about 32 GiB of address space (not
# memory), which a process under a smaller RLIMIT_AS cannot get, and the failure is an abort.
SAXON_RESERVATION = 34 * 1024**3


@dataclass(frozen=True)
class Finding:
    rule: str  # "BR-CO-15", "BR-DE-1", ...
    fatal: bool  # flag="fatal" (or "error"); else a warning
    text: str


@dataclass(frozen=True)
class Outcome:
    ran: bool
    rulesets: tuple[str, ...]  # the stylesheets that ran, or the reason nothing did
    findings: tuple[Finding, ...] = ()
    why_not: str = ""

    @property
    def could_not_run(self) -> bool:
        """The rules apply to the invoice but the engine failed on it: nothing was checked."""
        return not self.ran and bool(self.rulesets)


class _Engine:
    """One Saxon processor and the compiled stylesheets of this process."""

    def __init__(self):
        self._lock = threading.Lock()
        self._processor = None
        self._compiled: dict[str, object] = {}

    def executable(self, name: str):
        with self._lock:
            if name not in self._compiled:
                if self._processor is None:
                    _check_room_for_saxon()
                    from saxonche import PySaxonProcessor

                    self._processor = PySaxonProcessor(license=False)
                xslt = self._processor.new_xslt30_processor()
                self._compiled[name] = xslt.compile_stylesheet(
                    stylesheet_file=str(ARTEFACTS / name)
                )
            return self._processor, self._compiled[name]


def _check_room_for_saxon() -> None:
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit != resource.RLIM_INFINITY and limit < _address_space() + SAXON_RESERVATION:
        raise RuntimeError("Saxon was not preloaded, and cannot start under this memory limit")


def _address_space() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


_ENGINE = _Engine()


def warm() -> None:
    """Compile every stylesheet now (the fork server calls this before forking children)."""
    for name in (*EN16931.values(), *XRECHNUNG.values()):
        _ENGINE.executable(name)


def rulesets_for(syntax: str, customisation: str | None) -> list[str]:
    """The stylesheets that apply to an invoice of this syntax and customisation id."""
    claim = (customisation or "").lower()
    if syntax not in EN16931 or EN16931_CLAIM not in claim:
        return []
    names = [EN16931[syntax]]
    if XRECHNUNG_CLAIM in claim:
        names.append(XRECHNUNG[syntax])
    return names


def _findings(svrl_text: str) -> list[Finding]:
    report = etree.fromstring(svrl_text.encode("utf-8"))
    out = []
    for node in report.iter(f"{SVRL}failed-assert", f"{SVRL}successful-report"):
        rule = (node.get("id") or "").strip()
        text_node = node.find(f"{SVRL}text")
        text = " ".join("".join(text_node.itertext()).split()) if text_node is not None else ""
        flag = (node.get("flag") or "fatal").lower()
        out.append(Finding(rule if RULE_ID.fullmatch(rule) else "SCHEMATRON",
                           flag in ("fatal", "error"), text))
    return out


def check(syntax: str, customisation: str | None, root) -> Outcome:
    """Run the rules that apply to the parsed invoice ``root``."""
    names = rulesets_for(syntax, customisation)
    if not names:
        return Outcome(False, (), why_not=f"the official EN 16931 rules apply to UBL and CII "
                       f"invoices that claim conformance; this is {syntax} "
                       f"{customisation or 'without a customisation id'}")
    document = serialise(root)
    findings: list[Finding] = []
    try:
        for name in names:
            processor, executable = _ENGINE.executable(name)
            node = processor.parse_xml(xml_text=document)
            findings += _findings(executable.transform_to_string(xdm_node=node))
    except Exception as exc:  # noqa: BLE001 - Saxon reports everything as its own errors
        return Outcome(False, tuple(names), why_not=f"the schematron engine failed: {exc}"[:300])
    return Outcome(True, tuple(names), tuple(findings))
