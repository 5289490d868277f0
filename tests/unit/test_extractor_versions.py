from ledgerline.adapters.extractor import PdfExtractor


def test_text_only_extraction_never_shares_a_cache_key_with_the_full_extractor():
    full, text_only = PdfExtractor().versions, PdfExtractor(use_embedded_xml=False).versions
    assert full.model_config_digest != text_only.model_config_digest
    assert (full.schema, full.preprocessing, full.model) == \
        (text_only.schema, text_only.preprocessing, text_only.model)
