from ledgerline.domain.cache import CacheKey, CacheMode, ExtractorVersions, UploadRequest

V1 = ExtractorVersions(schema="invoice-v1", preprocessing="p1", model="m1", model_config_digest="c1")


def key(**overrides):
    fields = dict(account="acme", content_hash="blake3:ab", versions=V1) | overrides
    return CacheKey(**fields).digest


def test_same_inputs_give_the_same_key():
    assert key() == key()


def test_every_input_changes_the_key():
    variants = [
        key(account="other"),
        key(content_hash="blake3:cd"),
        key(versions=ExtractorVersions("invoice-v2", "p1", "m1", "c1")),
        key(versions=ExtractorVersions("invoice-v1", "p2", "m1", "c1")),
        key(versions=ExtractorVersions("invoice-v1", "p1", "m2", "c1")),
        key(versions=ExtractorVersions("invoice-v1", "p1", "m1", "c2")),
    ]
    assert key() not in variants
    assert len(set(variants)) == len(variants)


def test_key_parts_cannot_run_into_each_other():
    # "ab" + "c" must not collide with "a" + "bc"
    assert key(account="acme-a", content_hash="blake3:b") != key(account="acme", content_hash="-ablake3:b")


def test_request_hash_separates_fresh_processing_from_a_plain_upload():
    plain = UploadRequest("acme", "blake3:ab", fresh=False).request_hash
    fresh = UploadRequest("acme", "blake3:ab", fresh=True).request_hash
    other_bytes = UploadRequest("acme", "blake3:cd", fresh=False).request_hash
    assert len({plain, fresh, other_bytes}) == 3


def test_request_hash_does_not_depend_on_extractor_versions():
    # Idempotency is about the operation the caller asked for, not about our versions:
    # a retry after a deploy is still the same operation.
    assert UploadRequest("acme", "blake3:ab", False).request_hash == \
        UploadRequest("acme", "blake3:ab", False).request_hash


def test_cache_modes():
    assert CacheMode.ON.serves_results and CacheMode.ON.joins_in_flight
    assert not CacheMode.OFF.serves_results and CacheMode.OFF.joins_in_flight
    assert not CacheMode.OFF.records_results
    assert not CacheMode.SHADOW.serves_results and not CacheMode.SHADOW.joins_in_flight
    assert CacheMode.SHADOW.records_results
