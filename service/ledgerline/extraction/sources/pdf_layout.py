"""pdfminer's layout-analysis parameters and the page limit of the text-layer source.

Kept apart from ``pdf_text`` because they enter the cache key (``extraction.versions``), which
every API process computes, and which must not load pdfminer to do so.
"""

LAYOUT_PARAMS = {
    "line_margin": 0.5,
    "char_margin": 2.0,
    "word_margin": 0.15,
    "boxes_flow": None,
    "all_texts": True,
}
MAX_PAGES = 200
