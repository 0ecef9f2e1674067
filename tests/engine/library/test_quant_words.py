"""A model's quantization in plain words, for every type llama.cpp names."""

from __future__ import annotations

import pytest

from engine.formats.gguf import FILE_TYPES, GGML_TYPES
from engine.formats.quant_words import (
    describe_quant,
    mix_parts,
    mix_shares,
    mix_words,
    quant_facts,
)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("Q4_K_M", "4-bit, medium quality"),
        ("Q4_K_S", "4-bit, medium quality"),
        ("Q4_0", "4-bit, medium quality"),
        ("Q4_1", "4-bit, medium quality"),
        ("IQ4_XS", "4-bit, medium quality"),
        ("Q8_0", "8-bit, near original quality"),
        ("F16", "16-bit, original quality"),
        ("BF16", "16-bit, original quality"),
        ("F32", "32-bit, original quality"),
        ("Q6_K", "6-bit, very high quality"),
        ("Q5_K_M", "5-bit, high quality"),
        ("Q5_0", "5-bit, high quality"),
        ("Q3_K_L", "3-bit, low quality"),
        ("IQ3_XXS", "3-bit, low quality"),
        ("Q2_K", "2-bit, lowest quality"),
        ("IQ2_M", "2-bit, lowest quality"),
        ("IQ1_S", "1-bit, lowest quality"),
        ("q4_k_m", "4-bit, medium quality"),  # as file names spell it
    ],
)
def test_a_quantization_reads_as_bits_and_quality(name: str, words: str) -> None:
    assert describe_quant(name) == words


def test_every_type_llama_cpp_names_has_words() -> None:
    """Each file type (general.file_type) and each tensor type (ggml_type) the reader knows."""
    names = set(FILE_TYPES.values()) | {name for name, _block, _size in GGML_TYPES.values()}
    missing = sorted(name for name in names if not describe_quant(name))
    assert missing == []


def test_more_bits_never_read_as_lower_quality() -> None:
    order = ["lowest quality", "low quality", "medium quality", "high quality"]
    order += ["very high quality", "near original quality", "original quality"]
    ladder = ["Q2_K", "Q3_K_M", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0", "F16"]
    ranks = []
    for name in ladder:
        facts = quant_facts(name)
        assert facts is not None
        ranks.append(order.index(facts[1]))
    assert ranks == sorted(ranks)


def test_names_inside_other_names() -> None:
    """A quantizer's own mix names its main type; ONNX builds name their precision."""
    assert describe_quant("UD-Q4_K_XL") == "4-bit, medium quality"
    assert describe_quant("Q5_K_XL") == "5-bit, high quality"
    assert describe_quant("cpu-int4") == "4-bit, medium quality"
    assert describe_quant("ONNX cuda-fp16") == "16-bit, original quality"


def test_an_unknown_name_has_no_words() -> None:
    assert describe_quant("?") == "" and describe_quant("") == ""
    assert describe_quant("Q44") == "" and quant_facts("model") is None


def test_the_tensor_mix_in_words_keeps_each_code_as_a_detail() -> None:
    line = "Q4_1 69 %, Q6_K 30 %, F32 <1 %"
    assert mix_shares(line) == [("Q4_1", "69 %"), ("Q6_K", "30 %"), ("F32", "<1 %")]
    assert mix_words(line) == (
        "Mostly 4-bit (Q4_1, 69 % of the weights); also 6-bit (Q6_K, 30 %), 32-bit (F32, <1 %)"
    )
    assert mix_words("Q4_1 100 %") == "All 4-bit (Q4_1, 100 % of the weights)"
    assert mix_words("Q8_0 45 %, Q4_K 40 %, Q6_K 15 %").startswith("Mixed: 8-bit (Q8_0, 45 %")
    assert mix_words("") == "" and mix_words("not a mix") == ""
    assert mix_parts({"Q4_1": "100 %"}) == ("all", [("4-bit", "Q4_1", "100 %")])
    assert mix_parts("Q8_0 45 %, Q4_K 40 %")[0] == "mixed"
