"""Checks of an invoice against rules published by others: the official EN 16931 schematron."""

# The release of the official rules in artefacts/ (see its README): part of the cache key, so
# named here, where reading it loads neither lxml nor Saxon.
RULESET_VERSION = "kosit-xrechnung-3.0.2-validator-configuration-2026-08-31"

# What the rules' engine can read: the JDK's jdk.xml.maxElementDepth and elementAttributeLimit
# as Saxon sets them (namespace declarations count as attributes), and names well inside its
# maxXMLNameLimit (1,000 characters, prefix included). A document beyond them is not checked
# at all, so the XML reader refuses it first (sources/xml_parsing.py); no e-invoice comes near.
ENGINE_LIMITS = {"depth": 100, "attributes": 200, "name": 200}
