"""Any local embedding model: a tiny BERT built here with random weights, saved as a
sentence-transformers folder (mean pooling, a Dense layer, Normalize, query/document prompts),
exported with the CLI and run with onnxruntime; no downloads."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from typer.testing import CliRunner

from agent_memory import AsyncMemory, Settings
from agent_memory.cli.app import app
from agent_memory.embedders import get_embedder
from agent_memory.errors import ConfigError, EmbeddingMismatchError

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None
    or importlib.util.find_spec("sentence_transformers") is None,
    reason="building and exporting the test model needs torch and sentence-transformers",
)

WORDS = ["the", "a", "cat", "sat", "on", "mat", "i", "moved", "to", "lisbon", "in", "and", "started", "bakery", "with", "my", "sister", "dog", "ran", "park", "where", "did", "go"]
TEXTS = ["the cat sat on the mat", "i moved to lisbon and started a bakery", "where did the dog go"]


@pytest.fixture(scope="module")
def st_folder(tmp_path_factory):
    """A sentence-transformers folder: 2-layer BERT (hidden 32) -> mean -> Dense 32x16 (tanh)
    -> Normalize, prompts query "query: " and document "passage: "."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer import modules as models
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers import models as token_models
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    root = tmp_path_factory.mktemp("models")
    hf, folder = root / "tiny-bert", root / "tiny-st"
    vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ":",
                                         "query", "passage", *WORDS])}
    tokenizer = Tokenizer(token_models.WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    torch.manual_seed(7)
    BertModel(BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2,
                         num_attention_heads=2, intermediate_size=37,
                         max_position_embeddings=64)).save_pretrained(hf)
    PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="[UNK]", pad_token="[PAD]",
                            cls_token="[CLS]", sep_token="[SEP]",
                            mask_token="[MASK]").save_pretrained(hf)
    model = SentenceTransformer(
        modules=[models.Transformer(str(hf), max_seq_length=48), models.Pooling(32, "mean"),
                 models.Dense(32, 16), models.Normalize()],
        prompts={"query": "query: ", "document": "passage: "})
    model.save(str(folder))
    return folder


@pytest.fixture(scope="module")
def exported(st_folder, tmp_path_factory):
    """The folder exported with ``agent-memory model export --from`` into a fresh home."""
    home = tmp_path_factory.mktemp("home")
    mp = pytest.MonkeyPatch()
    mp.setenv("AGENT_MEMORY_HOME", str(home))
    result = CliRunner().invoke(app, ["model", "export", "--from", str(st_folder)])
    assert result.exit_code == 0, result.output
    assert "AGENT_MEMORY_EMBEDDER=local:tiny-st" in result.output
    yield home / "models" / "tiny-st"
    mp.undo()


def test_export_records_name_dim_and_prefixes(exported, st_folder, monkeypatch):
    monkeypatch.setenv("AGENT_MEMORY_HOME", str(exported.parents[1]))
    for spec in ("local:tiny-st", f"local:{exported}", f"local:{st_folder}"):
        embedder = get_embedder(spec)
        assert embedder.model_dir == exported
        assert (embedder.name, embedder.dim) == ("local:tiny-st", 16)
        assert (embedder.query_prefix, embedder.document_prefix) == ("query: ", "passage: ")
    with pytest.raises(ConfigError, match="model export --from"):
        get_embedder("local:no-such-model")


def test_embeddings_match_sentence_transformers_with_prefixes(exported, st_folder):
    from sentence_transformers import SentenceTransformer

    embedder = get_embedder(f"local:{exported}")
    reference = SentenceTransformer(str(st_folder))
    documents, queries = embedder.embed_sync(TEXTS), embedder.embed_queries_sync(TEXTS)
    assert documents.shape == queries.shape == (3, 16) and documents.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(documents, axis=1), 1.0, atol=1e-5)
    as_document = reference.encode(TEXTS, prompt_name="document")
    as_query = reference.encode(TEXTS, prompt_name="query")
    assert np.sum(documents * as_document, axis=1).min() > 0.9999
    assert np.sum(queries * as_query, axis=1).min() > 0.9999
    # the prefixes make a difference: a query is not embedded as a document
    assert np.sum(queries * as_document, axis=1).max() < 0.9999
    assert not np.allclose(documents, embedder._embed_texts(TEXTS, ""))


async def test_search_embeds_the_query_with_the_query_prefix(exported, tmp_path):
    embedder = get_embedder(f"local:{exported}")
    seen: list[str] = []
    original = embedder.embed_queries_sync
    embedder.embed_queries_sync = lambda texts: seen.extend(texts) or original(texts)
    settings = Settings.load(store=str(tmp_path / "m.db"))
    async with AsyncMemory.open(settings, embedder=embedder) as memory:
        await memory.add_turns([{"user_id": "u", "thread_id": "t", "role": "user",
                                  "content": t} for t in TEXTS])
        hits = await memory.search("u", "where did the dog go", mode="vector", k=3)
    assert seen == ["where did the dog go"] and hits[0].record.content == TEXTS[2]


async def test_a_store_refuses_another_model(exported, tmp_path, local_embedder):
    settings = Settings.load(store=str(tmp_path / "m.db"))
    async with AsyncMemory.open(settings, embedder=get_embedder(f"local:{exported}")) as memory:
        await memory.add_turns([{"user_id": "u", "thread_id": "t", "role": "user",
                                  "content": TEXTS[0]}])
    with pytest.raises(EmbeddingMismatchError, match="tiny-st"):
        async with AsyncMemory.open(settings, embedder=local_embedder):
            pass
