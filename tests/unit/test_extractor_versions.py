import json
import os
import subprocess
import sys

from ledgerline.adapters.extractor import PdfExtractor
from ledgerline.extraction import MODEL_CONFIG


def test_text_only_extraction_never_shares_a_cache_key_with_the_full_extractor():
    full, text_only = PdfExtractor().versions, PdfExtractor(use_embedded_xml=False).versions
    assert full.model_config_digest != text_only.model_config_digest
    assert (full.schema, full.preprocessing, full.model) == \
        (text_only.schema, text_only.preprocessing, text_only.model)


# What only extraction loads: an API process computes the cache key's versions without them.
EXTRACTION_LIBRARIES = ("pdfminer", "numpy", "lightgbm", "lxml", "saxonche", "pypdfium2")


def test_an_api_process_knows_the_cache_keys_versions_without_loading_the_extraction(tmp_path):
    script = """
import json, sys
from ledgerline.wsgi import app
from ledgerline.bootstrap import bootstrap
versions = bootstrap().extractor.versions
loaded = [name for name in sys.argv[1:] if name in sys.modules]
from ledgerline.extraction import pipeline  # what the sandbox's children run
import pdfminer
from ledgerline.adapters.extractor import PdfExtractor
print(json.dumps({"loaded": loaded, "light": repr(versions), "pdfminer": pdfminer.__version__,
                  "full": repr(PdfExtractor().versions)}))
"""
    env = {**os.environ, "LEDGERLINE_DATABASE_URL": f"sqlite:///{tmp_path}/ledgerline.sqlite3",
           "LEDGERLINE_STORAGE_URL": f"file://{tmp_path}/objects"}
    done = subprocess.run([sys.executable, "-c", script, *EXTRACTION_LIBRARIES], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["loaded"] == []
    # the same key as a process that loaded everything: nothing read from metadata drifted
    assert got["light"] == got["full"]
    assert MODEL_CONFIG["pdfminer"] == got["pdfminer"]
