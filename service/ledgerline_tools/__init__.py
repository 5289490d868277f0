"""Ledgerline's tooling: what builds, trains, measures and feeds the service, never part of it.

- ``samples``: deterministic sample invoices (`ledgerline sample-invoice`, the training and
  benchmark corpora), with their expected fields;
- ``ranker``: training the field ranker's model file (``ledgerline-train``, `make train`);
- ``calibrate_ocr``: fitting the confidence map of OCR'd values (`make calibrate-ocr`);
- ``synthetic_day``: a day of ledger and upload rows of a chosen shape, for reports and benchmarks;
- ``upload_client``: the batch client behind `ledgerline upload`.

It ships in the same distribution as ``ledgerline`` and imports from it; ``ledgerline`` never
imports it (an import-linter contract holds that) and offers its commands through the
``ledgerline.commands`` entry points (``commands.py``). The libraries only the tooling uses come
with the ``tools`` extra (``pip install 'ledgerline[tools]'``), which the image does not install.
"""
