"""Checks of an invoice against rules published by others: the official EN 16931 schematron."""
