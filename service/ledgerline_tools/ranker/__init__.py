"""Training the field ranker (``ledgerline.extraction.ranker``): its documents (``dataset``) and
the deterministic build of its model file (``train``, ``ledgerline-train``)."""
