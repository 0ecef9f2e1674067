"""A cross-encoder in shape only, for the reranking tests: a small ONNX graph with a cross-encoder's
inputs and output (``input_ids``, ``attention_mask``, ``token_type_ids`` in; ``logits [batch, 1]``
out) that scores a pair by how often the passage's half holds one word. It checks the plumbing
(pairs, segments, batching, order), not ranking quality."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

WORD = "lighthouse"


def word_counting_reranker(folder: Path, tokenizer: Path) -> Path:
    """A cross-encoder-shaped ONNX model: logit = occurrences of WORD in the passage segment
    (token type 1), so the question's own words never count."""
    import onnx
    from onnx import TensorProto, helper
    from tokenizers import Tokenizer

    word_id = Tokenizer.from_file(str(tokenizer)).token_to_id(WORD)
    assert word_id is not None
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    output = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])
    nodes = [
        helper.make_node("Constant", [], ["word"], value=helper.make_tensor("w", 7, [], [word_id])),
        helper.make_node("Equal", ["input_ids", "word"], ["is_word"]),
        helper.make_node("Cast", ["is_word"], ["is_word_f"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["token_type_ids"], ["segment_f"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["is_word_f", "segment_f"], ["in_passage"]),
        helper.make_node("Mul", ["in_passage", "mask_f"], ["counted"]),
        helper.make_node("Constant", [], ["axes"], value=helper.make_tensor("a", 7, [1], [1])),
        helper.make_node("ReduceSum", ["counted", "axes"], ["logits"], keepdims=1),
    ]
    graph = helper.make_graph(nodes, "word_counter", inputs, [output])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    folder.mkdir(parents=True)
    onnx.save(model, str(folder / "model.onnx"))
    shutil.copyfile(tokenizer, folder / "tokenizer.json")
    (folder / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 512}))
    return folder
