"""Checks of an invoice against rules published by others: the official EN 16931 schematron."""

# The release of the official rules in artefacts/ (see its README): part of the cache key, so
# named here, where reading it loads neither lxml nor Saxon.
RULESET_VERSION = "kosit-xrechnung-3.0.2-validator-configuration-2026-08-31"
